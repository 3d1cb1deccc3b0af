package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Products across the real processes (issue 15): every product route through the gateway, a stock
 * adjustment delivered as a signed {@code product.stock_adjusted} webhook to a local receiver and
 * listed by {@code GET /v1/events}, and another merchant kept out.
 */
@ExtendWith(SharedSystem.class)
class ProductsE2EIT {

  private static SystemUnderTest system;
  private static Merchant operator;
  private static Merchant merchant;
  private static String secretKey;

  @BeforeAll
  static void start(SystemUnderTest shared) throws Exception {
    system = shared;
    operator = new Merchant(system.gatewayUrl(), system.adminToken);
    Merchant.Reply created =
        operator.post(
            "/admin/v1/merchants", "{\"name\":\"Corner Shop\",\"email\":\"shop@example.com\"}");
    assertEquals(201, created.status(), created.raw().body());
    secretKey = created.json().at("/api_keys/0/secret").asText();
    merchant = new Merchant(system.gatewayUrl(), secretKey);
  }

  @Test
  void aProductIsKeptAndItsStockAdjustmentReachesAWebhookReceiver() throws Exception {
    BlockingQueue<String[]> received = new LinkedBlockingQueue<>();
    com.sun.net.httpserver.HttpServer receiver =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/hooks",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          received.add(
              new String[] {
                new String(body, java.nio.charset.StandardCharsets.UTF_8),
                exchange.getRequestHeaders().getFirst("X-Service-Signature"),
                exchange.getRequestHeaders().getFirst("X-Service-Event")
              });
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    receiver.start();
    try {
      String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hooks";
      Merchant.Reply endpoint =
          merchant.post(
              "/v1/webhooks/endpoints",
              "{\"url\":\"" + url + "\",\"events\":[\"product.stock_adjusted\"]}");
      assertEquals(201, endpoint.status(), endpoint.raw().body());
      String secret = endpoint.json().get("secret").asText();

      String body =
          "{\"name\":\"Iced coffee\",\"price\":120.00,\"track_inventory\":true,\"stock\":20,"
              + "\"low_stock_threshold\":5,\"category\":\"drinks\"}";
      Merchant.Reply created = merchant.post("/v1/products", body, "Idempotency-Key", "product-1");
      assertEquals(201, created.status(), created.raw().body());
      JsonNode product = created.json();
      String id = product.get("id").asText();
      assertEquals("SKU-00001", product.get("sku").asText());
      assertEquals(13, product.get("barcode").asText().length());
      assertEquals("120.00", product.get("price").decimalValue().setScale(2).toPlainString());
      Merchant.Reply replay = merchant.post("/v1/products", body, "Idempotency-Key", "product-1");
      assertEquals(201, replay.status());
      assertEquals("true", replay.raw().headers().firstValue("Idempotent-Replayed").orElse(""));
      assertEquals(id, replay.json().get("id").asText());

      assertEquals(200, merchant.get("/v1/products/" + id).status());
      Merchant.Reply duplicate =
          merchant.post("/v1/products", "{\"name\":\"Copy\",\"sku\":\"sku-00001\"}");
      assertEquals(409, duplicate.status(), duplicate.raw().body());
      assertEquals("duplicate_sku", duplicate.code());

      Merchant.Reply adjusted =
          merchant.post(
              "/v1/products/" + id + "/stock_adjustments",
              "{\"quantity\":-16,\"reason\":\"sold\"}",
              "Idempotency-Key",
              "stock-1");
      assertEquals(200, adjusted.status(), adjusted.raw().body());
      assertEquals(4, adjusted.json().get("stock").asInt());
      assertTrue(adjusted.json().get("low_stock").asBoolean());
      Merchant.Reply tooMany =
          merchant.post("/v1/products/" + id + "/stock_adjustments", "{\"quantity\":-5}");
      assertEquals(400, tooMany.status());
      assertEquals("invalid_request", tooMany.code());

      String[] delivery = received.poll(15, TimeUnit.SECONDS);
      assertNotNull(delivery, "no product.stock_adjusted webhook within 15 s");
      ph.payments.webhooks.verify.WebhookSignature.verify(delivery[0], delivery[1], secret, 300);
      assertEquals("product.stock_adjusted", delivery[2]);
      JsonNode event = Merchant.JSON.readTree(delivery[0]);
      assertEquals(id, event.at("/data/object/id").asText());
      assertEquals(-16, event.at("/data/object/adjustment/quantity").asInt());
      assertEquals("sold", event.at("/data/object/adjustment/reason").asText());
      List<JsonNode> events = merchant.listAll("/v1/events");
      assertTrue(
          events.stream().anyMatch(e -> e.get("id").equals(event.get("id"))),
          "GET /v1/events lists it");

      HttpResponse<String> patched =
          patch("/v1/products/" + id, "{\"archived\":true,\"description\":\"Cold\"}");
      assertEquals(200, patched.statusCode(), patched.body());
      Merchant.Reply aliased = merchant.post("/v1/products/" + id, "{\"price\":null}");
      assertEquals(200, aliased.status(), aliased.raw().body());
      assertTrue(aliased.json().get("price").isNull());
      assertTrue(aliased.json().get("archived").asBoolean());
      assertEquals(0, merchant.get("/v1/products").json().get("data").size());
      assertEquals(
          1, merchant.get("/v1/products?archived=true&q=coffee").json().get("data").size());

      Merchant.Reply otherShop =
          operator.post(
              "/admin/v1/merchants", "{\"name\":\"Other\",\"email\":\"other@example.com\"}");
      Merchant other =
          new Merchant(system.gatewayUrl(), otherShop.json().at("/api_keys/0/secret").asText());
      assertEquals(404, other.get("/v1/products/" + id).status());
      assertEquals(
          404,
          other.post("/v1/products/" + id + "/stock_adjustments", "{\"quantity\":1}").status());
      assertEquals(404, merchant.get("/v1/products/prd_nope").status());
      assertFalse(other.get("/v1/products?archived=true").json().get("data").size() > 0);
    } finally {
      receiver.stop(0);
    }
  }

  private static HttpResponse<String> patch(String path, String body) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(system.gatewayUrl() + path))
                .header("Authorization", "Bearer " + secretKey)
                .header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
