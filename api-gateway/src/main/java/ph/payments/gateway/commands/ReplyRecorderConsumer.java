package ph.payments.gateway.commands;

import io.micronaut.configuration.kafka.config.AbstractKafkaConsumerConfiguration;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer settings of the durable reply recorder ({@link ReplyListeners.Recorder}; micronaut-
 * kafka looks a listener's settings up by its group id, else takes the one named {@code default}):
 * that default ({@code kafka.consumers.default}), plus Kafka's static membership when the replica
 * has a stable name ({@code GATEWAY_INSTANCE_ID}).
 *
 * <p>Why: a gateway killed with requests in flight leaves its member in the recorder's group until
 * the session times out. Replies published meanwhile wait for that, so a retry of an in-flight
 * command could not find its outcome for the whole session timeout (issue 19). A static member that
 * comes back under the same {@code group.instance.id} takes its partitions back at once, with no
 * rebalance, and records those replies as soon as it is up. Each replica needs its own stable name
 * (bin/run: {@code api-gateway-<port>}; Kubernetes: the StatefulSet pod name); two live replicas
 * with one name fence each other. Unset, the group stays dynamic, as before.
 */
@Factory
class ReplyRecorderConsumer {

  private static final Logger LOG = LoggerFactory.getLogger(ReplyRecorderConsumer.class);

  @Singleton
  @Named(ReplyListeners.RECORDER_GROUP)
  RecorderConfiguration recorderConsumer(
      @Named("default") AbstractKafkaConsumerConfiguration<?, ?> defaults,
      @Value("${gateway.replies.instance-id:}") String instanceId) {
    Properties config = new Properties();
    config.putAll(defaults.getConfig());
    if (!instanceId.isBlank()) {
      config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId.strip());
      LOG.info(
          "Reply recorder joins {} as static member {}", ReplyListeners.RECORDER_GROUP, instanceId);
    }
    return new RecorderConfiguration(config);
  }

  /** A consumer configuration of its own type, so no injection of the defaults can pick it. */
  static final class RecorderConfiguration
      extends AbstractKafkaConsumerConfiguration<Object, Object> {
    RecorderConfiguration(Properties config) {
      super(config);
    }
  }
}
