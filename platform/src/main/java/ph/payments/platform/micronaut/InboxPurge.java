package ph.payments.platform.micronaut;

import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.inbox.InboxRetention;
import ph.payments.platform.tx.Transactions;

/**
 * Forgets the inbox ids of messages applied longer ago than {@code inbox.retention} (default 30
 * days), in every service, so the table does not grow for ever; see {@link InboxRetention} for why
 * the retention must outlast the topics'. Every instance runs it; concurrent runs delete disjoint
 * rows or nothing. Deletes in batches so no transaction holds many row locks.
 */
@Singleton
@Requires(property = "inbox.purge.enabled", notEquals = "false")
public class InboxPurge {

  private static final Logger log = LoggerFactory.getLogger(InboxPurge.class);
  private static final int BATCH = 5_000;

  private final Transactions transactions;
  private final Clock clock;
  private final Duration retention;

  public InboxPurge(
      Transactions transactions,
      Clock clock,
      @Value("${inbox.retention:30d}") Duration retention,
      @Value("${kafka.topics.retention:7d}") Duration topicRetention,
      @Value("${kafka.topics.segment:1d}") Duration topicSegment) {
    InboxRetention.check(retention, topicRetention, topicSegment);
    this.transactions = transactions;
    this.clock = clock;
    this.retention = retention;
  }

  /**
   * @return how many inbox rows were deleted
   */
  @Scheduled(
      initialDelay = "${inbox.purge.initial-delay:5m}",
      fixedDelay = "${inbox.purge.interval:1h}")
  public int purge() {
    Instant cutoff = clock.instant().minus(retention);
    int total = 0;
    int deleted;
    do {
      deleted =
          transactions.inTransaction(connection -> InboxRetention.purge(connection, cutoff, BATCH));
      total += deleted;
    } while (deleted == BATCH);
    if (total > 0) {
      log.info("purged {} inbox ids of messages applied before {}", total, cutoff);
    }
    return total;
  }
}
