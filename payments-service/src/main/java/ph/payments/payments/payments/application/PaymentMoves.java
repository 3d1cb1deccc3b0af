package ph.payments.payments.payments.application;

import io.micronaut.context.annotation.Value;
import jakarta.inject.Provider;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.payments.events.EventLog;
import ph.payments.payments.invoices.application.Invoices;
import ph.payments.payments.invoices.domain.InvoiceKind;
import ph.payments.payments.links.application.PaymentLinks;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.domain.PaymentStatus;
import ph.payments.payments.payments.persistence.JdbcPayments;
import ph.payments.payments.payments.web.PaymentJson;
import ph.payments.payments.refunds.application.CreateRefund;
import ph.payments.platform.money.Money;

/**
 * Applies a move to a payment and writes its event, in the caller's transaction: the new state, the
 * event row and the event's outbox row commit together or not at all. A move without an event type
 * (a refund's effect on its payment) writes the state only.
 *
 * <p>The move to {@code succeeded} of a payment made through a payment link also counts the use on
 * the link ({@code usage_count} + 1, {@code last_used_at}), in the same transaction. A payment
 * reaches {@code succeeded} at most once (the transition table has no way back to it, and the state
 * write is conditional on the locked status), so a redelivered capture or command counts nothing
 * twice. A partial refund moves a succeeded payment to {@code succeeded} again: that is no use,
 * hence the check of the status the payment had. The same move of a payment that pays an invoice
 * moves the invoice ({@link Invoices#paymentSucceeded}), once, for the same reasons; what the
 * invoice did not take (a payment racing another for the same remaining, or created before a void)
 * is refunded in that transaction too, right after the payment's event.
 */
@Singleton
public class PaymentMoves {

  private static final Logger log = LoggerFactory.getLogger(PaymentMoves.class);

  private final JdbcPayments payments;
  private final PaymentLinks links;
  private final Invoices invoices;
  private final Provider<CreateRefund> refunds;
  private final EventLog events;
  private final Clock clock;
  private final String publicBaseUrl;

  public PaymentMoves(
      JdbcPayments payments,
      PaymentLinks links,
      Invoices invoices,
      Provider<CreateRefund> refunds,
      EventLog events,
      Clock clock,
      @Value("${payments.public-base-url}") String publicBaseUrl) {
    this.payments = payments;
    this.links = links;
    this.invoices = invoices;
    this.refunds = refunds;
    this.events = events;
    this.clock = clock;
    this.publicBaseUrl = publicBaseUrl;
  }

  /**
   * @param locked the payment, locked by this transaction ({@link JdbcPayments#lock})
   * @param move what to do, e.g. {@code Payment::succeeded}
   * @return the move's outcome; a {@link Payment.Refused} changes nothing
   */
  public Payment.Move apply(
      Connection connection, Payment locked, BiFunction<Payment, Instant, Payment.Move> move)
      throws SQLException {
    Payment.Move outcome = move.apply(locked, clock.instant());
    if (outcome instanceof Payment.Moved moved) {
      if (!payments.updateState(connection, moved.payment(), locked.status())) {
        throw new IllegalStateException("payment " + locked.id() + " changed under its lock");
      }
      Payment next = moved.payment();
      Optional<Invoices.Counted> counted = Optional.empty();
      if (next.status() == PaymentStatus.SUCCEEDED && locked.status() != PaymentStatus.SUCCEEDED) {
        if (next.paymentLinkId() != null) {
          links.recordUse(connection, next.paymentLinkId(), next.succeededAt());
        }
        counted =
            invoices.paymentSucceeded(
                connection, next.id(), next.amount().amount(), next.succeededAt());
      }
      if (moved.eventType() != null) { // else announced by another resource's event (a refund's)
        events.append(
            connection,
            new EventLog.Subject(
                locked.merchantId(),
                locked.environment(),
                "payment",
                locked.id(),
                locked.id(),
                locked.webhookUrl()),
            moved.eventType(),
            json(moved.payment()));
      }
      if (counted.isPresent() && counted.get().overpaid()) {
        giveBack(connection, next, counted.get());
      }
    }
    return outcome;
  }

  /**
   * Refunds what the invoice did not take of {@code payment}, after its {@code payment.succeeded}
   * so the refund's events follow it. An activation fee is paid to the platform, not the merchant,
   * so no merchant refund may take it back; its payments are kept from overpaying instead (one open
   * payment at a time, no void while one is open), and an excess there is only reported.
   */
  private void giveBack(Connection connection, Payment payment, Invoices.Counted counted)
      throws SQLException {
    Money excess = Money.of(counted.excess(), payment.currency());
    if (counted.invoice().kind() == InvoiceKind.ACTIVATION_FEE) {
      log.error(
          "activation fee invoice {} overpaid by {} through payment {}: settle it by hand",
          counted.invoice().id(),
          excess,
          payment.id());
      return;
    }
    if (refunds.get().refundExcess(connection, payment, excess).isEmpty()) {
      log.error(
          "invoice {} overpaid by {} through payment {}, whose provider {} takes no refunds now:"
              + " refund it by hand",
          counted.invoice().id(),
          excess,
          payment.id(),
          payment.provider());
    }
  }

  public com.fasterxml.jackson.databind.node.ObjectNode json(Payment payment) {
    return PaymentJson.of(payment, publicBaseUrl);
  }
}
