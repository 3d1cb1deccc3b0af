package ph.payments.payments.payments.application;

import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.function.BiFunction;
import ph.payments.payments.events.EventLog;
import ph.payments.payments.invoices.application.Invoices;
import ph.payments.payments.links.application.PaymentLinks;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.domain.PaymentStatus;
import ph.payments.payments.payments.persistence.JdbcPayments;
import ph.payments.payments.payments.web.PaymentJson;

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
 * moves the invoice ({@link Invoices#paymentSucceeded}), once, for the same reasons.
 */
@Singleton
public class PaymentMoves {

  private final JdbcPayments payments;
  private final PaymentLinks links;
  private final Invoices invoices;
  private final EventLog events;
  private final Clock clock;
  private final String publicBaseUrl;

  public PaymentMoves(
      JdbcPayments payments,
      PaymentLinks links,
      Invoices invoices,
      EventLog events,
      Clock clock,
      @Value("${payments.public-base-url}") String publicBaseUrl) {
    this.payments = payments;
    this.links = links;
    this.invoices = invoices;
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
      if (next.status() == PaymentStatus.SUCCEEDED && locked.status() != PaymentStatus.SUCCEEDED) {
        if (next.paymentLinkId() != null) {
          links.recordUse(connection, next.paymentLinkId(), next.succeededAt());
        }
        invoices.paymentSucceeded(
            connection, next.id(), next.amount().amount(), next.succeededAt());
      }
      if (moved.eventType() == null) {
        return outcome; // announced by another resource's event (a refund's)
      }
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
    return outcome;
  }

  public com.fasterxml.jackson.databind.node.ObjectNode json(Payment payment) {
    return PaymentJson.of(payment, publicBaseUrl);
  }
}
