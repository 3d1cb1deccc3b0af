package ph.payments.platform.micronaut;

import io.micronaut.configuration.kafka.config.AbstractKafkaConfiguration;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import jakarta.inject.Singleton;
import java.util.Properties;
import org.apache.kafka.common.config.types.Password;
import ph.payments.platform.kafka.KafkaSecurity;

/**
 * Gives every micronaut-kafka client configuration (the default one its admin client and health
 * check use, and each consumer's and producer's) the service's {@link KafkaSecurity}, the same
 * settings the outbox relay and the topic admin use.
 *
 * <p>micronaut-kafka already copies every {@code kafka.*} property into its clients, but as given:
 * blank values (an unset {@code KAFKA_SSL_TRUSTSTORE_LOCATION} is an empty string), our {@code
 * sasl.username}/{@code sasl.password} inputs, which Kafka does not know and would carry around in
 * its config, and no {@code sasl.jaas.config}. This replaces all of those with the resolved set.
 * The jaas config goes in as a string: Kafka parses it as a password-typed setting and logs it as
 * {@code [hidden]}.
 */
@Singleton
class KafkaClientSecurity implements BeanCreatedEventListener<AbstractKafkaConfiguration<?, ?>> {

  private final KafkaSecurity security;

  KafkaClientSecurity(KafkaSecurity security) {
    this.security = security;
  }

  @Override
  public AbstractKafkaConfiguration<?, ?> onCreated(
      BeanCreatedEvent<AbstractKafkaConfiguration<?, ?>> event) {
    apply(event.getBean().getConfig(), security);
    return event.getBean();
  }

  static void apply(Properties config, KafkaSecurity security) {
    config.keySet().removeIf(key -> KafkaSecurity.isSecuritySetting(key.toString()));
    security
        .clientProperties()
        .forEach((key, value) -> config.put(key, value instanceof Password p ? p.value() : value));
  }
}
