package ph.payments.platform.micronaut;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Set;

/**
 * Every service's metrics carry a {@code service} tag, and the latencies the dashboard shows are
 * Prometheus histograms with one fixed set of buckets (5 ms to 30 s), so {@code histogram_quantile}
 * works across replicas; other timers stay a count, a sum and a max.
 */
@Factory
@Requires(classes = MeterFilter.class)
public class MetricsFilters {

  /** The timers that get buckets; each name is one the dashboard reads. */
  static final Set<String> HISTOGRAMS =
      Set.of(
          "http.server.requests",
          "gateway.command.roundtrip",
          "outbox.publish.latency",
          "webhook.delivery.latency");

  private static final double[] BUCKETS_SECONDS = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30
  };

  @Singleton
  MeterFilter serviceTag(@Value("${micronaut.application.name}") String service) {
    return MeterFilter.commonTags(
        java.util.List.of(io.micrometer.core.instrument.Tag.of("service", service)));
  }

  @Singleton
  MeterFilter latencyHistograms() {
    return new MeterFilter() {
      @Override
      public DistributionStatisticConfig configure(
          Meter.Id id, DistributionStatisticConfig config) {
        if (id.getType() != Meter.Type.TIMER || !HISTOGRAMS.contains(id.getName())) {
          return config;
        }
        double[] nanos = new double[BUCKETS_SECONDS.length];
        for (int i = 0; i < nanos.length; i++) {
          nanos[i] = Duration.ofMillis((long) (BUCKETS_SECONDS[i] * 1000)).toNanos();
        }
        return DistributionStatisticConfig.builder()
            .serviceLevelObjectives(nanos)
            .build()
            .merge(config);
      }
    };
  }
}
