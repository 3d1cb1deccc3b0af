package ph.payments.platform.micronaut;

import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import jakarta.annotation.PostConstruct;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.contracts.Topics;
import ph.payments.platform.kafka.KafkaSecurity;
import ph.payments.platform.kafka.TopicAdmin;

/**
 * Creates the system's topics at start-up, so no first message waits for auto-creation. A broker
 * that is away does not stop the service: health reports it, and the outbox holds messages.
 *
 * <p>Where Kafka enforces ACLs (docker-compose.yml) the service principals may not create topics:
 * the {@code kafka-init} job creates them as the admin, and the services run with {@code
 * KAFKA_TOPICS_CREATE=false}. See docs/runbook.md, "Kafka security".
 */
@Context
@Requires(property = "kafka.topics.create", notEquals = "false")
public class KafkaTopicsInitializer {

  private static final Logger log = LoggerFactory.getLogger(KafkaTopicsInitializer.class);

  private final String bootstrapServers;
  private final int partitions;
  private final short replication;
  private final Map<String, String> topicConfigs;
  private final KafkaSecurity security;

  /**
   * @param retention and {@code segment}: how long Kafka keeps a topic's messages, and how often it
   *     rolls a segment (whole segments are deleted, so a message lives up to both). Set explicitly
   *     rather than left to the broker, because the inbox retention is derived from them ({@link
   *     ph.payments.platform.inbox.InboxRetention}).
   */
  public KafkaTopicsInitializer(
      @Value("${kafka.bootstrap.servers}") String bootstrapServers,
      KafkaSecurity security,
      @Value("${kafka.topics.partitions:3}") int partitions,
      @Value("${kafka.topics.replication:1}") short replication,
      @Value("${kafka.topics.retention:7d}") Duration retention,
      @Value("${kafka.topics.segment:1d}") Duration segment) {
    this.bootstrapServers = bootstrapServers;
    this.partitions = partitions;
    this.replication = replication;
    this.topicConfigs =
        Map.of(
            "retention.ms", Long.toString(retention.toMillis()),
            "segment.ms", Long.toString(segment.toMillis()));
    this.security = security;
  }

  @PostConstruct
  void createTopics() {
    try {
      TopicAdmin.ensure(
          bootstrapServers,
          security,
          Topics.ALL,
          partitions,
          replication,
          topicConfigs,
          Duration.ofSeconds(20));
    } catch (RuntimeException e) {
      log.warn("could not create Kafka topics at start-up: {}", e.toString());
    }
  }
}
