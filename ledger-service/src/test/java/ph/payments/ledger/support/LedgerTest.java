package ph.payments.ledger.support;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.contracts.Envelope;
import ph.payments.ledger.events.application.ApplyEvent;
import ph.payments.platform.json.Json;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * Base of the ledger's integration tests: the real service on a random port against its own fresh
 * database and the shared real Kafka broker. The event listener is off unless a class turns it on
 * ({@link #extraProperties()}), so classes that drive the ledger directly see only their own
 * events. Classes add {@code @MicronautTest}.
 */
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class LedgerTest implements TestPropertyProvider {

  protected static final String TOKEN = "internal-token-for-ledger-tests";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Inject protected EmbeddedServer server;
  @Inject protected Transactions transactions;
  @Inject protected ApplyEvent applyEvent;

  @Override
  public Map<String, String> getProperties() {
    TestDatabase database = TestDatabase.forClass(getClass());
    Map<String, String> properties = new HashMap<>();
    properties.put("datasources.default.url", database.jdbcUrl());
    properties.put("datasources.default.username", database.user());
    properties.put("kafka.bootstrap.servers", TestKafka.bootstrapServers());
    properties.put("micronaut.server.port", "-1");
    properties.put("internal.token", TOKEN);
    properties.put("ledger.events.enabled", "false");
    properties.putAll(extraProperties());
    return properties;
  }

  protected Map<String, String> extraProperties() {
    return Map.of();
  }

  /** Applies events as the listener does: each in its own transaction. */
  protected void apply(Envelope... envelopes) {
    for (Envelope envelope : envelopes) {
      transactions.inTransaction(c -> applyEvent.apply(c, envelope));
    }
  }

  /** One response of the internal API. */
  public record Response(int status, String contentType, String body, JsonNode json) {

    public String errorCode() {
      return json == null ? null : json.at("/error/code").asText(null);
    }

    @Override
    public String toString() {
      return status + " " + body;
    }
  }

  protected Response get(String path, String merchantId, String environment) {
    HttpRequest.Builder request = request(path);
    if (merchantId != null) {
      request.header(InternalHeaders.MERCHANT_ID, merchantId);
    }
    if (environment != null) {
      request.header(InternalHeaders.ENVIRONMENT, environment);
    }
    return send(request.GET());
  }

  protected Response post(String path, String body) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body == null ? "" : body)));
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create(server.getURL() + path))
        .timeout(Duration.ofSeconds(30))
        .header(InternalHeaders.TOKEN, TOKEN);
  }

  private static Response send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
      JsonNode json = null;
      try {
        json = response.body().isEmpty() ? null : Json.tree(response.body());
      } catch (RuntimeException notJson) {
        json = null;
      }
      return new Response(
          response.statusCode(),
          response.headers().firstValue("Content-Type").orElse(""),
          response.body(),
          json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The balance of one account, or null when it does not exist. */
  protected BigDecimal balance(
      String code, String merchantId, String environment, String currency) {
    return query(
        "SELECT balance FROM accounts WHERE code = ? AND merchant_id = ? AND environment = ?"
            + " AND currency = ?",
        code,
        merchantId,
        environment,
        currency);
  }

  protected BigDecimal available(String merchantId, String environment) {
    return balance("merchant_available", merchantId, environment, "PHP");
  }

  protected BigDecimal inFlight(String merchantId, String environment) {
    return balance("merchant_payouts_in_flight", merchantId, environment, "PHP");
  }

  /** The first column of the first row, or null. */
  @SuppressWarnings("unchecked")
  protected <T> T query(String sql, Object... parameters) {
    return transactions.inTransaction(
        c -> {
          try (PreparedStatement select = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
              select.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rs = select.executeQuery()) {
              return rs.next() ? (T) rs.getObject(1) : null;
            }
          }
        });
  }

  protected long count(String sql, Object... parameters) {
    Number n = query(sql, parameters);
    return n == null ? 0 : n.longValue();
  }

  protected static BigDecimal money(String amount) {
    return new BigDecimal(amount);
  }
}
