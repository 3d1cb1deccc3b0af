package ph.payments.gateway.commands;

import io.micronaut.context.annotation.Value;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.tx.Transactions;

/**
 * Deletes answered commands from the command log once their reply is older than {@code
 * gateway.commands.retention} (default 48 hours: the 24-hour idempotency window, in which a retry
 * may look the reply up, plus a day for operators to inspect). Commands still waiting for a reply
 * are kept, whatever their age. Every instance runs it; concurrent runs delete disjoint rows or
 * nothing. Deletes in batches so no transaction holds many row locks.
 */
@Singleton
public class CommandPurge {

  /** SPEC part 8's idempotency window: a retry within it may still need the command's reply. */
  static final Duration SHORTEST_RETENTION = Duration.ofHours(24);

  private static final Logger log = LoggerFactory.getLogger(CommandPurge.class);
  private static final int BATCH = 5_000;

  private final Transactions transactions;
  private final Clock clock;
  private final Duration retention;

  public CommandPurge(
      Transactions transactions,
      Clock clock,
      @Value("${gateway.commands.retention:48h}") Duration retention) {
    if (retention.compareTo(SHORTEST_RETENTION) < 0) {
      throw new IllegalStateException(
          "COMMANDS_RETENTION "
              + retention
              + " is shorter than the 24-hour idempotency window, in which a retry may still need"
              + " a command's reply");
    }
    this.transactions = transactions;
    this.clock = clock;
    this.retention = retention;
  }

  /**
   * @return how many commands were deleted
   */
  @Scheduled(
      initialDelay = "${gateway.commands.purge.interval:10m}",
      fixedDelay = "${gateway.commands.purge.interval:10m}")
  public int purge() {
    Instant cutoff = clock.instant().minus(retention);
    int total = 0;
    int deleted;
    do {
      deleted =
          transactions.inTransaction(
              connection -> CommandLog.purgeAnswered(connection, cutoff, BATCH));
      total += deleted;
    } while (deleted == BATCH);
    if (total > 0) {
      log.info("purged {} commands answered before {}", total, cutoff);
    }
    return total;
  }
}
