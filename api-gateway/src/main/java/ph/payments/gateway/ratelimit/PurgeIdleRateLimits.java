package ph.payments.gateway.ratelimit;

import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.tx.Transactions;

/**
 * Deletes the {@code rate_limits} rows of keys that had no request admitted for more than an hour.
 * Such a row's log is long empty (its times left the window after 60 seconds), so deleting it
 * changes no decision; the key's next request creates the row again. Every replica runs this job;
 * running it twice at once is harmless. A key with a request in flight holds its row lock, and the
 * delete re-checks the row after that request commits, so an active key's row is never deleted.
 */
@Singleton
public class PurgeIdleRateLimits {

  /** How long a key must have been idle before its row goes. */
  public static final Duration IDLE_FOR = Duration.ofHours(1);

  private static final Logger log = LoggerFactory.getLogger(PurgeIdleRateLimits.class);

  private final Transactions transactions;
  private final Clock clock;

  public PurgeIdleRateLimits(Transactions transactions, Clock clock) {
    this.transactions = transactions;
    this.clock = clock;
  }

  /** Returns how many rows were deleted. */
  @Scheduled(fixedDelay = "10m", initialDelay = "1m")
  public int purge() {
    long idleSince = clock.millis() - IDLE_FOR.toMillis();
    int deleted =
        transactions.inTransaction(
            connection -> {
              try (PreparedStatement delete =
                  connection.prepareStatement(
                      "DELETE FROM rate_limits WHERE last_admitted_millis < ?")) {
                delete.setLong(1, idleSince);
                return delete.executeUpdate();
              }
            });
    if (deleted > 0) {
      log.debug("purged the rate-limit rows of {} idle API keys", deleted);
    }
    return deleted;
  }
}
