package ph.payments.webhooks.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.sealing.ReplySealer;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;
import ph.payments.webhooks.WebhookCommands;

/**
 * Base of webhook-service's integration tests: the real service on a random port, its own fresh
 * database, the shared real Kafka broker with an event topic of the class's own (so no class sees
 * another's events), and helpers that act as the gateway does: commands through the platform's
 * dispatcher, reads over internal HTTP.
 */
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class WebhookServiceTest implements TestPropertyProvider {

  public static final String TOKEN = "internal-token-for-webhook-tests";

  /** A real key (32 bytes or more): the tests run without ALLOW_DEVELOPMENT_KEYS. */
  public static final String SECRET_KEY = "webhook-secret-key-for-tests-0123456789abcdef";

  /** {@code REPLY_SEALING_KEY} of the tests: 32 bytes in base64. */
  public static final String REPLY_SEALING_KEY = "cmVwbHktc2VhbGluZy1rZXktZm9yLXRlc3RzLTMyYnk=";

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Inject protected CommandDispatcher dispatcher;
  @Inject protected Transactions transactions;
  @Inject protected EmbeddedServer server;

  private Events events;

  @Override
  public Map<String, String> getProperties() {
    return properties(getClass(), extraProperties());
  }

  /** The service's properties for a test class, on its own database and event topic. */
  public static Map<String, String> properties(Class<?> testClass, Map<String, String> extra) {
    TestDatabase database = TestDatabase.forClass(testClass);
    String topic = eventTopic(testClass);
    TestKafka.createTopics(3, topic);
    Map<String, String> properties = new HashMap<>();
    properties.put("datasources.default.url", database.jdbcUrl());
    properties.put("datasources.default.username", database.user());
    properties.put("kafka.bootstrap.servers", TestKafka.bootstrapServers());
    properties.put("micronaut.server.port", "-1");
    properties.put("internal.token", TOKEN);
    properties.put("webhooks.secret-key", SECRET_KEY);
    properties.put("security.reply-sealing-key", REPLY_SEALING_KEY);
    properties.put("webhooks.events.topic", topic);
    properties.put("webhooks.events.group-id", "webhook-service." + topic);
    properties.put("webhooks.purge.initial-delay", "1h");
    properties.put("outbox.sweep-interval", "200ms");
    properties.putAll(extra);
    return properties;
  }

  public static String eventTopic(Class<?> testClass) {
    return "test.events." + testClass.getSimpleName().toLowerCase(Locale.ROOT);
  }

  protected Map<String, String> extraProperties() {
    return Map.of();
  }

  protected Events events() {
    if (events == null) {
      events = new Events(TestKafka.bootstrapServers(), eventTopic(getClass()));
    }
    return events;
  }

  /**
   * Waits until the event consumer has joined its group and consumed a first event, so tests
   * measure deliveries, not the one-off group join.
   */
  @BeforeAll
  void awaitEventConsumer() {
    Events.Event warmUp = Events.payment("payment.processing", "test");
    events().send(merchant(), warmUp);
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                transactions.inTransaction(
                    c -> {
                      try (var select =
                          c.prepareStatement(
                              "SELECT 1 FROM inbox WHERE consumer = 'webhook-service.events'"
                                  + " AND message_id = ?")) {
                        select.setString(1, warmUp.id());
                        try (var rs = select.executeQuery()) {
                          return rs.next();
                        }
                      }
                    }));
  }

  @AfterAll
  void closeEvents() {
    if (events != null) {
      events.close();
    }
  }

  protected static String merchant() {
    return IdType.MERCHANT.generate();
  }

  /** Applies a command as the command listener would, and returns the reply it queued. */
  protected CommandReply command(
      String type, String merchantId, String environment, String resourceId, JsonNode body) {
    return command(dispatcher, transactions, type, merchantId, environment, resourceId, body);
  }

  public static CommandReply command(
      CommandDispatcher dispatcher,
      Transactions transactions,
      String type,
      String merchantId,
      String environment,
      String resourceId,
      JsonNode body) {
    Command command =
        new Command(
            IdType.COMMAND.generate(),
            type,
            merchantId,
            environment,
            resourceId,
            body == null ? Json.mapper().createObjectNode() : body,
            Instant.now());
    Envelope envelope =
        new Envelope(
            IdType.MESSAGE.generate(),
            "command." + type,
            command.commandId(),
            Instant.now(),
            Json.toBytes(command));
    return transactions.inTransaction(
        connection -> {
          dispatcher.dispatch(connection, envelope);
          try (var select =
              connection.prepareStatement(
                  "SELECT payload FROM outbox WHERE message_key = ?"
                      + " AND message_type = 'command.reply'")) {
            select.setString(1, command.commandId());
            try (var rs = select.executeQuery()) {
              rs.next();
              return Json.fromBytes(rs.getBytes(1), CommandReply.class);
            }
          }
        });
  }

  /**
   * Creates an endpoint and returns it as the merchant sees it: with its secret opened, as the
   * gateway opens it.
   */
  protected JsonNode createEndpoint(
      String merchantId, String environment, String url, String... eventTypes) {
    CommandReply reply =
        command(
            WebhookCommands.ENDPOINT_CREATE,
            merchantId,
            environment,
            IdType.WEBHOOK_ENDPOINT.generate(),
            endpointBody(url, eventTypes));
    assertEquals(201, reply.status(), reply.body().toString());
    return opened(reply);
  }

  /** The reply's body with its sealed {@code secret} opened, as the gateway does. */
  public static JsonNode opened(CommandReply reply) {
    return ReplySealer.configured(REPLY_SEALING_KEY, false)
        .openFields(reply.body(), reply.commandId(), Set.of("secret"));
  }

  protected static ObjectNode endpointBody(String url, String... eventTypes) {
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("url", url);
    if (eventTypes.length > 0) {
      ArrayNode events = body.putArray("events");
      for (String type : eventTypes) {
        events.add(type);
      }
    }
    return body;
  }

  /**
   * The attempts (over the internal API, as the gateway shows them) of the merchant environment's
   * first delivery, endpoint or override alike, once there are {@code count}.
   */
  protected JsonNode awaitAttemptsOfFirstDelivery(
      String merchantId, String environment, int count) {
    java.util.concurrent.atomic.AtomicReference<JsonNode> attempts =
        new java.util.concurrent.atomic.AtomicReference<>();
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () -> {
              Long delivery =
                  transactions.inTransaction(
                      c -> {
                        try (var select =
                            c.prepareStatement(
                                "SELECT min(id) FROM webhook_deliveries WHERE merchant_id = ?"
                                    + " AND environment = ?")) {
                          select.setString(1, merchantId);
                          select.setString(2, environment);
                          try (var rs = select.executeQuery()) {
                            rs.next();
                            long id = rs.getLong(1);
                            return rs.wasNull() ? null : id;
                          }
                        }
                      });
              if (delivery == null) {
                return false;
              }
              attempts.set(
                  get(
                          "/internal/webhook_deliveries/" + delivery + "/attempts",
                          merchantId,
                          environment)
                      .json());
              return attempts.get().get("data").size() >= count;
            });
    return attempts.get();
  }

  /** How many stored attempts of the merchant have a response snippet, read from the table. */
  protected int storedSnippets(String merchantId) {
    return transactions.inTransaction(
        c -> {
          try (var select =
              c.prepareStatement(
                  "SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d"
                      + " ON d.id = a.delivery_id"
                      + " WHERE d.merchant_id = ? AND a.response_snippet IS NOT NULL")) {
            select.setString(1, merchantId);
            try (var rs = select.executeQuery()) {
              rs.next();
              return rs.getInt(1);
            }
          }
        });
  }

  /** A gateway-style internal read. */
  protected Read get(String path, String merchantId, String environment) {
    return get(server.getURL().toString(), path, merchantId, environment);
  }

  public static Read get(String baseUrl, String path, String merchantId, String environment) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(baseUrl + path)).header("X-Internal-Token", TOKEN).GET();
    if (merchantId != null) {
      request.header("X-Merchant-Id", merchantId).header("X-Environment", environment);
    }
    try {
      HttpResponse<String> response =
          HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return new Read(
          response.statusCode(), response.body().isEmpty() ? null : Json.tree(response.body()));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** An internal POST without merchant headers (the operator's account-secret calls). */
  protected Read post(String path) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(server.getURL() + path))
            .header("X-Internal-Token", TOKEN)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{}"))
            .build();
    try {
      HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
      return new Read(response.statusCode(), Json.tree(response.body()));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** An internal answer. */
  public record Read(int status, JsonNode json) {
    @Override
    public String toString() {
      return status + " " + json;
    }
  }
}
