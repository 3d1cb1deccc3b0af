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
 * purge skips a locked row rather than wait for it ({@code SKIP LOCKED}), so an active key's row is
 * never deleted, and the purge never waits while holding other keys' rows: a rate-limit batch
 * ({@link RateLimiter}) holds several keys' rows at once, and waiting on each other would deadlock.
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
                      "DELETE FROM rate_limits WHERE api_key_id IN (SELECT api_key_id FROM"
                          + " rate_limits WHERE last_admitted_millis < ? FOR UPDATE SKIP LOCKED)")) {
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
