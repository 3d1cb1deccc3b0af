package ph.payments.payments.providers.sandbox;

import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.payments.providers.ProviderCallbacks;
import ph.payments.platform.tx.Transactions;

/**
 * The sandbox batch rail's clock: every {@code payments.sandbox.batch-sweep} it sends the queued
 * {@code bank_transfer_nrt} payouts whose cut-off has passed ({@link BatchSchedule}), each in its
 * own transaction, and delivers the rail's signed callbacks through {@link ProviderCallbacks}.
 */
@Singleton
public class SandboxPayoutBatches {

  private static final Logger log = LoggerFactory.getLogger(SandboxPayoutBatches.class);
  private static final int BATCH = 200;

  private final SandboxProviders sandbox;
  private final ProviderCallbacks callbacks;
  private final Transactions transactions;
  private final Clock clock;

  public SandboxPayoutBatches(
      SandboxProviders sandbox,
      ProviderCallbacks callbacks,
      Transactions transactions,
      Clock clock) {
    this.sandbox = sandbox;
    this.callbacks = callbacks;
    this.transactions = transactions;
    this.clock = clock;
  }

  @Scheduled(
      fixedDelay = "${payments.sandbox.batch-sweep:30s}",
      initialDelay = "${payments.sandbox.batch-sweep:30s}")
  void sweep() {
    try {
      sendDue();
    } catch (RuntimeException e) {
      log.warn("sandbox batch sweep failed; the next one retries: {}", e.toString());
    }
  }

  /** Sends every queued payout whose cut-off has passed; returns how many were sent. */
  public int sendDue() {
    int sent = 0;
    for (SandboxPayoutRail rail : sandbox.payoutRails()) {
      if (!rail.isBatch()) {
        continue;
      }
      List<String> due;
      do {
        due = transactions.inTransaction(c -> rail.dueForBatch(c, clock.instant(), BATCH));
        for (String ref : due) {
          sent +=
              transactions.inTransaction(
                  c -> {
                    var reports = rail.sendWithBatch(c, ref);
                    for (SandboxProvider.SignedCallback callback : reports) {
                      callbacks.receive(c, rail, callback.body(), callback.signature());
                    }
                    return reports.size();
                  });
        }
      } while (due.size() == BATCH);
    }
    return sent;
  }
}
