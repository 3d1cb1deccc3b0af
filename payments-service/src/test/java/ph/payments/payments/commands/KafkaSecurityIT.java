package ph.payments.payments.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import io.micronaut.configuration.kafka.health.KafkaHealthIndicator;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthResult;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.Topics;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.KafkaSecurity;
import ph.payments.platform.kafka.KafkaSettings;
import ph.payments.platform.kafka.TopicAdmin;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.SecuredKafka;
import ph.payments.testkit.TestDatabase;

/**
 * payments-service against a broker that authenticates (SASL_PLAINTEXT, SCRAM-SHA-512) and
 * authorizes (StandardAuthorizer, no ACL means no access) with the principals and ACLs of
 * docker-compose.yml (deploy/kafka-init.sh; {@link #COMPOSE_ACLS} is the same table).
 *
 * <p>The service runs as principal {@code payments} from its {@code kafka.*} settings: its
 * micronaut-kafka command consumer, its outbox relay's producer and its health check's admin client
 * must all authenticate for a command to be answered. A wrong password is refused, and a principal
 * without the ACL cannot write a command topic, so no one but the gateway can hand payments-service
 * a command for a merchant of its choosing.
 */
@MicronautTest
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaSecurityIT implements TestPropertyProvider {

  /**
   * Who may do what, as deploy/kafka-init.sh grants it: principal, topics it writes, topics it
   * reads, and the prefix of its consumer groups.
   */
  static final List<Grant> COMPOSE_ACLS =
      List.of(
          new Grant(
              "gateway",
              List.of(Topics.PAYMENTS_COMMANDS, Topics.WEBHOOKS_COMMANDS),
              List.of(Topics.COMMAND_REPLIES),
              "api-gateway"),
          new Grant(
              "payments",
              List.of(Topics.EVENTS, Topics.COMMAND_REPLIES),
              List.of(Topics.PAYMENTS_COMMANDS),
              "payments-service"),
          new Grant("ledger", List.of(), List.of(Topics.EVENTS), "ledger-service"),
          new Grant(
              "webhooks",
              List.of(Topics.COMMAND_REPLIES),
              List.of(Topics.WEBHOOKS_COMMANDS, Topics.EVENTS),
              "webhook-service"));

  record Grant(String principal, List<String> writes, List<String> reads, String groupPrefix) {}

  private final Map<String, String> passwords = new HashMap<>();
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger kafkaClientsLogger =
      (Logger) LoggerFactory.getLogger("org.apache.kafka.clients");
  private SecuredKafka kafka;

  @Inject KafkaSecurity serviceSecurity;
  @Inject KafkaHealthIndicator health;

  /** Runs before the application context starts: the broker, its users, ACLs and topics. */
  @Override
  public Map<String, String> getProperties() {
    if (kafka != null) {
      throw new IllegalStateException("properties asked for twice");
    }
    kafka = SecuredKafka.start();
    for (String user : List.of("admin", "gateway", "payments", "ledger", "webhooks")) {
      passwords.put(user, UUID.randomUUID() + "\"\\x"); // quotes and backslashes must survive
      kafka.addUser(user, passwords.get(user));
    }
    // The admin principal is a super user in compose; here it needs only to create topics.
    List<AclBinding> acls = new ArrayList<>();
    acls.add(
        allow(
            "admin", ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, AclOperation.ALL));
    for (Grant grant : COMPOSE_ACLS) {
      grant
          .writes()
          .forEach(
              t ->
                  acls.add(
                      allow(
                          grant.principal(),
                          ResourceType.TOPIC,
                          t,
                          PatternType.LITERAL,
                          AclOperation.WRITE)));
      grant
          .reads()
          .forEach(
              t ->
                  acls.add(
                      allow(
                          grant.principal(),
                          ResourceType.TOPIC,
                          t,
                          PatternType.LITERAL,
                          AclOperation.READ)));
      acls.add(
          allow(
              grant.principal(),
              ResourceType.GROUP,
              grant.groupPrefix(),
              PatternType.PREFIXED,
              AclOperation.READ));
      // The health check reads the brokers' replication settings.
      acls.add(
          allow(
              grant.principal(),
              ResourceType.CLUSTER,
              "kafka-cluster",
              PatternType.LITERAL,
              AclOperation.DESCRIBE_CONFIGS));
    }
    kafka.allow(acls);
    // The topic admin as compose's kafka-init job runs it: authenticated, as the admin principal.
    TopicAdmin.ensure(
        kafka.saslBootstrapServers(),
        as("admin"),
        Topics.ALL,
        3,
        (short) 1,
        Duration.ofSeconds(20));

    // Kafka's clients log their whole configuration at INFO when they start; so do we.
    logs.start();
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logs);
    kafkaClientsLogger.setLevel(Level.INFO);

    TestDatabase database = TestDatabase.forClass(getClass());
    return Map.of(
        "datasources.default.url", database.jdbcUrl(),
        "datasources.default.username", database.user(),
        "micronaut.server.port", "-1",
        "outbox.sweep-interval", "200ms",
        "kafka.bootstrap.servers", kafka.saslBootstrapServers(),
        // What compose passes as KAFKA_SECURITY_PROTOCOL, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD.
        "kafka.security.protocol", "SASL_PLAINTEXT",
        "kafka.sasl.username", "payments",
        "kafka.sasl.password", passwords.get("payments"),
        // As in compose: topics are the admin's to create.
        "kafka.topics.create", "false");
  }

  @AfterAll
  void stopBroker() throws Exception {
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
    kafkaClientsLogger.setLevel(null);
    kafka.close();
  }

  @Test
  void theServiceAuthenticatesWithEveryClientAndAnswersTheGatewaysCommand() throws Exception {
    // The gateway's principal writes a command, the service's consumer (micronaut-kafka) takes it,
    // its relay (our own producer) publishes the reply, and the gateway's principal reads it.
    String commandId = IdType.COMMAND.generate();
    try (KafkaProducer<String, byte[]> gateway =
        new KafkaProducer<>(
            KafkaSettings.producer(kafka.saslBootstrapServers(), "it", as("gateway")))) {
      gateway.send(KafkaEnvelopes.toRecord(Topics.PAYMENTS_COMMANDS, ping(commandId))).get();
    }
    CommandReply reply = replyFor(commandId, Duration.ofSeconds(30));
    assertEquals(200, reply.status());
    assertEquals("pong", reply.body().get("object").asText());

    // micronaut-kafka's admin client (the health check) authenticates too.
    HealthResult result = health.getResult().blockFirst(Duration.ofSeconds(20));
    assertEquals(HealthStatus.UP, result.getStatus(), () -> String.valueOf(result.getDetails()));

    // The service's topic admin authenticates with the service's settings: the topics it may see
    // exist, so it has nothing to create and succeeds.
    TopicAdmin.ensure(
        kafka.saslBootstrapServers(),
        serviceSecurity,
        List.of(Topics.PAYMENTS_COMMANDS, Topics.EVENTS, Topics.COMMAND_REPLIES),
        3,
        (short) 1,
        Duration.ofSeconds(20));
  }

  @Test
  void noPasswordReachesTheLog() {
    String password = passwords.get("payments");
    assertEquals("SASL_PLAINTEXT SCRAM-SHA-512 as payments", serviceSecurity.toString());
    List<String> lines = new ArrayList<>();
    for (ILoggingEvent event : logs.list) {
      lines.add(event.getFormattedMessage());
      if (event.getThrowableProxy() != null) {
        lines.add(ThrowableProxyUtil.asString(event.getThrowableProxy()));
      }
    }
    // Kafka did print its clients' configuration (so this looked at the right output) ...
    assertTrue(
        lines.stream().anyMatch(l -> l.contains("sasl.jaas.config = [hidden]")),
        "no client config logged");
    assertTrue(
        lines.stream()
            .anyMatch(
                l ->
                    l.contains(
                        "Kafka clients connect with SASL_PLAINTEXT SCRAM-SHA-512 as payments")));
    // ... and no line carries the password.
    assertFalse(lines.stream().anyMatch(l -> l.contains(password)), "a password was logged");
  }

  @Test
  void aWrongPasswordIsRefused() {
    KafkaSecurity wrong =
        KafkaSecurity.fromSettings(
            Map.of(
                "security.protocol", "SASL_PLAINTEXT",
                "sasl.username", "payments",
                "sasl.password", "not-" + passwords.get("payments")));
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            KafkaSettings.producer(kafka.saslBootstrapServers(), "it-wrong", wrong))) {
      Exception refused =
          assertThrows(
              Exception.class,
              () ->
                  producer
                      .send(KafkaEnvelopes.toRecord(Topics.EVENTS, ping(IdType.COMMAND.generate())))
                      .get(20, TimeUnit.SECONDS));
      assertInstanceOf(SaslAuthenticationException.class, rootOrSelf(refused), refused::toString);
    }
    IllegalStateException adminRefused =
        assertThrows(
            IllegalStateException.class,
            () ->
                TopicAdmin.ensure(
                    kafka.saslBootstrapServers(),
                    wrong,
                    List.of(Topics.EVENTS),
                    3,
                    (short) 1,
                    Duration.ofSeconds(10)));
    assertInstanceOf(
        SaslAuthenticationException.class, rootOrSelf(adminRefused), adminRefused::toString);
  }

  @Test
  void onlyTheGatewayMayWriteCommandsAndOnlyPaymentsMayWriteEvents() {
    // A forged command names any merchant it likes: the command topics are the gateway's alone.
    for (String principal : List.of("payments", "ledger", "webhooks")) {
      for (String topic : List.of(Topics.PAYMENTS_COMMANDS, Topics.WEBHOOKS_COMMANDS)) {
        assertRefused(principal, topic);
      }
    }
    // Likewise a forged event would credit a balance in the ledger.
    for (String principal : List.of("gateway", "ledger", "webhooks")) {
      assertRefused(principal, Topics.EVENTS);
    }
  }

  private void assertRefused(String principal, String topic) {
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            KafkaSettings.producer(
                kafka.saslBootstrapServers(), "it-" + principal, as(principal)))) {
      // The refusal comes through the send's future, or, when the producer already failed to get
      // a producer id (a principal that may write no topic at all), thrown by send() itself.
      Exception refused =
          assertThrows(
              Exception.class,
              () ->
                  producer
                      .send(KafkaEnvelopes.toRecord(topic, ping(IdType.COMMAND.generate())))
                      .get(20, TimeUnit.SECONDS),
              () -> principal + " wrote to " + topic);
      Throwable cause = refused;
      while (cause != null && !(cause instanceof AuthorizationException)) {
        cause = cause.getCause();
      }
      // TopicAuthorizationException, or ClusterAuthorizationException for a principal that may
      // write no topic at all (its idempotent producer gets no producer id).
      assertInstanceOf(
          AuthorizationException.class, cause, () -> principal + " on " + topic + ": " + refused);
    }
  }

  private KafkaSecurity as(String principal) {
    return KafkaSecurity.fromSettings(
        Map.of(
            "security.protocol",
            "SASL_PLAINTEXT",
            "sasl.mechanism",
            SecuredKafka.MECHANISM,
            "sasl.username",
            principal,
            "sasl.password",
            passwords.get(principal)));
  }

  private static AclBinding allow(
      String principal,
      ResourceType type,
      String name,
      PatternType pattern,
      AclOperation operation) {
    return new AclBinding(
        new ResourcePattern(type, name, pattern),
        new AccessControlEntry("User:" + principal, "*", operation, AclPermissionType.ALLOW));
  }

  private static Envelope ping(String commandId) {
    Command ping =
        new Command(
            commandId,
            CommandTypes.SYSTEM_PING,
            null,
            null,
            null,
            Json.mapper().createObjectNode(),
            Instant.now());
    return new Envelope(
        IdType.MESSAGE.generate(),
        CommandTypes.messageType(CommandTypes.SYSTEM_PING),
        commandId,
        Instant.now(),
        Json.toBytes(ping));
  }

  /** Reads the reply as the gateway does: its principal, a group of its own prefix. */
  private CommandReply replyFor(String commandId, Duration timeout) {
    Map<String, Object> config =
        KafkaSettings.consumer(
            kafka.saslBootstrapServers(), "api-gateway.it-" + UUID.randomUUID(), as("gateway"));
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      consumer.subscribe(List.of(Topics.COMMAND_REPLIES));
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          if (commandId.equals(record.key())) {
            return Json.fromBytes(record.value(), CommandReply.class);
          }
        }
      }
    }
    throw new AssertionError("no reply to " + commandId + " within " + timeout);
  }

  private static Throwable rootOrSelf(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}
