package ph.payments.platform.kafka;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Client settings the reliability of the system depends on, in one place. */
public final class KafkaSettings {

  /**
   * The most a relay puts in one wave ({@code OutboxRelay}), in bytes of its records' batches: half
   * of {@link #RELAY_BATCH_BYTES}, so no batch of a wave is full before the wave is flushed.
   */
  public static final int RELAY_WAVE_BYTES = 256 * 1024;

  /** The relay producer's {@code batch.size}: one batch holds a wave's records of a partition. */
  public static final int RELAY_BATCH_BYTES = 512 * 1024;

  /** A relay starts no new send of a wave once this long has passed since its first. */
  public static final int RELAY_WAVE_SECONDS = 5;

  /** How long a send may wait for metadata or buffer space ({@code max.block.ms}). */
  private static final int MAX_BLOCK_MS = 10_000;

  private static final int DELIVERY_TIMEOUT_MS = 30_000;
  private static final int REQUEST_TIMEOUT_MS = 10_000;

  /**
   * The relay producer's {@code linger.ms}: the most Kafka allows ({@code delivery.timeout.ms} less
   * {@code request.timeout.ms}), 20 s, longer than any wave takes to hand over its records ({@link
   * #RELAY_WAVE_SECONDS}, then one more send that waits at most {@link #MAX_BLOCK_MS}: 15 s).
   */
  public static final int RELAY_LINGER_MS = DELIVERY_TIMEOUT_MS - REQUEST_TIMEOUT_MS;

  /**
   * An idempotent producer that waits for all in-sync replicas: no duplicates from its own retries
   * and, with at most five requests in flight, order kept per partition.
   */
  public static Map<String, Object> producer(String bootstrapServers, String clientId) {
    return producer(bootstrapServers, clientId, KafkaSecurity.PLAINTEXT);
  }

  /** {@link #producer(String, String)} authenticating and encrypting as {@code security} says. */
  public static Map<String, Object> producer(
      String bootstrapServers, String clientId, KafkaSecurity security) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
    config.put(ProducerConfig.LINGER_MS_CONFIG, 1);
    // Fail a send within seconds when the broker is away; the outbox keeps the row for later.
    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, MAX_BLOCK_MS);
    config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, DELIVERY_TIMEOUT_MS);
    config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, REQUEST_TIMEOUT_MS);
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return security.applyTo(config);
  }

  /**
   * {@link #producer} for an outbox relay, which sends in waves and flushes each one: a wave's
   * records of one partition travel in one batch, which Kafka appends whole or not at all. That
   * holds while no batch of the wave is ready before the flush, for once one is, the sender drains
   * every batch bound for its broker: the linger outlasts any wave's sends ({@link
   * #RELAY_LINGER_MS}), and a wave of at most {@link #RELAY_WAVE_BYTES} fills no batch. A record
   * sent without a flush would wait out the linger, which is why only the relays use this.
   */
  public static Map<String, Object> relayProducer(
      String bootstrapServers, String clientId, KafkaSecurity security) {
    Map<String, Object> config = producer(bootstrapServers, clientId, security);
    config.put(ProducerConfig.LINGER_MS_CONFIG, RELAY_LINGER_MS);
    config.put(ProducerConfig.BATCH_SIZE_CONFIG, RELAY_BATCH_BYTES);
    return config;
  }

  /** {@link #relayProducer(String, String, KafkaSecurity)} over plaintext. */
  public static Map<String, Object> relayProducer(String bootstrapServers, String clientId) {
    return relayProducer(bootstrapServers, clientId, KafkaSecurity.PLAINTEXT);
  }

  /** A consumer that commits offsets itself, after the effect of a record has committed. */
  public static Map<String, Object> consumer(String bootstrapServers, String groupId) {
    return consumer(bootstrapServers, groupId, KafkaSecurity.PLAINTEXT);
  }

  /** {@link #consumer(String, String)} authenticating and encrypting as {@code security} says. */
  public static Map<String, Object> consumer(
      String bootstrapServers, String groupId, KafkaSecurity security) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    return security.applyTo(config);
  }

  private KafkaSettings() {}
}
