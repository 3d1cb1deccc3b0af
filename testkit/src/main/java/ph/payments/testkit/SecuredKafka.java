package ph.payments.testkit;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.server.BrokerServer;
import kafka.testkit.KafkaClusterTestKit;
import kafka.testkit.TestKitNodes;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.utils.Exit;

/**
 * A Kafka broker that authenticates and authorizes, for the tests of the clients' security: one
 * in-process KRaft node whose client listener takes SASL_PLAINTEXT with SCRAM-SHA-512, with the
 * {@code StandardAuthorizer} and {@code allow.everyone.if.no.acl.found=false}, as in
 * docker-compose.yml.
 *
 * <p>The test itself administers it through a second, PLAINTEXT listener on localhost whose
 * anonymous principal is a super user (the stand-in for compose's admin principal): it creates the
 * SCRAM users ({@link #addUser}) and the ACLs ({@link #allow}). The clients under test reach only
 * {@link #saslBootstrapServers()}.
 *
 * <p>Unlike {@link TestKafka} this one is started per test class and closed by it: the other tests
 * keep their shared PLAINTEXT broker without ACLs.
 */
public final class SecuredKafka implements AutoCloseable {

  /** SCRAM mechanism of the client listener, as in docker-compose.yml. */
  public static final String MECHANISM = "SCRAM-SHA-512";

  private static final ListenerName SASL = new ListenerName("SASL");
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final KafkaClusterTestKit cluster;
  private final List<Runnable> tempDirectoryCleanups;
  private final Admin admin;

  private SecuredKafka(KafkaClusterTestKit cluster, List<Runnable> tempDirectoryCleanups) {
    this.cluster = cluster;
    this.tempDirectoryCleanups = tempDirectoryCleanups;
    this.admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                cluster.bootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                (int) TIMEOUT.toMillis()));
  }

  /** Starts the broker (one to two seconds). */
  public static SecuredKafka start() {
    QuietLogging.warnUnlessConfigured(
        "kafka", "org.apache.kafka", "state.change.logger", "org.apache.zookeeper");
    // As in TestKafka: the temporary directories are deleted after the broker stopped.
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
      Map.ofEntries(
              Map.entry(
                  "listeners",
                  "EXTERNAL://localhost:0,CONTROLLER://localhost:0,SASL://localhost:0"),
              Map.entry(
                  "listener.security.protocol.map",
                  "EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL:SASL_PLAINTEXT"),
              Map.entry("listener.name.sasl.sasl.enabled.mechanisms", MECHANISM),
              Map.entry(
                  "listener.name.sasl.scram-sha-512.sasl.jaas.config",
                  "org.apache.kafka.common.security.scram.ScramLoginModule required;"),
              Map.entry(
                  "authorizer.class.name",
                  "org.apache.kafka.metadata.authorizer.StandardAuthorizer"),
              Map.entry("allow.everyone.if.no.acl.found", "false"),
              // The PLAINTEXT listeners (the controller's and the test's admin path) are anonymous.
              Map.entry("super.users", "User:ANONYMOUS"),
              Map.entry("group.initial.rebalance.delay.ms", "0"),
              Map.entry("offsets.topic.replication.factor", "1"),
              Map.entry("offsets.topic.num.partitions", "1"),
              Map.entry("transaction.state.log.replication.factor", "1"),
              Map.entry("transaction.state.log.min.isr", "1"),
              Map.entry("min.insync.replicas", "1"),
              Map.entry("default.replication.factor", "1"),
              Map.entry("auto.create.topics.enable", "false"))
          .forEach(builder::setConfigProp);
      cluster = builder.build();
      cluster.format();
      cluster.startup();
      cluster.waitForReadyBrokers();
      return new SecuredKafka(cluster, tempDirectoryCleanups);
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
      throw new IllegalStateException("Could not start the secured Kafka broker", e);
    } finally {
      Exit.resetShutdownHookAdder();
    }
  }

  /** The SASL_PLAINTEXT/SCRAM-SHA-512 listener, the only one the clients under test may use. */
  public String saslBootstrapServers() {
    BrokerServer broker = cluster.brokers().values().iterator().next();
    return "localhost:" + broker.boundPort(SASL);
  }

  /**
   * Creates or updates a SCRAM-SHA-512 user and returns once the broker authenticates it (the
   * credential reaches the broker through the metadata log, a moment after the controller took it).
   */
  public void addUser(String name, String password) {
    call(
        admin
            .alterUserScramCredentials(
                List.of(
                    new UserScramCredentialUpsertion(
                        name,
                        new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096),
                        password)))
            .all());
    Map<String, Object> asUser =
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            saslBootstrapServers(),
            AdminClientConfig.SECURITY_PROTOCOL_CONFIG,
            "SASL_PLAINTEXT",
            "sasl.mechanism",
            MECHANISM,
            "sasl.jaas.config",
            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                + quoted(name)
                + "\" password=\""
                + quoted(password)
                + "\";",
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
            5_000,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            5_000);
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (true) {
      try (Admin user = Admin.create(asUser)) {
        user.describeCluster().clusterId().get(5, TimeUnit.SECONDS);
        return;
      } catch (Exception e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("user " + name + " cannot authenticate", e);
        }
        sleep();
      }
    }
  }

  /** Adds ACLs and returns once the broker enforces them (they travel like credentials). */
  public void allow(Collection<AclBinding> bindings) {
    call(admin.createAcls(bindings).all());
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!call(admin.describeAcls(AclBindingFilter.ANY).values()).containsAll(bindings)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("ACLs not in force after " + TIMEOUT + ": " + bindings);
      }
      sleep();
    }
  }

  /** A super user's admin client on the PLAINTEXT side, for set-up and inspection. */
  public Admin admin() {
    return admin;
  }

  private static <T> T call(KafkaFuture<T> future) {
    try {
      return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("secured Kafka administration failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static String quoted(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  private static void sleep() {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public void close() throws Exception {
    try {
      admin.close();
      cluster.close();
    } finally {
      tempDirectoryCleanups.forEach(Runnable::run);
    }
  }
}
