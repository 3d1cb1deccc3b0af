package ph.payments.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.testkit.KafkaClusterTestKit;
import kafka.testkit.TestKitNodes;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.common.utils.Exit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * One real Kafka broker per JVM for integration tests, started on first use.
 *
 * <p>Where it comes from, in order of preference:
 *
 * <ol>
 *   <li>{@code TEST_KAFKA_BOOTSTRAP_SERVERS} (system property or environment variable): an existing
 *       broker, never started or stopped by this class;
 *   <li>a Testcontainers {@code apache/kafka} container, when a Docker engine answers;
 *   <li>an in-process KRaft broker ({@link KafkaClusterTestKit}, one combined broker/controller
 *       node), which needs nothing but the JVM and starts in one or two seconds.
 * </ol>
 *
 * <p>Either started broker has auto-creation on with 3 partitions per topic; replication factor 1,
 * min ISR 1 and one partition for the internal topics; and no initial rebalance delay, so a test's
 * first consumer group joins at once. A JVM shutdown hook stops it.
 *
 * <p>{@code TEST_KAFKA_MODE=embedded} skips the Docker probe, {@code TEST_KAFKA_MODE=docker} makes
 * a missing Docker engine an error instead of a fallback. {@code TEST_KAFKA_IMAGE} overrides the
 * container image.
 */
public final class TestKafka {

  /** Names an existing broker to use instead of starting one. */
  public static final String BOOTSTRAP_SERVERS_SETTING = "TEST_KAFKA_BOOTSTRAP_SERVERS";

  private static final Logger LOG = LoggerFactory.getLogger(TestKafka.class);

  /** Matches the kafka-clients version the services build against. */
  private static final String DEFAULT_IMAGE = "apache/kafka:3.9.1";

  private static final Duration TOPIC_TIMEOUT = Duration.ofSeconds(30);

  /**
   * Broker settings shared by both kinds of started broker. The defaults would slow tests down: a 3
   * s initial rebalance delay, replication factor 3 for internal topics, and 50 partitions for the
   * offsets and transaction topics, whose creation delays a JVM's first consumer group join or
   * transaction by about 0.3 s (one partition for each is plenty for tests). Three partitions per
   * auto-created topic keep ordering bugs visible that a single partition would hide.
   */
  private static final Map<String, String> BROKER_CONFIG =
      Map.of(
          "group.initial.rebalance.delay.ms", "0",
          "offsets.topic.replication.factor", "1",
          "offsets.topic.num.partitions", "1",
          "transaction.state.log.replication.factor", "1",
          "transaction.state.log.min.isr", "1",
          "transaction.state.log.num.partitions", "1",
          "min.insync.replicas", "1",
          "default.replication.factor", "1",
          "auto.create.topics.enable", "true",
          "num.partitions", "3");

  private static final Object LOCK = new Object();
  private static volatile String bootstrapServers;
  private static RuntimeException startFailure;

  private TestKafka() {}

  /**
   * The bootstrap servers of this JVM's broker, starting it on the first call. Safe to call from
   * any thread; concurrent first callers wait for the one start-up.
   *
   * @throws IllegalStateException when the broker could not be started (every later call then fails
   *     the same way at once rather than paying for another attempt)
   */
  public static String bootstrapServers() {
    String servers = bootstrapServers;
    if (servers != null) {
      return servers;
    }
    synchronized (LOCK) {
      if (bootstrapServers == null) {
        if (startFailure != null) {
          throw new IllegalStateException(
              "Test Kafka broker failed to start earlier", startFailure);
        }
        try {
          bootstrapServers = start();
        } catch (RuntimeException e) {
          startFailure = e;
          throw e;
        }
      }
      return bootstrapServers;
    }
  }

  /**
   * Creates the topics with the given partition count unless they exist, and returns once every
   * partition of every topic has a leader, so a producer or consumer started next does not race the
   * metadata. A topic that already exists is left as it is, whatever its partition count.
   * Replication uses the broker's default (1 on a broker this class starts).
   */
  public static void createTopics(int partitions, String... topics) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be at least 1, was " + partitions);
    }
    if (topics.length == 0) {
      return;
    }
    Set<String> names = Set.copyOf(Arrays.asList(topics));
    List<NewTopic> newTopics = new ArrayList<>();
    for (String name : names) {
      newTopics.add(new NewTopic(name, Optional.of(partitions), Optional.empty()));
    }
    try (Admin admin = Admin.create(adminConfig())) {
      CreateTopicsResult result = admin.createTopics(newTopics);
      for (Map.Entry<String, KafkaFuture<Void>> created : result.values().entrySet()) {
        try {
          created.getValue().get(TOPIC_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw new IllegalStateException("Could not create topic " + created.getKey(), e);
          }
        }
      }
      awaitLeaders(admin, names);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while creating topics " + names, e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("Timed out creating topics " + names, e);
    }
  }

  private static Map<String, Object> adminConfig() {
    return Map.of(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
        bootstrapServers(),
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
        10_000,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
        (int) TOPIC_TIMEOUT.toMillis());
  }

  /**
   * Creation is acknowledged by the controller before every broker has the new metadata; polling
   * until each partition reports a leader closes that gap.
   */
  private static void awaitLeaders(Admin admin, Set<String> names)
      throws InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + TOPIC_TIMEOUT.toNanos();
    while (true) {
      try {
        Map<String, TopicDescription> described =
            admin.describeTopics(names).allTopicNames().get(5, TimeUnit.SECONDS);
        boolean ready =
            described.values().stream()
                .flatMap(topic -> topic.partitions().stream())
                .map(TopicPartitionInfo::leader)
                .allMatch(leader -> leader != null && !leader.isEmpty());
        if (ready && described.keySet().containsAll(names)) {
          return;
        }
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
          throw new IllegalStateException("Could not describe topics " + names, e);
        }
      } catch (TimeoutException e) {
        // A slow metadata round trip; the overall deadline below decides.
      }
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("Topics " + names + " have no leader after " + TOPIC_TIMEOUT);
      }
      Thread.sleep(50);
    }
  }

  private static String start() {
    String existing = Settings.get(BOOTSTRAP_SERVERS_SETTING);
    if (existing != null) {
      LOG.info("Using the Kafka broker at {} ({})", existing, BOOTSTRAP_SERVERS_SETTING);
      return existing;
    }
    String mode = Settings.get("TEST_KAFKA_MODE", "auto").toLowerCase(Locale.ROOT);
    long probeStarted = System.nanoTime();
    boolean docker =
        switch (mode) {
          case "embedded" -> false;
          case "docker" -> {
            // Testcontainers' own report of why it found no engine stays audible here.
            if (!DockerProbe.available()) {
              throw new IllegalStateException(
                  "TEST_KAFKA_MODE=docker, but there is no Docker engine");
            }
            yield true;
          }
          case "auto" -> DockerProbe.availableQuietly();
          default ->
              throw new IllegalStateException(
                  "TEST_KAFKA_MODE must be auto, embedded or docker, was " + mode);
        };
    long probeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - probeStarted);
    long started = System.nanoTime();
    RunningBroker broker = docker ? ContainerBroker.start() : EmbeddedBroker.start();
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> closeQuietly(broker), "test-kafka-shutdown"));
    LOG.info(
        "{} started at {} in {} ms (Docker probe {} ms{})",
        broker.description(),
        broker.bootstrapServers(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
        probeMillis,
        mode.equals("auto") && !docker ? ", no engine; TEST_KAFKA_MODE=docker tells why" : "");
    return broker.bootstrapServers();
  }

  private static void closeQuietly(RunningBroker broker) {
    try {
      broker.close();
    } catch (Exception e) {
      // The JVM is exiting; a broker that will not stop cleanly is not worth failing over.
      LOG.warn("Stopping {} failed", broker.description(), e);
    }
  }

  private interface RunningBroker extends AutoCloseable {
    String bootstrapServers();

    String description();
  }

  /** Kept apart so that Testcontainers classes load only when something asks about Docker. */
  private static final class DockerProbe {

    /**
     * Without an engine, Testcontainers logs an ERROR with every strategy it tried. In auto mode
     * that is the expected case on machines without Docker, so it is muted for the probe alone.
     */
    static boolean availableQuietly() {
      Runnable restore = QuietLogging.setUnlessConfigured("OFF", "org.testcontainers");
      try {
        return available();
      } finally {
        restore.run();
      }
    }

    static boolean available() {
      try {
        return DockerClientFactory.instance().isDockerAvailable();
      } catch (Throwable e) {
        // Any trouble here (a broken Docker config, Testcontainers left off the classpath) only
        // means no Docker; the embedded broker covers it.
        LOG.debug("Docker probe failed; using the embedded broker", e);
        return false;
      }
    }
  }

  private static final class ContainerBroker implements RunningBroker {
    private final KafkaContainer container;

    private ContainerBroker(KafkaContainer container) {
      this.container = container;
    }

    static RunningBroker start() {
      String image = Settings.get("TEST_KAFKA_IMAGE", DEFAULT_IMAGE);
      @SuppressWarnings("resource") // closed by the shutdown hook
      KafkaContainer container = new KafkaContainer(DockerImageName.parse(image));
      // The image reads KAFKA_FOO_BAR as foo.bar.
      BROKER_CONFIG.forEach(
          (key, value) -> container.withEnv("KAFKA_" + key.replace('.', '_').toUpperCase(), value));
      container.start();
      return new ContainerBroker(container);
    }

    @Override
    public String bootstrapServers() {
      return container.getBootstrapServers();
    }

    @Override
    public String description() {
      return "Kafka container " + container.getDockerImageName();
    }

    @Override
    public void close() {
      container.stop();
    }
  }

  private static final class EmbeddedBroker implements RunningBroker {
    private final KafkaClusterTestKit cluster;
    private final List<Runnable> tempDirectoryCleanups;

    private EmbeddedBroker(KafkaClusterTestKit cluster, List<Runnable> tempDirectoryCleanups) {
      this.cluster = cluster;
      this.tempDirectoryCleanups = tempDirectoryCleanups;
    }

    static RunningBroker start() {
      // The broker logs every config value and partition change at INFO; tests want the errors.
      QuietLogging.warnUnlessConfigured(
          "kafka", "org.apache.kafka", "state.change.logger", "org.apache.zookeeper");
      // Kafka's TestUtils registers a JVM shutdown hook per temporary directory that deletes it.
      // Hooks run concurrently, so that one would pull the log directories out from under the
      // broker while ours is still stopping it, and the broker logs a page of disk errors at exit.
      // Collecting those hooks and running them after the broker stopped keeps the exit clean.
      List<Runnable> tempDirectoryCleanups = new CopyOnWriteArrayList<>();
      Exit.setShutdownHookAdder((name, hook) -> tempDirectoryCleanups.add(hook));
      KafkaClusterTestKit cluster = null;
      try {
        TestKitNodes nodes =
            new TestKitNodes.Builder()
                .setCombined(true)
                .setNumBrokerNodes(1)
                .setNumControllerNodes(1)
                .build();
        KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
        BROKER_CONFIG.forEach(builder::setConfigProp);
        cluster = builder.build();
        cluster.format();
        cluster.startup();
        cluster.waitForReadyBrokers();
        return new EmbeddedBroker(cluster, tempDirectoryCleanups);
      } catch (Exception e) {
        if (cluster != null) {
          try {
            cluster.close();
          } catch (Exception suppressed) {
            e.addSuppressed(suppressed);
          }
        }
        tempDirectoryCleanups.forEach(Runnable::run);
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("Could not start the embedded Kafka broker", e);
      } finally {
        Exit.resetShutdownHookAdder();
      }
    }

    @Override
    public String bootstrapServers() {
      return cluster.bootstrapServers();
    }

    @Override
    public String description() {
      return "Embedded Kafka " + AppInfoParser.getVersion() + " (KRaft, combined node)";
    }

    @Override
    public void close() throws Exception {
      try {
        cluster.close();
      } finally {
        tempDirectoryCleanups.forEach(Runnable::run);
      }
    }
  }
}
