package ph.payments.payments.payouts;

import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import ph.payments.payments.events.EventLog;
import ph.payments.payments.payouts.application.PayoutMoves;
import ph.payments.payments.payouts.domain.Payout;
import ph.payments.payments.payouts.persistence.JdbcPayouts;

/**
 * {@link PayoutMoves} with a fault the test can switch on between the hold and the payout's commit
 * (issue 14, item 8): {@link #failCreations} makes the creation throw after the payout row was
 * written, so the command's transaction rolls back with the ledger's hold already taken; {@link
 * #pauseNextCreation} holds the creating transaction open (its locks held) until the test lets it
 * go, to order a race.
 */
@Singleton
@Replaces(PayoutMoves.class)
@Requires(property = "spec.name", value = "PayoutFlowIT")
public class InterruptedPayoutMoves extends PayoutMoves {

  private volatile boolean failing;
  private volatile CountDownLatch reached;
  private volatile CountDownLatch proceed;

  public InterruptedPayoutMoves(JdbcPayouts payouts, EventLog events, Clock clock) {
    super(payouts, events, clock);
  }

  public void failCreations(boolean value) {
    failing = value;
  }

  /**
   * The next creation waits, inside its transaction, until {@code proceed} opens; {@code reached}
   * opens when it got there.
   */
  public void pauseNextCreation(CountDownLatch reached, CountDownLatch proceed) {
    this.reached = reached;
    this.proceed = proceed;
  }

  @Override
  public void created(Connection connection, Payout payout, String eventType) throws SQLException {
    super.created(connection, payout, eventType);
    if (failing) {
      throw new IllegalStateException("injected: the payout's transaction fails after the hold");
    }
    CountDownLatch gate = proceed;
    if (gate != null) {
      proceed = null;
      reached.countDown();
      try {
        if (!gate.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the test never let the creation go on");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }
}
