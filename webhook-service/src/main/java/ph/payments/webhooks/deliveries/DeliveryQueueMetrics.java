package ph.payments.webhooks.deliveries;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;
import io.micronaut.core.annotation.Nullable;
import java.time.Duration;
import ph.payments.platform.micronaut.SqlSnapshot;
import ph.payments.platform.tx.Transactions;

/**
 * The delivery queue as an operator sees it (docs/operations.md), read from the table so every
 * replica reports the same service-wide numbers: deliveries pending (waiting for a retry or due),
 * those due now, and how long the oldest due one has waited for a slot. Attempts themselves are
 * counted by {@link DeliveryAttempts}.
 */
@Context
public class DeliveryQueueMetrics {

  static final String QUEUE_SQL =
      "SELECT count(*), count(*) FILTER (WHERE next_attempt_at <= now()),"
          + " coalesce(extract(epoch FROM now() - min(next_attempt_at)"
          + " FILTER (WHERE next_attempt_at <= now())), 0)"
          + " FROM webhook_deliveries WHERE status = 'pending'";

  public DeliveryQueueMetrics(
      MeterRegistry registry, Transactions transactions, @Nullable DeliveryScheduler scheduler) {
    SqlSnapshot queue = new SqlSnapshot(transactions, QUEUE_SQL, 3, Duration.ofSeconds(1));
    Gauge.builder("webhook.queue.pending", queue, q -> q.value(0))
        .description("Deliveries not yet succeeded or failed (waiting for a retry, due or running)")
        .register(registry);
    Gauge.builder("webhook.queue.due", queue, q -> q.value(1))
        .description("Deliveries whose next attempt is due now")
        .register(registry);
    Gauge.builder("webhook.queue.oldest.due.age", queue, q -> q.value(2))
        .description("How long the longest-waiting due delivery has waited past its time")
        .baseUnit("seconds")
        .register(registry);
    if (scheduler != null) {
      Gauge.builder("webhook.attempts.in.flight", scheduler, DeliveryScheduler::inFlight)
          .description("Attempts this instance is running now")
          .register(registry);
      FunctionCounter.builder("webhook.scheduler.claims", scheduler, DeliveryScheduler::claimPasses)
          .description(
              "Times this instance's scheduler read the queue for due deliveries (a new event's"
                  + " first attempt, handed off where it is created, needs none)")
          .register(registry);
    }
  }
}
