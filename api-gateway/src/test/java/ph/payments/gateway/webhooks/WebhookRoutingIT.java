package ph.payments.gateway.webhooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;

/**
 * The gateway's side of webhook reads and of the operator's webhook tools, against a stand-in
 * webhook-service on loopback: what is forwarded where, with which merchant scope, and what the
 * operator sees of account-level webhook secrets.
 */
@MicronautTest
class WebhookRoutingIT extends GatewayTest {

  private static final String INTERNAL_TOKEN = "internal-token-for-webhook-routing-it";
  private static HttpServer owner;
  private static final List<Map<String, String>> seen = new CopyOnWriteArrayList<>();

  @Override
  protected Map<String, String> extraProperties() {
    try {
      owner = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    owner.createContext(
        "/internal/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          seen.add(
              Map.of(
                  "method", exchange.getRequestMethod(),
                  "path", path,
                  "query", String.valueOf(exchange.getRequestURI().getRawQuery()),
                  "token",
                      String.valueOf(exchange.getRequestHeaders().getFirst("X-Internal-Token")),
                  "merchant",
                      String.valueOf(exchange.getRequestHeaders().getFirst("X-Merchant-Id")),
                  "environment",
                      String.valueOf(exchange.getRequestHeaders().getFirst("X-Environment"))));
          String body;
          if (path.startsWith("/internal/account_secrets/")) {
            String[] parts = path.split("/");
            String environment = parts[4];
            boolean rotate = path.endsWith("/rotate");
            body =
                "{\"object\":\"webhook_secret\",\"merchant\":\""
                    + parts[3]
                    + "\",\"environment\":\""
                    + environment
                    + "\",\"secret\":\"whsec_"
                    + (rotate ? "rotated_" : "stub_")
                    + environment
                    + "\",\"previous_secret_expires_at\":"
                    + (rotate ? "1767312000" : "null")
                    + "}";
          } else if (path.equals("/internal/webhook_endpoints")) {
            body = "{\"object\":\"list\",\"data\":[]}";
          } else {
            body = "{\"object\":\"echo\",\"path\":\"" + path + "\"}";
          }
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, bytes.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
          }
        });
    owner.start();
    return Map.of(
        "gateway.services.webhook-url",
        "http://127.0.0.1:" + owner.getAddress().getPort(),
        "internal.token",
        INTERNAL_TOKEN,
        "gateway.commands.reply-timeout",
        "200ms");
  }

  @AfterAll
  void stopOwner() {
    owner.stop(0);
  }

  @Test
  void aNewMerchantShowsItsTestWebhookSecretOnceAndGoingLiveShowsTheLiveOne() {
    Http.Response created =
        http()
            .post(
                "/admin/v1/merchants",
                ADMIN_TOKEN,
                Http.json(Map.of("name", "Hooked Shop", "email", "hooks@example.ph")));
    assertEquals(201, created.status(), created.body());
    String id = created.json().get("id").asText();
    assertEquals(
        "{\"test\":\"whsec_stub_test\"}", created.json().get("webhook_secrets").toString());
    assertTrue(
        seen.stream()
            .anyMatch(
                r ->
                    r.get("path").equals("/internal/account_secrets/" + id + "/test")
                        && r.get("method").equals("POST")
                        && r.get("token").equals(INTERNAL_TOKEN)));

    Http.Response read = http().get("/admin/v1/merchants/" + id, ADMIN_TOKEN);
    assertFalse(read.json().has("webhook_secrets"), "shown when created only");

    Http.Response live = http().post("/admin/v1/merchants/" + id + "/activate", ADMIN_TOKEN, null);
    assertEquals("{\"live\":\"whsec_stub_live\"}", live.json().get("webhook_secrets").toString());
    Http.Response again = http().post("/admin/v1/merchants/" + id + "/activate", ADMIN_TOKEN, null);
    assertFalse(again.json().has("webhook_secrets"), "not again on a second activation");
  }

  @Test
  void theOperatorRotatesAnAccountWebhookSecret() {
    Operator.Merchant merchant = operator().createMerchant("Rotating Shop");
    Http.Response rotated =
        http()
            .post(
                "/admin/v1/merchants/" + merchant.id() + "/webhook_secret/rotate",
                ADMIN_TOKEN,
                "{\"environment\":\"test\"}");
    assertEquals(200, rotated.status(), rotated.body());
    assertEquals("whsec_rotated_test", rotated.json().get("secret").asText());
    assertEquals(1767312000L, rotated.json().get("previous_secret_expires_at").asLong());
    assertEquals(
        "/internal/account_secrets/" + merchant.id() + "/test/rotate",
        seen.get(seen.size() - 1).get("path"));

    assertEquals(
        400,
        http()
            .post(
                "/admin/v1/merchants/" + merchant.id() + "/webhook_secret/rotate",
                ADMIN_TOKEN,
                "{\"environment\":\"staging\"}")
            .status());
    assertEquals(
        404,
        http()
            .post(
                "/admin/v1/merchants/mer_01jd3k4m5n6p7q8r9s0t1v2w3x/webhook_secret/rotate",
                ADMIN_TOKEN,
                "{\"environment\":\"test\"}")
            .status());
    assertEquals(
        401,
        http()
            .post(
                "/admin/v1/merchants/" + merchant.id() + "/webhook_secret/rotate",
                merchant.testSecret(),
                "{\"environment\":\"test\"}")
            .status(),
        "an API key is not an operator token");
  }

  @Test
  void readsGoToWebhookServiceWithTheKeysMerchantAndOnlyTheirParameters() {
    Operator.Merchant merchant = operator().createMerchant("Reading Hooks");
    Http.Response list = http().get("/v1/webhooks/endpoints?limit=5", merchant.testSecret());
    assertEquals(200, list.status(), list.body());
    assertEquals("{\"object\":\"list\",\"data\":[]}", list.body());
    Map<String, String> forwarded = seen.get(seen.size() - 1);
    assertEquals("/internal/webhook_endpoints", forwarded.get("path"));
    assertEquals("null", forwarded.get("query"), "the endpoint list takes no parameters");
    assertEquals(merchant.id(), forwarded.get("merchant"));
    assertEquals("test", forwarded.get("environment"));

    String endpoint = "whe_01jd3k4m5n6p7q8r9s0t1v2w3x";
    http()
        .get(
            "/v1/webhooks/endpoints/"
                + endpoint
                + "/deliveries?limit=2&status=failed"
                + "&starting_after=whd_3&colour=red",
            merchant.testSecret());
    forwarded = seen.get(seen.size() - 1);
    assertEquals("/internal/webhook_endpoints/" + endpoint + "/deliveries", forwarded.get("path"));
    assertTrue(forwarded.get("query").contains("limit=2"));
    assertTrue(forwarded.get("query").contains("status=failed"));
    assertTrue(forwarded.get("query").contains("starting_after=whd_3"));
    assertFalse(forwarded.get("query").contains("colour"));

    JsonNode delivery = http().get("/v1/webhooks/deliveries/42", merchant.testSecret()).json();
    assertEquals(
        "/internal/webhook_deliveries/whd_42",
        delivery.get("path").asText(),
        "a bare number works too");
    http().get("/v1/webhooks/deliveries/whd_42/attempts?limit=3", merchant.testSecret());
    assertEquals(
        "/internal/webhook_deliveries/whd_42/attempts", seen.get(seen.size() - 1).get("path"));
    assertEquals("limit=3", seen.get(seen.size() - 1).get("query"));
  }

  @Test
  void theOperatorReplaysThroughTheCommandPath() {
    Http.Response replay = http().post("/admin/v1/webhooks/deliveries/7/replay", ADMIN_TOKEN, null);
    assertEquals(503, replay.status(), "accepted; no webhook-service consumes commands here");
    assertEquals(
        404, http().post("/admin/v1/webhooks/deliveries/x7/replay", ADMIN_TOKEN, null).status());
    assertEquals(401, http().post("/admin/v1/webhooks/deliveries/7/replay", null, null).status());
  }
}
