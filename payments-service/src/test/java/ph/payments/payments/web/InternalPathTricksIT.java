package ph.payments.payments.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.RawHttp;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * The internal token filter ({@code platform} {@code InternalTokenFilter}) against path spellings
 * sent as written over a raw socket: only health is served without the token, and no spelling that
 * starts like a health path ({@code /health/../internal/…}) or hides {@code /internal} behind
 * escapes, doubled slashes, case or matrix parameters reaches an internal route.
 */
@MicronautTest(transactional = false)
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InternalPathTricksIT implements TestPropertyProvider {

  private static final String TOKEN = "internal-token-for-path-tricks-it";
  private static final String MERCHANT = "mer_" + "0".repeat(25) + "9";

  @Inject EmbeddedServer server;

  @Override
  public Map<String, String> getProperties() {
    TestDatabase database = TestDatabase.forClass(getClass());
    Map<String, String> properties = new HashMap<>();
    properties.put("datasources.default.url", database.jdbcUrl());
    properties.put("datasources.default.username", database.user());
    properties.put("kafka.bootstrap.servers", TestKafka.bootstrapServers());
    properties.put("micronaut.server.port", "-1");
    properties.put("internal.token", TOKEN);
    return properties;
  }

  @Test
  void onlyTheTokenOpensInternalRoutes() {
    Map<String, String> scope = Map.of("X-Merchant-Id", MERCHANT, "X-Environment", "test");
    Map<String, String> withToken = new HashMap<>(scope);
    withToken.put("X-Internal-Token", TOKEN);
    assertEquals(200, RawHttp.get(server.getPort(), "/internal/payments", withToken).status());
    assertEquals(401, RawHttp.get(server.getPort(), "/internal/payments", scope).status());
    assertTrue(RawHttp.get(server.getPort(), "/health", Map.of()).status() < 500);
    // Prometheus scrapes without the token (docs/operations.md), and only that exact path.
    RawHttp.Reply scrape = RawHttp.get(server.getPort(), "/prometheus", Map.of());
    assertEquals(200, scrape.status());
    assertTrue(scrape.body().contains("outbox_pending"), scrape.body());

    List<String> tricks =
        List.of(
            "/health/../internal/payments",
            "/health/..%2finternal/payments",
            "/health/%2e%2e/internal/payments",
            "/health/%2E%2E/internal/payments",
            "/health%2f..%2finternal/payments",
            "/health/./../internal/payments",
            "/health//../internal/payments",
            "/health;/../internal/payments",
            "/health;x=1/../internal/payments",
            "/health/liveness/../../internal/payments",
            "/health/internal/payments",
            "//internal/payments",
            "/internal//payments",
            "/internal/payments/",
            "/internal/./payments",
            "/x/../internal/payments",
            "/%69nternal/payments",
            "/internal%2fpayments",
            "/INTERNAL/payments",
            "/Internal/Payments",
            "/internal;x=1/payments",
            "/internal/payments;x=1",
            "/internal/public/checkouts/../../payments",
            "/internal\\payments",
            "http://localhost/internal/payments",
            "/prometheus/../internal/payments",
            "/prometheus/..%2finternal/payments",
            "/prometheus%2f..%2finternal/payments",
            "/prometheus;/../internal/payments");
    List<String> leaks = new ArrayList<>();
    for (String path : tricks) {
      RawHttp.Reply reply = RawHttp.get(server.getPort(), path, scope);
      if (reply.status() < 400 || reply.body().contains("\"object\":\"list\"")) {
        leaks.add(path + ": " + reply);
      }
    }
    assertTrue(leaks.isEmpty(), "reached an internal route without the token: " + leaks);
  }
}
