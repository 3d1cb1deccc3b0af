package ph.payments.gateway.products;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;
import ph.payments.platform.json.Json;

/**
 * The product routes' body rules and limits at their edges, list parameters, ids, scopes and the
 * command path, over real HTTP. A rejected request never reaches payments-service (none runs here);
 * a valid creation is accepted as a command and times out (202 with the id), a valid update or
 * adjustment times out with 503, as in {@code PaymentValidationIT}.
 */
@MicronautTest
class ProductValidationIT extends GatewayTest {

  private static final String PRODUCT = "prd_01jd3k4m5n6p7q8r9s0t1v2w3x";

  private Operator.Merchant merchant;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("gateway.commands.reply-timeout", "200ms");
  }

  @BeforeAll
  void merchant() {
    merchant = operator().createMerchant("Product Store");
    // Well over a hundred requests in this class, all with this key.
    operator().setRateLimit(merchant.testKeyId(), 10_000);
  }

  private static String with(String field, Object value) {
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("name", "Mug");
    body.set(field, Json.mapper().valueToTree(value));
    return Json.toText(body);
  }

  private static String metadata(int keys) {
    StringBuilder json = new StringBuilder("{");
    for (int i = 0; i < keys; i++) {
      json.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":1");
    }
    return json.append("}").toString();
  }

  static Stream<Arguments> refusedCreations() {
    return Stream.of(
        Arguments.of("{}", "name"),
        Arguments.of("{\"name\":null}", "name"),
        Arguments.of("{\"name\":\"\"}", "name"),
        Arguments.of(with("name", "n".repeat(201)), "name"),
        Arguments.of("{\"name\":7}", "name"),
        Arguments.of(with("description", "d".repeat(2001)), "description"),
        Arguments.of(with("price", -0.01), "price"),
        Arguments.of("{\"name\":\"Mug\",\"price\":0.001}", "price"),
        Arguments.of("{\"name\":\"Mug\",\"price\":\"10\"}", "price"),
        Arguments.of("{\"name\":\"Mug\",\"price\":999999999999.01}", "price"),
        Arguments.of(with("currency", "php"), "currency"),
        Arguments.of(with("currency", "PHPX"), "currency"),
        Arguments.of(with("currency", "PH"), "currency"),
        Arguments.of(with("sku", ""), "sku"),
        Arguments.of(with("sku", "s".repeat(81)), "sku"),
        Arguments.of(with("barcode", ""), "barcode"),
        Arguments.of(with("barcode", "1".repeat(81)), "barcode"),
        Arguments.of(with("image_url", "ftp://img.example/a.png"), "image_url"),
        Arguments.of(with("image_url", "not a uri"), "image_url"),
        Arguments.of(with("track_inventory", "yes"), "track_inventory"),
        Arguments.of(with("stock", -1), "stock"),
        Arguments.of("{\"name\":\"Mug\",\"stock\":1.5}", "stock"),
        Arguments.of(with("stock", 1_000_000_001), "stock"),
        Arguments.of(with("low_stock_threshold", -1), "low_stock_threshold"),
        Arguments.of(with("category", ""), "category"),
        Arguments.of(with("category", "c".repeat(101)), "category"),
        Arguments.of("{\"name\":\"Mug\",\"metadata\":" + metadata(51) + "}", "metadata"),
        Arguments.of("{\"name\":\"Mug\",\"metadata\":[]}", "metadata"),
        Arguments.of(with("archived", true), "archived"),
        Arguments.of(with("in_stock", true), "in_stock"));
  }

  @ParameterizedTest(name = "[{index}] refused on {1}")
  @MethodSource("refusedCreations")
  void eachCreationRuleNamesItsField(String body, String field) {
    Http.Response response = http().post("/v1/products", merchant.testSecret(), body);
    assertEquals(400, response.status(), response.body());
    assertEquals("invalid_request", response.errorCode());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  static Stream<String> acceptedCreations() {
    return Stream.of(
        "{\"name\":\"M\"}",
        with("name", "n".repeat(200)),
        with("name", "😀".repeat(200)),
        with("description", "d".repeat(2000)),
        with("description", ""),
        with("price", 0),
        "{\"name\":\"Mug\",\"price\":999999999999}",
        "{\"name\":\"Mug\",\"price\":0.01,\"currency\":\"USD\"}",
        "{\"name\":\"Mug\",\"price\":null,\"description\":null,\"sku\":null,\"barcode\":null}",
        with("sku", "s".repeat(80)),
        with("barcode", "1".repeat(80)),
        with("image_url", "https://img.example/" + "a".repeat(100) + ".png"),
        with("stock", 0),
        with("stock", 1_000_000_000),
        with("low_stock_threshold", 0),
        with("category", "c".repeat(100)),
        "{\"name\":\"Mug\",\"track_inventory\":true,\"metadata\":" + metadata(50) + "}");
  }

  @ParameterizedTest(name = "[{index}] accepted")
  @MethodSource("acceptedCreations")
  void bodiesAtTheLimitsAreAccepted(String body) {
    Http.Response response = http().post("/v1/products", merchant.testSecret(), body);
    assertEquals(202, response.status(), response.body());
    assertEquals("product", response.json().get("object").asText());
    assertTrue(response.json().get("id").asText().startsWith("prd_"));
    assertTrue(response.header("Location").orElse("").startsWith("/v1/products/prd_"));
  }

  @ParameterizedTest(name = "update {0} refused on {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"name\":null}                 | name",
        "{\"name\":\"\"}                 | name",
        "{\"currency\":null}             | currency",
        "{\"track_inventory\":null}      | track_inventory",
        "{\"stock\":null}                | stock",
        "{\"stock\":-1}                  | stock",
        "{\"archived\":null}             | archived",
        "{\"archived\":\"yes\"}          | archived",
        "{\"metadata\":null}             | metadata",
        "{\"price\":-1}                  | price",
        "{\"sku\":\"\"}                  | sku",
        "{\"low_stock_threshold\":-1}    | low_stock_threshold",
        "{\"id\":\"prd_x\"}              | id"
      })
  void eachUpdateRuleNamesItsField(String body, String field) {
    for (String method : List.of("PATCH", "POST")) {
      Http.Response response =
          http().send(method, "/v1/products/" + PRODUCT, merchant.testSecret(), body.strip());
      assertEquals(400, response.status(), method + " " + response.body());
      assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
    }
  }

  @ParameterizedTest(name = "update {0} passes validation")
  @ValueSource(
      strings = {
        "{}",
        "{\"description\":null,\"price\":null,\"sku\":null,\"barcode\":null,\"image_url\":null,"
            + "\"category\":null,\"low_stock_threshold\":null}",
        "{\"archived\":true,\"stock\":5,\"name\":\"Cup\"}"
      })
  void validUpdatesReachTheOwner(String body) {
    // No payments-service runs here: the command is sent and its reply is late (503).
    for (String method : List.of("PATCH", "POST")) {
      Http.Response response =
          http().send(method, "/v1/products/" + PRODUCT, merchant.testSecret(), body);
      assertEquals(503, response.status(), method + " " + response.body());
    }
  }

  @ParameterizedTest(name = "adjustment {0} refused on {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{}                                   | quantity",
        "{\"reason\":\"count\"}               | quantity",
        "{\"quantity\":0}                     | quantity",
        "{\"quantity\":1.5}                   | quantity",
        "{\"quantity\":\"1\"}                 | quantity",
        "{\"quantity\":-1000000001}           | quantity",
        "{\"quantity\":1,\"set\":2}           | set",
        "{\"set\":-1}                         | set",
        "{\"set\":1000000001}                 | set",
        "{\"quantity\":1,\"reason\":\"\"}     | reason",
        "{\"quantity\":1,\"note\":\"x\"}      | note"
      })
  void eachAdjustmentRuleNamesItsField(String body, String field) {
    Http.Response response =
        http()
            .post(
                "/v1/products/" + PRODUCT + "/stock_adjustments",
                merchant.testSecret(),
                body.strip());
    assertEquals(400, response.status(), response.body());
    assertEquals("invalid_request", response.errorCode());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  @Test
  void adjustmentsAtTheLimitsReachTheOwner() {
    for (String body :
        List.of(
            "{\"quantity\":-1,\"reason\":\"sold\"}",
            "{\"quantity\":1000000000}",
            "{\"set\":0}",
            "{\"set\":1000000000,\"reason\":\"" + "r".repeat(500) + "\"}")) {
      Http.Response response =
          http()
              .post("/v1/products/" + PRODUCT + "/stock_adjustments", merchant.testSecret(), body);
      assertEquals(503, response.status(), body + " " + response.body());
    }
    Http.Response tooLong =
        http()
            .post(
                "/v1/products/" + PRODUCT + "/stock_adjustments",
                merchant.testSecret(),
                "{\"quantity\":1,\"reason\":\"" + "r".repeat(501) + "\"}");
    assertEquals(400, tooLong.status());
  }

  @ParameterizedTest(name = "GET /v1/products?{0} is refused on {1}")
  @CsvSource({
    "archived=yes, archived",
    "in_stock=1, in_stock",
    "low_stock=TRUE, low_stock",
    "category=, category",
    "q=, q",
    "limit=101, limit",
    "starting_after=x, starting_after"
  })
  void listParametersAreChecked(String query, String field) {
    Http.Response response = http().get("/v1/products?" + query, merchant.testSecret());
    assertEquals(400, response.status(), response.body());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  @Test
  void longListParametersAreChecked() {
    assertEquals(
        400,
        http().get("/v1/products?category=" + "c".repeat(101), merchant.testSecret()).status());
    assertEquals(
        400, http().get("/v1/products?q=" + "q".repeat(201), merchant.testSecret()).status());
  }

  @ParameterizedTest(name = "{0} {1} is 404")
  @CsvSource({
    "GET, /v1/products/prd_x",
    "GET, /v1/products/pay_01jd3k4m5n6p7q8r9s0t1v2w3x",
    "PATCH, /v1/products/prd_x",
    "POST, /v1/products/prd_x",
    "POST, /v1/products/cus_01jd3k4m5n6p7q8r9s0t1v2w3x",
    "POST, /v1/products/prd_x/stock_adjustments"
  })
  void malformedIdsAreNotFound(String method, String path) {
    Http.Response response =
        http().send(method, path, merchant.testSecret(), "{\"quantity\":1,\"name\":\"x\"}");
    assertEquals(404, response.status(), response.body());
    assertEquals("not_found", response.errorCode());
  }

  @Test
  void scopesAreRequired() {
    Operator.Key readOnly = operator().createKey(merchant.id(), "test", List.of("products:read"));
    Operator.Key paymentsOnly =
        operator().createKey(merchant.id(), "test", List.of("payments:read", "payments:write"));
    for (Operator.Key key : List.of(readOnly, paymentsOnly)) {
      Http.Response create = http().post("/v1/products", key.secret(), "{\"name\":\"Mug\"}");
      assertEquals(403, create.status());
      assertEquals("insufficient_scope", create.errorCode());
      assertEquals(
          403,
          http()
              .send("PATCH", "/v1/products/" + PRODUCT, key.secret(), "{\"name\":\"x\"}")
              .status());
      assertEquals(
          403, http().post("/v1/products/" + PRODUCT, key.secret(), "{\"name\":\"x\"}").status());
      assertEquals(
          403,
          http()
              .post(
                  "/v1/products/" + PRODUCT + "/stock_adjustments",
                  key.secret(),
                  "{\"quantity\":1}")
              .status());
    }
    assertEquals(403, http().get("/v1/products", paymentsOnly.secret()).status());
    assertEquals(403, http().get("/v1/products/" + PRODUCT, paymentsOnly.secret()).status());
    // products:read passes the scope check (the owner is not running here: 503, not 403).
    assertNotEquals(403, http().get("/v1/products", readOnly.secret()).status());
    Operator.Key writer = operator().createKey(merchant.id(), "test", List.of("products:write"));
    assertEquals(202, http().post("/v1/products", writer.secret(), "{\"name\":\"Mug\"}").status());
  }

  @Test
  void aCreationWithAnIdempotencyKeyIsSentOnce() {
    String key = "product-create-" + System.nanoTime();
    Http.Response first =
        http()
            .post(
                "/v1/products",
                merchant.testSecret(),
                "{\"name\":\"Once\"}",
                "Idempotency-Key",
                key);
    assertEquals(202, first.status(), first.body());
    Http.Response again =
        http()
            .post(
                "/v1/products",
                merchant.testSecret(),
                "{\"name\":\"Once\"}",
                "Idempotency-Key",
                key);
    assertEquals(202, again.status(), again.body());
    assertEquals(first.json().get("id"), again.json().get("id"));
    Http.Response other =
        http()
            .post(
                "/v1/products",
                merchant.testSecret(),
                "{\"name\":\"Twice\"}",
                "Idempotency-Key",
                key);
    assertEquals(409, other.status(), other.body());
  }
}
