package ph.payments.gateway.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.auth.MerchantContext;
import ph.payments.gateway.auth.RequiresScope;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;
import ph.payments.platform.micronaut.InternalHeaders;

/**
 * Reads go to the owning service with the merchant and environment of the API key, never those of
 * the request; the owner's answer comes back unchanged; an unreachable owner is a 503.
 */
@MicronautTest
@io.micronaut.context.annotation.Property(name = "spec.name", value = "ReadRouterIT")
class ReadRouterIT extends GatewayTest {

  private static final String INTERNAL_TOKEN = "internal-token-for-read-router-it";
  private static HttpServer owner;
  private static final Map<String, String> seen = new ConcurrentHashMap<>();

  @Override
  protected Map<String, String> extraProperties() {
    try {
      owner = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    owner.createContext(
        "/internal/things/",
        exchange -> {
          seen.clear();
          exchange
              .getRequestHeaders()
              .forEach((name, values) -> seen.put(name.toLowerCase(), values.get(0)));
          seen.put("query", String.valueOf(exchange.getRequestURI().getRawQuery()));
          String id = exchange.getRequestURI().getPath().substring("/internal/things/".length());
          int status = 200;
          String body = "{\"id\":\"" + id + "\",\"object\":\"thing\",\"amount\":100.50}";
          if (id.equals("missing")) {
            status = 404;
            body = "{\"error\":{\"code\":\"not_found\",\"message\":\"No such thing.\"}}";
          } else if (id.equals("live_only")) {
            status = 401;
            body = "{\"error\":{\"code\":\"unauthenticated\",\"message\":\"Other environment.\"}}";
          }
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(status, bytes.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
          }
        });
    owner.start();
    Map<String, String> properties = new HashMap<>();
    properties.put(
        "gateway.services.payments-url", "http://127.0.0.1:" + owner.getAddress().getPort());
    properties.put("gateway.services.ledger-url", "http://127.0.0.1:1");
    properties.put("internal.token", INTERNAL_TOKEN);
    return properties;
  }

  @AfterAll
  void stopOwner() {
    owner.stop(0);
  }

  @Test
  void theMerchantAndEnvironmentComeFromTheKey() {
    Operator.Merchant merchant = operator().createMerchant("Reader");
    Http.Response response =
        http()
            .get(
                "/v1/test_reads/thing_1?limit=5&merchant_id=mer_someone_else&environment=live",
                merchant.testSecret(),
                "X-Merchant-Id",
                "mer_00000000000000000000000000",
                "X-Environment",
                "live");
    assertEquals(200, response.status(), response.body());
    assertEquals("{\"id\":\"thing_1\",\"object\":\"thing\",\"amount\":100.50}", response.body());
    assertEquals(merchant.id(), seen.get("x-merchant-id"));
    assertEquals("test", seen.get("x-environment"));
    assertEquals(INTERNAL_TOKEN, seen.get(InternalHeaders.TOKEN.toLowerCase()));
    assertEquals("limit=5", seen.get("query"));
    assertFalse(seen.containsKey("authorization"), "the API key never leaves the gateway");
  }

  @Test
  void theOwnersErrorsComeBackUnchanged() {
    Operator.Merchant merchant = operator().createMerchant("Reader Two");
    Http.Response missing = http().get("/v1/test_reads/missing", merchant.testSecret());
    assertEquals(404, missing.status());
    assertEquals("not_found", missing.errorCode());
    Http.Response otherEnvironment = http().get("/v1/test_reads/live_only", merchant.testSecret());
    assertEquals(401, otherEnvironment.status());
    assertEquals("unauthenticated", otherEnvironment.errorCode());
  }

  @Test
  void anUnreachableOwnerIsA503WithRetryAfter() {
    Operator.Merchant merchant = operator().createMerchant("Reader Three");
    Http.Response response = http().get("/v1/test_reads_ledger", merchant.testSecret());
    assertEquals(503, response.status(), response.body());
    assertEquals("internal_error", response.errorCode());
    assertTrue(response.header("Retry-After").orElseThrow().matches("\\d+"));
  }

  /** Routes of this test only. */
  @Requires(property = "spec.name", value = "ReadRouterIT")
  @Controller
  @ExecuteOn(TaskExecutors.BLOCKING)
  static class Routes {
    private final ReadRouter router;

    Routes(ReadRouter router) {
      this.router = router;
    }

    @Get("/v1/test_reads/{id}")
    @RequiresScope("payments:read")
    HttpResponse<String> thing(HttpRequest<?> request, String id) {
      return router.get(
          request,
          MerchantContext.of(request),
          Owner.PAYMENTS,
          "/internal/things/" + id,
          Set.of("limit", "starting_after"));
    }

    @Get("/v1/test_reads_ledger")
    @RequiresScope("payments:read")
    HttpResponse<String> ledger(HttpRequest<?> request) {
      return router.get(
          request, MerchantContext.of(request), Owner.LEDGER, "/internal/x", Set.of());
    }
  }
}
