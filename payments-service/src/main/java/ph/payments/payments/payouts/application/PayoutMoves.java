package ph.payments.payments.payouts.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.function.BiFunction;
import ph.payments.payments.events.EventLog;
import ph.payments.payments.payouts.domain.Payout;
import ph.payments.payments.payouts.persistence.JdbcPayouts;
import ph.payments.payments.payouts.web.PayoutJson;

/**
 * Writes payouts and their events in the caller's transaction. Payout events are keyed by the
 * payout id; the ledger settles the payout's hold on {@code payout.succeeded} and reverses it on
 * {@code payout.failed}.
 */
@Singleton
public class PayoutMoves {

  private final JdbcPayouts payouts;
  private final EventLog events;
  private final Clock clock;

  public PayoutMoves(JdbcPayouts payouts, EventLog events, Clock clock) {
    this.payouts = payouts;
    this.events = events;
    this.clock = clock;
  }

  /**
   * Stores a new payout in the state the rail's first answer put it in.
   *
   * @param eventType the event of that state ({@code payout.succeeded} or {@code payout.failed} for
   *     an instant answer), or null
   */
  public void created(Connection connection, Payout payout, String eventType) throws SQLException {
    payouts.insert(connection, payout);
    if (eventType != null) {
      append(connection, payout, eventType);
    }
  }

  /**
   * @param locked the payout, locked by this transaction ({@link JdbcPayouts#lock})
   * @return the move's outcome; a {@link Payout.Refused} changes nothing
   */
  public Payout.Move apply(
      Connection connection, Payout locked, BiFunction<Payout, Instant, Payout.Move> move)
      throws SQLException {
    Payout.Move outcome = move.apply(locked, clock.instant());
    if (outcome instanceof Payout.Moved moved) {
      if (!payouts.updateState(connection, moved.payout(), locked.status())) {
        throw new IllegalStateException("payout " + locked.id() + " changed under its lock");
      }
      if (moved.eventType() != null) {
        append(connection, moved.payout(), moved.eventType());
      }
    }
    return outcome;
  }

  private void append(Connection connection, Payout payout, String type) throws SQLException {
    events.append(
        connection,
        new EventLog.Subject(
            payout.merchantId(), payout.environment(), "payout", payout.id(), payout.id()),
        type,
        PayoutJson.of(payout));
  }
}
