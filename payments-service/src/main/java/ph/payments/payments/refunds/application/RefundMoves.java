package ph.payments.payments.refunds.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.function.BiFunction;
import ph.payments.payments.events.EventLog;
import ph.payments.payments.invoices.application.Invoices;
import ph.payments.payments.payments.application.PaymentMoves;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.refunds.domain.Refund;
import ph.payments.payments.refunds.domain.RefundStatus;
import ph.payments.payments.refunds.persistence.JdbcRefunds;
import ph.payments.payments.refunds.web.RefundJson;

/**
 * Writes refunds and their events in the caller's transaction. Refund events are keyed by the
 * payment id, so a payment's {@code payment.succeeded} and its refunds' events stay in order on one
 * partition (the ledger must see the credit before the debits). A refund that succeeds adds to its
 * payment's refunded amount in the same transaction, and the one that completes it moves the
 * payment to {@code refunded}, with no payment event. A succeeded refund of a payment that pays an
 * invoice takes its amount off the invoice's {@code amount_paid} in the same transaction.
 */
@Singleton
public class RefundMoves {

  private final JdbcRefunds refunds;
  private final PaymentMoves payments;
  private final EventLog events;
  private final Clock clock;
  private final Invoices invoices;

  public RefundMoves(
      JdbcRefunds refunds, PaymentMoves payments, EventLog events, Clock clock, Invoices invoices) {
    this.invoices = invoices;
    this.refunds = refunds;
    this.payments = payments;
    this.events = events;
    this.clock = clock;
  }

  /** Stores a new refund with its {@code refund.created} event. */
  public void created(Connection connection, Refund refund) throws SQLException {
    refunds.insert(connection, refund);
    append(connection, refund, Refund.CREATED);
  }

  /**
   * @param payment the refund's payment, locked by this transaction before the refund (the lock
   *     order of every refund change: payment, then refund)
   * @param locked the refund, locked by this transaction
   * @param move what to do, e.g. {@code Refund::succeeded}
   * @return the move's outcome; a {@link Refund.Refused} changes nothing
   */
  public Refund.Move apply(
      Connection connection,
      Payment payment,
      Refund locked,
      BiFunction<Refund, Instant, Refund.Move> move)
      throws SQLException {
    Refund.Move outcome = move.apply(locked, clock.instant());
    if (outcome instanceof Refund.Moved moved) {
      Refund next = moved.refund();
      if (!refunds.updateState(connection, next, locked.status())) {
        throw new IllegalStateException("refund " + locked.id() + " changed under its lock");
      }
      if (next.status() == RefundStatus.SUCCEEDED) {
        Payment.Move effect =
            payments.apply(connection, payment, (p, now) -> p.refunded(next.amount(), now));
        if (effect instanceof Payment.Refused refused) {
          // Refunds are only created for succeeded payments and reserve their amount, so the
          // payment can only be succeeded here: anything else is a bug, and rolls back.
          throw new IllegalStateException(
              "refund " + next.id() + " succeeded but its payment is " + refused.from().wire());
        }
        // An invoice paid by the payment gives the amount back and reopens (Invoice#refunded).
        invoices.refundSucceeded(connection, payment.id(), next.amount().amount(), clock.instant());
      }
      if (moved.eventType() != null) {
        append(connection, next, moved.eventType());
      }
    }
    return outcome;
  }

  private void append(Connection connection, Refund refund, String type) throws SQLException {
    events.append(
        connection,
        new EventLog.Subject(
            refund.merchantId(), refund.environment(), "refund", refund.id(), refund.paymentId()),
        type,
        RefundJson.of(refund));
  }
}
