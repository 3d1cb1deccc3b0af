package ph.payments.platform.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/** Creates topics up front, so the first message does not wait for auto-creation. */
public final class TopicAdmin {

  /**
   * Creates each missing topic with the broker's default topic settings; existing ones are left as
   * they are.
   *
   * @throws IllegalStateException when the broker does not answer within {@code timeout}
   */
  public static void ensure(
      String bootstrapServers,
      KafkaSecurity security,
      Collection<String> names,
      int partitions,
      short replicationFactor,
      Duration timeout) {
    ensure(bootstrapServers, security, names, partitions, replicationFactor, Map.of(), timeout);
  }

  /**
   * Creates each missing topic with {@code topicConfigs} (e.g. {@code retention.ms}); existing ones
   * are left as they are.
   *
   * @throws IllegalStateException when the broker does not answer within {@code timeout}
   */
  public static void ensure(
      String bootstrapServers,
      KafkaSecurity security,
      Collection<String> names,
      int partitions,
      short replicationFactor,
      Map<String, String> topicConfigs,
      Duration timeout) {
    Map<String, Object> config =
        security.applyTo(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis()));
    try (Admin admin = Admin.create(config)) {
      Set<String> existing =
          admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      List<NewTopic> missing =
          names.stream()
              .filter(name -> !existing.contains(name))
              .map(name -> new NewTopic(name, partitions, replicationFactor).configs(topicConfigs))
              .toList();
      if (missing.isEmpty()) {
        return;
      }
      try {
        admin.createTopics(missing).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        // Another replica may have created one in between; that is what we wanted.
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot create Kafka topics " + names, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating Kafka topics", e);
    }
  }

  private TopicAdmin() {}
}
