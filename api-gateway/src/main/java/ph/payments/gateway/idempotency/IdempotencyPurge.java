package ph.payments.gateway.idempotency;

import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.tx.Transactions;

/**
 * Deletes idempotency records older than the window. They are already ignored on lookup; this only
 * keeps the table small. Every instance runs it; concurrent runs delete disjoint rows or nothing.
 * Deletes in batches so no transaction holds many row locks.
 */
@Singleton
public class IdempotencyPurge {

  private static final Logger log = LoggerFactory.getLogger(IdempotencyPurge.class);
  private static final int BATCH = 5_000;

  private final Transactions transactions;
  private final Clock clock;

  public IdempotencyPurge(Transactions transactions, Clock clock) {
    this.transactions = transactions;
    this.clock = clock;
  }

  /**
   * @return how many records were deleted
   */
  @Scheduled(
      initialDelay = "${gateway.idempotency.purge.interval:10m}",
      fixedDelay = "${gateway.idempotency.purge.interval:10m}")
  public int purge() {
    Instant cutoff = clock.instant().minus(IdempotencyRecords.WINDOW);
    int total = 0;
    int deleted;
    do {
      deleted =
          transactions.inTransaction(
              connection -> IdempotencyRecords.purge(connection, cutoff, BATCH));
      total += deleted;
    } while (deleted == BATCH);
    if (total > 0) {
      log.info("purged {} idempotency records created before {}", total, cutoff);
    }
    return total;
  }
}
