package ph.payments.platform.micronaut;

import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.context.env.Environment;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.naming.conventions.StringConvention;
import io.micronaut.data.connection.ConnectionOperations;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.SystemPingHandler;
import ph.payments.platform.inbox.IdempotentConsumer;
import ph.payments.platform.kafka.BatchApplier;
import ph.payments.platform.kafka.KafkaSecurity;
import ph.payments.platform.kafka.KafkaSettings;
import ph.payments.platform.kafka.ParkedMessages;
import ph.payments.platform.keys.RequiredKeys;
import ph.payments.platform.outbox.LogicalOutboxRelay;
import ph.payments.platform.outbox.OutboxActivity;
import ph.payments.platform.outbox.OutboxRelay;
import ph.payments.platform.outbox.OutboxWriter;
import ph.payments.platform.tx.AfterCommit;
import ph.payments.platform.tx.TransactionFailedException;
import ph.payments.platform.tx.Transactions;

/** Wires the framework-free platform pieces into a Micronaut service. */
@Factory
public class PlatformFactory {

  private static final Logger log = LoggerFactory.getLogger(PlatformFactory.class);

  /**
   * Every service's rule for its keys ({@code ALLOW_DEVELOPMENT_KEYS}); beans that need a key ask
   * it at start-up, so a missing key fails the application context instead of a later request.
   */
  @Singleton
  RequiredKeys requiredKeys(
      @Value("${" + RequiredKeys.ALLOW_PROPERTY + ":false}") boolean allowDevelopmentKeys) {
    return new RequiredKeys(allowDevelopmentKeys);
  }

  @Singleton
  @Requires(missingBeans = Clock.class)
  Clock clock() {
    return Clock.systemUTC();
  }

  @Singleton
  Transactions transactions(
      TransactionOperations<Connection> operations, ConnectionOperations<Connection> connections) {
    return new Transactions() {
      @Override
      public <T> T inTransaction(ph.payments.platform.tx.SqlWork<T> work) {
        return AfterCommit.around(
            () -> operations.executeWrite(status -> run(work, status.getConnection())));
      }

      @Override
      public <T> T autoCommitted(ph.payments.platform.tx.SqlWork<T> work) {
        return AfterCommit.around(
            () -> connections.executeWrite(status -> run(work, status.getConnection())));
      }

      private <T> T run(ph.payments.platform.tx.SqlWork<T> work, Connection connection) {
        try {
          return work.run(connection);
        } catch (java.sql.SQLException e) {
          throw new TransactionFailedException(e);
        }
      }
    };
  }

  /**
   * The security settings of every Kafka client of this service, read from its {@code kafka.*}
   * properties (README: KAFKA_SECURITY_PROTOCOL, KAFKA_SASL_*, KAFKA_SSL_*). micronaut-kafka's
   * clients get them through {@link KafkaClientSecurity}, ours take this bean. A SASL protocol
   * without credentials stops the start-up here. The log line names the principal, never a
   * password.
   */
  @Singleton
  KafkaSecurity kafkaSecurity(Environment environment) {
    KafkaSecurity security =
        KafkaSecurity.fromSettings(environment.getProperties("kafka", StringConvention.RAW));
    log.info("Kafka clients connect with {}", security);
    return security;
  }

  /**
   * The outbox relay's settings: {@link OutboxRelay.Settings#defaults}, each overridden only where
   * {@code outbox.sweep-interval}, {@code outbox.purge-after} or {@code outbox.busy-pause} is set,
   * so the defaults are written in one place. A value that is not a duration stops the start.
   */
  @Singleton
  OutboxRelay.Settings relaySettings(
      @Value("${micronaut.application.name}") String serviceName, Environment environment) {
    OutboxRelay.Settings settings = OutboxRelay.Settings.defaults(serviceName);
    settings =
        duration(environment, "outbox.sweep-interval")
            .map(settings::withSweepInterval)
            .orElse(settings);
    settings =
        duration(environment, "outbox.purge-after").map(settings::withPurgeAfter).orElse(settings);
    settings =
        duration(environment, "outbox.busy-pause").map(settings::withBusyPause).orElse(settings);
    return settings;
  }

  /** The duration {@code name} is set to, if it is set; one that is not a duration is refused. */
  private static Optional<Duration> duration(Environment environment, String name) {
    if (!environment.containsProperty(name)) {
      return Optional.empty();
    }
    return Optional.of(
        environment
            .getProperty(name, Duration.class)
            .orElseThrow(
                () ->
                    new ConfigurationException(
                        name
                            + " is not a duration (e.g. 5ms, 1s, 1h): "
                            + environment.getProperty(name, String.class).orElse(""))));
  }

  /**
   * How every {@code BatchApplier} consumer retries a failing record and when it parks it: {@code
   * consumers.retry-delay} (1 s) between attempts, parked after {@code consumers.max-attempts} (5)
   * failures of the record itself, about five seconds, well inside the gateway's reply timeout (10
   * s), so the merchant's request gets the rejection rather than a timeout. 0 never parks.
   */
  @Singleton
  BatchApplier.Settings consumerSettings(
      @Value("${consumers.retry-delay:1s}") Duration retryDelay,
      @Value("${consumers.max-attempts:5}") int maxAttempts) {
    return new BatchApplier.Settings(retryDelay, maxAttempts);
  }

  @Singleton
  ParkedMessages parkedMessages(Clock clock) {
    return new ParkedMessages(clock);
  }

  @Singleton
  OutboxActivity outboxActivity() {
    return new OutboxActivity();
  }

  /**
   * The outbox writer of {@code outbox.mode} ({@code OUTBOX_MODE}): {@code table} (the default)
   * inserts rows for {@link OutboxRelay}; {@code logical} emits the messages into the WAL for
   * {@link LogicalOutboxRelay}, and creates the database's replication slot first when it is
   * missing, since only what is written after the slot exists is decoded (every bean that writes
   * gets its writer from here, so none writes before).
   */
  @Singleton
  OutboxWriter outboxWriter(
      Clock clock,
      OutboxRelay.Settings settings,
      OutboxActivity activity,
      @Value("${outbox.mode:table}") String mode,
      @Value("${outbox.relay.enabled:true}") boolean relayEnabled,
      RelayConnections connections)
      throws java.sql.SQLException {
    if (logical(mode) && !relayEnabled) {
      // A slot nobody reads would keep the server's WAL for ever (the ledger runs no relay).
      log.warn("Outbox: table, although OUTBOX_MODE=logical: this service runs no outbox relay");
    } else if (logical(mode)) {
      LogicalOutboxRelay.prepare(connections.dedicated());
      log.info("Outbox: logical (pg_logical_emit_message, read from a replication slot)");
      return OutboxWriter.logical(clock);
    }
    return new OutboxWriter(clock, settings.channel(), activity);
  }

  private static boolean logical(String mode) {
    return switch (mode.strip().toLowerCase(java.util.Locale.ROOT)) {
      case "logical" -> true;
      case "table", "" -> false;
      default ->
          throw new IllegalArgumentException(
              "outbox.mode (OUTBOX_MODE) must be table or logical, not " + mode);
    };
  }

  @Singleton
  IdempotentConsumer idempotentConsumer(Clock clock) {
    return new IdempotentConsumer(clock);
  }

  @Singleton
  CommandHandler systemPing(
      @Value("${micronaut.application.name}") String serviceName, Clock clock) {
    return new SystemPingHandler(serviceName, clock);
  }

  @Singleton
  CommandDispatcher commandDispatcher(
      @Value("${micronaut.application.name}") String serviceName,
      List<CommandHandler> handlers,
      IdempotentConsumer inbox,
      OutboxWriter outbox) {
    return new CommandDispatcher(serviceName + ".commands", handlers, inbox, outbox);
  }

  /**
   * How the relays reach PostgreSQL and Kafka: physical connections of their own (not from the
   * pool: a session's advisory lock must not travel back into a pool with its connection) and their
   * producers.
   */
  record RelayConnections(
      PGSimpleDataSource dedicated, String bootstrapServers, KafkaSecurity security) {

    java.util.function.Supplier<org.apache.kafka.clients.producer.Producer<String, byte[]>>
        producers(String clientId) {
      return () ->
          new KafkaProducer<>(KafkaSettings.relayProducer(bootstrapServers, clientId, security));
    }
  }

  @Singleton
  RelayConnections relayConnections(
      OutboxRelay.Settings settings,
      @Value("${datasources.default.url}") String url,
      @Nullable @Value("${datasources.default.username:}") String username,
      @Nullable @Value("${datasources.default.password:}") String password,
      @Value("${kafka.bootstrap.servers}") String bootstrapServers,
      KafkaSecurity security) {
    PGSimpleDataSource dedicated = new PGSimpleDataSource();
    dedicated.setURL(url);
    if (username != null && !username.isEmpty()) {
      dedicated.setUser(username);
    }
    if (password != null && !password.isEmpty()) {
      dedicated.setPassword(password);
    }
    dedicated.setTcpKeepAlive(true);
    dedicated.setApplicationName(settings.name() + "-outbox-relay");
    return new RelayConnections(dedicated, bootstrapServers, security);
  }

  /**
   * The relay of the logical outbox ({@code outbox.mode=logical}); the table relay keeps running
   * beside it and publishes rows written before the switch (or by a replica still writing rows).
   */
  @Context
  @Bean(preDestroy = "close")
  @Requires(property = "outbox.relay.enabled", notEquals = "false")
  @Requires(property = "outbox.mode", value = "logical")
  LogicalOutboxRelay logicalOutboxRelay(
      OutboxWriter writer,
      OutboxRelay.Settings settings,
      Clock clock,
      RelayConnections connections) {
    // The writer is asked for first: it made sure the slot exists.
    return new LogicalOutboxRelay(
            connections.dedicated(),
            LogicalOutboxRelay.replicationDataSource(connections.dedicated()),
            connections.producers(settings.name() + "-outbox-logical"),
            settings,
            clock,
            LogicalOutboxRelay.Probe.NONE)
        .start();
  }

  /**
   * The relay starts with the application. It takes the pooled {@code DataSource} only to make sure
   * Flyway has migrated before it reads the outbox; its own connection is a dedicated one.
   */
  @Context
  @Bean(preDestroy = "close")
  @Requires(property = "outbox.relay.enabled", notEquals = "false")
  OutboxRelay outboxRelay(
      DataSource migratedPool,
      OutboxRelay.Settings settings,
      OutboxActivity activity,
      Clock clock,
      RelayConnections connections) {
    return new OutboxRelay(
            connections.dedicated(),
            connections.producers(settings.name() + "-outbox"),
            settings,
            clock,
            OutboxRelay.Probe.NONE,
            activity)
        .start();
  }
}
