package ph.payments.payments.invoices.application;

import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import ph.payments.payments.invoices.domain.Invoice;
import ph.payments.payments.invoices.domain.InvoiceKind;
import ph.payments.payments.invoices.domain.InvoiceTokens;
import ph.payments.payments.invoices.persistence.JdbcInvoices;
import ph.payments.payments.invoices.web.InvoiceJson;
import ph.payments.platform.ids.IdType;

/**
 * What the rest of payments-service asks of invoices: storing one with a fresh token, the invoice a
 * payment pays (locked), and moving it with that payment's success or a refund's.
 */
@Singleton
public class Invoices {

  private static final int TOKEN_ATTEMPTS = 5;

  private final JdbcInvoices invoices;
  private final String publicBaseUrl;

  public Invoices(
      JdbcInvoices invoices, @Value("${payments.public-base-url}") String publicBaseUrl) {
    this.invoices = invoices;
    this.publicBaseUrl = publicBaseUrl;
  }

  /** An invoice about to be stored, with everything but its token. */
  public interface Draft {
    Invoice withToken(String token);
  }

  public Invoice insert(Connection connection, Draft draft) throws SQLException {
    for (int i = 0; i < TOKEN_ATTEMPTS; i++) {
      Invoice invoice = draft.withToken(InvoiceTokens.generate());
      if (invoices.insert(connection, invoice)) {
        return invoice;
      }
      if (invoices.find(connection, invoice.id()).isPresent()) {
        throw new IllegalStateException("invoice " + invoice.id() + " exists already");
      }
    }
    throw new IllegalStateException("no free token after " + TOKEN_ATTEMPTS + " attempts");
  }

  /**
   * The invoice {@code invoice_id} names, locked for the rest of the transaction, if it is the
   * merchant's in this environment (another environment's counts as missing).
   */
  public Optional<Invoice> lockForPayment(
      Connection connection, String id, String merchantId, String environment) throws SQLException {
    if (!IdType.INVOICE.matches(id)) {
      return Optional.empty();
    }
    return invoices
        .lock(connection, id)
        .filter(v -> v.merchantId().equals(merchantId) && v.environment().equals(environment));
  }

  /** A payment of the invoice that may still succeed (pending or processing), if any. */
  public Optional<String> openPaymentOf(Connection connection, String invoiceId)
      throws SQLException {
    return invoices.openPaymentOf(connection, invoiceId);
  }

  /**
   * Whether the payment pays an activation fee: the platform's money, which no merchant refunds.
   */
  public boolean paysActivationFee(Connection connection, String paymentId) throws SQLException {
    return invoices
        .kindPaidBy(connection, paymentId)
        .filter(kind -> kind == InvoiceKind.ACTIVATION_FEE)
        .isPresent();
  }

  /** Ties the payment, inserted in this transaction, to the invoice it pays. */
  public void linkPayment(Connection connection, String paymentId, String invoiceId)
      throws SQLException {
    invoices.linkPayment(connection, paymentId, invoiceId);
  }

  /** A succeeded payment counted on the invoice it pays. */
  public record Counted(Invoice invoice, BigDecimal excess) {

    /** Whether part of the payment is more than the invoice took and must go back. */
    public boolean overpaid() {
      return excess.signum() > 0;
    }
  }

  /**
   * Counts a payment of an invoice that succeeded at {@code at} ({@link Invoice#paid}); empty when
   * the payment pays no invoice. Call it only from the payment's move to {@code succeeded}, in that
   * transaction: the move happens once per payment, so this does too. The answer tells what of the
   * payment the invoice did not take ({@link Invoice#excessOf}), measured before counting it.
   */
  public Optional<Counted> paymentSucceeded(
      Connection connection, String paymentId, BigDecimal amount, Instant at) throws SQLException {
    Optional<String> invoiceId = invoices.invoiceOf(connection, paymentId);
    if (invoiceId.isEmpty()) {
      return Optional.empty();
    }
    Invoice invoice = invoices.lock(connection, invoiceId.get()).orElseThrow();
    BigDecimal excess = invoice.excessOf(amount);
    Invoice counted = invoice.paid(paymentId, amount, at);
    invoices.update(connection, counted);
    return Optional.of(new Counted(counted, excess));
  }

  /**
   * Takes back {@code refunded} of a payment of an invoice ({@link Invoice#refunded}); nothing when
   * the payment pays no invoice. Call it only from the refund's move to {@code succeeded}, in that
   * transaction.
   */
  public void refundSucceeded(
      Connection connection, String paymentId, BigDecimal refunded, Instant at)
      throws SQLException {
    Optional<String> invoiceId = invoices.invoiceOf(connection, paymentId);
    if (invoiceId.isPresent()) {
      Invoice invoice = invoices.lock(connection, invoiceId.get()).orElseThrow();
      invoices.update(connection, invoice.refunded(refunded, at));
    }
  }

  public String url(Invoice invoice) {
    return InvoiceJson.url(publicBaseUrl, invoice.token());
  }

  public String publicBaseUrl() {
    return publicBaseUrl;
  }
}
