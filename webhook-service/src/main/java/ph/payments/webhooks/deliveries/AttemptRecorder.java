package ph.payments.webhooks.deliveries;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import ph.payments.platform.tx.BatchWriter;
import ph.payments.platform.tx.Transactions;

/**
 * Records finished attempts in batches: one transaction for the attempts that finished while the
 * last one committed ({@link BatchWriter}), instead of one each.
 *
 * <p>A worker that has finished an attempt hands it over and waits for its record, so its slot is
 * given back only once the attempt is recorded ({@link DeliveryScheduler}). A batch is ordered by
 * delivery id, so two instances' batches lock rows in the same order, and recorded with {@link
 * JdbcDeliveries#recordAll}. If it fails for a reason that may be one attempt's (a delivery purged
 * meanwhile, a deadlock), each attempt is recorded again on its own; when the database is away they
 * all fail at once and their deliveries come back when their leases end, as they would have one by
 * one.
 */
@Singleton
public class AttemptRecorder {

  /** The most attempts recorded in one transaction. */
  static final int MAX_BATCH = 256;

  private final BatchWriter<JdbcDeliveries.Finished, JdbcDeliveries.Recorded> writer;

  public AttemptRecorder(
      Transactions transactions, JdbcDeliveries deliveries, Clock clock, MeterRegistry metrics) {
    DistributionSummary batchSizes =
        DistributionSummary.builder("webhook.attempts.record.batch")
            .description("Webhook attempts recorded in one database transaction")
            .register(metrics);
    this.writer =
        new BatchWriter<>(
            "webhook-attempt-recorder",
            MAX_BATCH,
            Comparator.comparingLong(JdbcDeliveries.Finished::deliveryId),
            (List<JdbcDeliveries.Finished> attempts) ->
                transactions.inTransaction(c -> deliveries.recordAll(c, attempts, clock.instant())),
            batchSizes::record);
  }

  /**
   * Records {@code attempt} under its claim and returns what became of its delivery.
   *
   * @throws RuntimeException when it could not be recorded (its delivery comes back when its lease
   *     ends)
   */
  public JdbcDeliveries.Recorded record(JdbcDeliveries.Finished attempt) {
    return writer.submit(attempt);
  }

  /** Attempts queued and not yet taken by a writer (tests). */
  int queued() {
    return writer.queued();
  }
}
