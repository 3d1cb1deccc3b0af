package ph.payments.gateway.commands;

import io.micronaut.configuration.kafka.config.AbstractKafkaConsumerConfiguration;
import io.micronaut.context.annotation.Context;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.contracts.Topics;
import ph.payments.platform.kafka.KafkaSecurity;

/**
 * Wakes requests of this instance whose reply another instance's recorder reads: reads exactly the
 * reply-topic partitions this instance's {@link ReplyListeners.Recorder} does not own ({@link
 * ReplyPartitions}), by manual assignment, no consumer group. With one gateway the recorder owns
 * every partition and this reads nothing at all; before the recorder's first assignment it reads
 * every partition, from the end.
 *
 * <p>A partition the recorder gave up is read from where the recorder stopped, so no reply falls
 * between the two; one it never owned, from the end (a reply older than this instance's start has
 * no request here). A record whose key (the command id) nobody here waits for is skipped unread.
 * Whatever slips through during a rebalance is not lost: a waiting request also looks into the
 * command log every {@link CommandBus#LOG_POLL}. Reading a partition the recorder also reads is
 * harmless: completing a request twice does nothing.
 *
 * <p>One daemon thread owns the consumer (Kafka consumers are single-threaded); a change of the
 * recorder's partitions interrupts its poll ({@link KafkaConsumer#wakeup()}) so it reassigns at
 * once. With nothing to read it waits for a change without polling.
 */
@Context
class ReplyWaker {

  private static final Logger LOG = LoggerFactory.getLogger(ReplyWaker.class);

  /** How long a poll waits for records; a change of assignment cuts it short. */
  private static final Duration POLL = Duration.ofSeconds(1);

  /** With nothing assigned, how often the topic's partitions are looked up again. */
  private static final Duration IDLE = Duration.ofSeconds(30);

  /** The same while the topic has no partitions yet (it is created at start-up). */
  private static final Duration NO_TOPIC = Duration.ofSeconds(1);

  private static final Duration STOP = Duration.ofSeconds(5);

  private final String topic;
  private final ReplyPartitions partitions;
  private final CommandBus bus;
  private final KafkaConsumer<String, byte[]> consumer;
  private final Runnable wakeup;
  private final Thread thread;
  private volatile boolean running = true;
  private volatile Set<TopicPartition> assignment = Set.of();
  private boolean topicKnown;

  @Inject
  ReplyWaker(
      @Named("default") AbstractKafkaConsumerConfiguration<?, ?> defaults,
      KafkaSecurity security,
      ReplyPartitions partitions,
      CommandBus bus) {
    this(Topics.COMMAND_REPLIES, consumerConfig(defaults, security), partitions, bus);
  }

  /** A waker of {@code topic}; tests give it a topic of their own. */
  ReplyWaker(String topic, Map<String, Object> config, ReplyPartitions partitions, CommandBus bus) {
    this.topic = topic;
    this.partitions = partitions;
    this.bus = bus;
    this.consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
    this.wakeup = consumer::wakeup;
    this.thread = new Thread(this::run, "reply-waker");
    thread.setDaemon(true);
  }

  /**
   * The micronaut-kafka default consumer settings (with the service's Kafka security), as a
   * consumer outside any group that never commits and starts a partition without a known position
   * at its end.
   */
  private static Map<String, Object> consumerConfig(
      AbstractKafkaConsumerConfiguration<?, ?> defaults, KafkaSecurity security) {
    Map<String, Object> config = new HashMap<>();
    defaults.getConfig().forEach((key, value) -> config.put(key.toString(), value));
    config.remove(ConsumerConfig.GROUP_ID_CONFIG);
    config.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, "api-gateway-reply-waker");
    return security.applyTo(config);
  }

  @PostConstruct
  void start() {
    partitions.onChange(wakeup);
    thread.start();
  }

  @PreDestroy
  void stop() {
    running = false;
    partitions.removeListener(wakeup);
    consumer.wakeup();
    thread.interrupt();
    try {
      thread.join(STOP.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The partitions it reads now (for tests and diagnostics). */
  Set<TopicPartition> assignment() {
    return assignment;
  }

  private void run() {
    try {
      long seen = -1;
      while (running) {
        try {
          ReplyPartitions.View view =
              partitions.awaitChange(seen, !assignment.isEmpty() ? Duration.ZERO : idle());
          if (view.version() != seen || assignment.isEmpty()) {
            reassign(view);
            seen = view.version();
          }
          if (assignment.isEmpty()) {
            continue;
          }
          for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
            bus.complete(record.key(), record.value());
          }
        } catch (WakeupException e) {
          // The recorder's partitions changed, or this is stopping: the loop looks again.
        } catch (InterruptedException | InterruptException e) {
          Thread.currentThread().interrupt();
          return;
        } catch (RuntimeException e) {
          // A broker away or a record that is not a reply: waiting requests still find their
          // replies in the command log; this goes on after a pause.
          LOG.warn("Reply waker: {}", e.toString());
          TimeUnit.MILLISECONDS.sleep(POLL.toMillis());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      consumer.close(Duration.ZERO);
    }
  }

  private Duration idle() {
    return topicKnown ? IDLE : NO_TOPIC;
  }

  /** Assigns the partitions the recorder does not own; partitions kept keep their position. */
  private void reassign(ReplyPartitions.View view) {
    Set<TopicPartition> rest = new HashSet<>();
    for (PartitionInfo info : consumer.partitionsFor(topic)) {
      rest.add(new TopicPartition(info.topic(), info.partition()));
    }
    topicKnown = !rest.isEmpty();
    rest.removeAll(view.recorded());
    if (rest.equals(assignment)) {
      return;
    }
    Set<TopicPartition> added = new HashSet<>(rest);
    added.removeAll(assignment);
    consumer.assign(rest);
    List<TopicPartition> fromEnd =
        added.stream().filter(partition -> !view.stoppedAt().containsKey(partition)).toList();
    consumer.seekToEnd(fromEnd);
    added.stream()
        .filter(view.stoppedAt()::containsKey)
        .forEach(partition -> consumer.seek(partition, view.stoppedAt().get(partition)));
    LOG.debug("Reply waker reads {} (the recorder owns {})", rest, view.recorded());
    assignment = Set.copyOf(rest);
  }
}
