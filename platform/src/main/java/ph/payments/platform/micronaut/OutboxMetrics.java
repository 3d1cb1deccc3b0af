package ph.payments.platform.micronaut;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import java.time.Duration;
import ph.payments.platform.outbox.LogicalOutboxRelay;
import ph.payments.platform.outbox.OutboxRelay;
import ph.payments.platform.tx.Transactions;

/**
 * The outbox as an operator sees it (docs/operations.md): how many rows wait and how old the oldest
 * is (read from the table, so every replica reports the same service-wide numbers, whichever one
 * leads), whether this replica's relay leads, and, from the leading relay, how long a row took from
 * its transaction to Kafka's acknowledgement and how many sends failed.
 */
@Context
@Requires(beans = MeterRegistry.class)
public class OutboxMetrics {

  static final String PENDING_SQL =
      "SELECT count(*), coalesce(extract(epoch FROM now() - min(created_at)), 0)"
          + " FROM outbox WHERE published_at IS NULL";

  public OutboxMetrics(
      MeterRegistry registry,
      Transactions transactions,
      @Nullable OutboxRelay relay,
      @Nullable LogicalOutboxRelay logicalRelay) {
    SqlSnapshot pending = new SqlSnapshot(transactions, PENDING_SQL, 2, Duration.ofSeconds(1));
    Gauge.builder("outbox.pending", pending, p -> p.value(0))
        .description("Outbox rows not yet published to Kafka")
        .register(registry);
    Gauge.builder("outbox.oldest.pending.age", pending, p -> p.value(1))
        .description("Age of the oldest unpublished outbox row (0 when none)")
        .baseUnit("seconds")
        .register(registry);
    if (relay != null) {
      // Exactly one replica of a service reports 1 (the advisory lock's holder), docs/scaling.md.
      Gauge.builder("outbox.relay.leader", relay, r -> r.isLeader() ? 1 : 0)
          .description("1 while this instance's outbox relay holds the lock and publishes, else 0")
          .register(registry);
      Timer latency =
          Timer.builder("outbox.publish.latency")
              .description("From an outbox row's transaction to Kafka's acknowledgement")
              .register(registry);
      Counter failures =
          Counter.builder("outbox.publish.failures")
              .description("Outbox sends that Kafka did not acknowledge (retried)")
              .register(registry);
      OutboxRelay.Observer observer =
          new OutboxRelay.Observer() {
            @Override
            public void acknowledged(Duration sinceWritten) {
              latency.record(sinceWritten.isNegative() ? Duration.ZERO : sinceWritten);
            }

            @Override
            public void failed() {
              failures.increment();
            }
          };
      relay.observe(observer);
      if (logicalRelay != null) {
        logicalRelay.observe(observer);
      }
    }
  }
}
