package ph.payments.payments.invoices.application;

import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import ph.payments.payments.invoices.domain.Invoice;
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

  /** Ties the payment, inserted in this transaction, to the invoice it pays. */
  public void linkPayment(Connection connection, String paymentId, String invoiceId)
      throws SQLException {
    invoices.linkPayment(connection, paymentId, invoiceId);
  }

  /**
   * Counts a payment of an invoice that succeeded at {@code at} ({@link Invoice#paid}); nothing
   * when the payment pays no invoice. Call it only from the payment's move to {@code succeeded}, in
   * that transaction: the move happens once per payment, so this does too.
   */
  public void paymentSucceeded(
      Connection connection, String paymentId, BigDecimal amount, Instant at) throws SQLException {
    Optional<String> invoiceId = invoices.invoiceOf(connection, paymentId);
    if (invoiceId.isPresent()) {
      Invoice invoice = invoices.lock(connection, invoiceId.get()).orElseThrow();
      invoices.update(connection, invoice.paid(paymentId, amount, at));
    }
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
