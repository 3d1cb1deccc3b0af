package ph.payments.platform.micronaut;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micronaut.configuration.kafka.annotation.KafkaListener;
import io.micronaut.context.BeanContext;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.context.env.Environment;
import io.micronaut.inject.BeanDefinition;
import io.micronaut.inject.qualifiers.Qualifiers;
import jakarta.annotation.PreDestroy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.kafka.KafkaSecurity;

/**
 * Consumer lag per group and partition ({@code kafka.consumer.group.lag}): the log-end offset minus
 * the group's committed offset, read with the admin client for every consumer group this service's
 * {@code @KafkaListener}s join (groups with a unique id per instance commit nothing and are left
 * out). Read from the broker, not from one consumer, so a partition whose consumer is stuck or gone
 * still shows its lag; every replica reports the same numbers, so the dashboard takes the maximum.
 */
@Context
@Requires(beans = MeterRegistry.class)
@Requires(property = "metrics.consumer-lag.enabled", notEquals = "false")
public class ConsumerLagMetrics {

  private static final Logger log = LoggerFactory.getLogger(ConsumerLagMetrics.class);
  private static final long TIMEOUT_MILLIS = 5_000;

  private final MultiGauge lag;
  private final Set<String> groups;
  private final Admin admin;
  // Its own daemon thread rather than @Scheduled: a scheduled method that fires while the context
  // shuts down would create the bean (and an admin client) again.
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          task -> {
            Thread thread = new Thread(task, "consumer-lag-metrics");
            thread.setDaemon(true);
            return thread;
          });

  public ConsumerLagMetrics(
      MeterRegistry registry,
      BeanContext beans,
      Environment environment,
      KafkaSecurity security,
      @Value("${kafka.bootstrap.servers}") String bootstrapServers,
      @Value("${metrics.consumer-lag.interval:15s}") Duration interval) {
    this.groups = listenerGroups(beans, environment);
    this.lag =
        MultiGauge.builder("kafka.consumer.group.lag")
            .description("Messages in a partition not yet consumed by the group")
            .register(registry);
    this.admin =
        Admin.create(
            security.applyTo(
                Map.of(
                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    bootstrapServers,
                    AdminClientConfig.CLIENT_ID_CONFIG,
                    "consumer-lag-metrics",
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                    (int) TIMEOUT_MILLIS,
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                    (int) TIMEOUT_MILLIS)));
    log.info("consumer lag metrics for groups {}", groups);
    timer.scheduleWithFixedDelay(
        this::refresh, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The groups whose lag is reported. */
  public Set<String> groups() {
    return groups;
  }

  void refresh() {
    List<MultiGauge.Row<?>> rows = new ArrayList<>();
    try {
      for (String group : groups) {
        Map<TopicPartition, OffsetAndMetadata> committed =
            admin
                .listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        committed.values().removeIf(java.util.Objects::isNull);
        if (committed.isEmpty()) {
          continue;
        }
        Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
        committed.keySet().forEach(partition -> latest.put(partition, OffsetSpec.latest()));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
            admin.listOffsets(latest).all().get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        committed.forEach(
            (partition, offset) -> {
              long end = ends.get(partition).offset();
              rows.add(
                  MultiGauge.Row.of(
                      Tags.of(
                          "group", group,
                          "topic", partition.topic(),
                          "partition", Integer.toString(partition.partition())),
                      Math.max(0, end - offset.offset())));
            });
      }
      lag.register(rows, true);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException
        | java.util.concurrent.ExecutionException
        | java.util.concurrent.TimeoutException e) {
      // Keep the last numbers; a broker that does not answer shows in the health check.
      log.debug("reading consumer lag failed: {}", e.toString());
    }
  }

  @PreDestroy
  void close() {
    timer.shutdownNow();
    admin.close(Duration.ofSeconds(2));
  }

  private static Set<String> listenerGroups(BeanContext beans, Environment environment) {
    Set<String> groups = new TreeSet<>();
    for (BeanDefinition<?> definition :
        beans.getBeanDefinitions(Qualifiers.byStereotype(KafkaListener.class))) {
      if (definition.booleanValue(KafkaListener.class, "uniqueGroupId").orElse(false)) {
        continue;
      }
      definition
          .stringValue(KafkaListener.class, "groupId")
          .filter(id -> !id.isBlank())
          .map(id -> environment.getPlaceholderResolver().resolveRequiredPlaceholders(id))
          .ifPresent(groups::add);
    }
    return groups;
  }
}
