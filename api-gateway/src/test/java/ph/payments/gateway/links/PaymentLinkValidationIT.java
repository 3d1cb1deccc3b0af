package ph.payments.gateway.links;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
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
 * The payment link routes' body rules and limits at their edges (SPEC parts 2 and 8), list
 * parameters, ids, scopes and the command path, over real HTTP. A rejected request never reaches
 * payments-service (none runs here); a valid creation is accepted as a command and times out (202
 * with the id), a valid update times out with 503, as in {@code ProductValidationIT}.
 */
@MicronautTest
class PaymentLinkValidationIT extends GatewayTest {

  private static final String LINK = "plk_01jd3k4m5n6p7q8r9s0t1v2w3x";
  private static final String URL = "https://shop.example/";

  private Operator.Merchant merchant;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("gateway.commands.reply-timeout", "200ms");
  }

  @BeforeAll
  void merchant() {
    merchant = operator().createMerchant("Link Store");
    operator().setRateLimit(merchant.testKeyId(), 10_000);
  }

  private static String with(String field, Object value) {
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("description", "Donation");
    body.set(field, Json.mapper().valueToTree(value));
    return Json.toText(body);
  }

  private static String url(int length) {
    return URL + "a".repeat(length - URL.length());
  }

  private static String at(Instant instant) {
    return OffsetDateTime.ofInstant(instant, ZoneOffset.ofHours(8)).toString();
  }

  static Stream<Arguments> refusedCreations() {
    return Stream.of(
        Arguments.of("{}", "description"),
        Arguments.of("{\"description\":null}", "description"),
        Arguments.of("{\"description\":\"\"}", "description"),
        Arguments.of(with("description", "d".repeat(501)), "description"),
        Arguments.of("{\"description\":7}", "description"),
        Arguments.of(with("amount", 0), "amount"),
        Arguments.of(with("amount", -1), "amount"),
        Arguments.of("{\"description\":\"x\",\"amount\":0.001}", "amount"),
        Arguments.of("{\"description\":\"x\",\"amount\":999999999999.01}", "amount"),
        Arguments.of("{\"description\":\"x\",\"amount\":\"10\"}", "amount"),
        Arguments.of(with("currency", "php"), "currency"),
        Arguments.of(with("currency", "PHPX"), "currency"),
        Arguments.of(with("currency", "PH"), "currency"),
        Arguments.of(with("method", ""), "method"),
        Arguments.of(with("method", "m".repeat(41)), "method"),
        Arguments.of(with("method", 1), "method"),
        Arguments.of(with("image_url", "ftp://img.example/a.png"), "image_url"),
        Arguments.of(with("image_url", url(2049)), "image_url"),
        Arguments.of(with("success_url", "not a uri"), "success_url"),
        Arguments.of(with("success_url", "/relative"), "success_url"),
        Arguments.of(with("cancel_url", "javascript:alert(1)"), "cancel_url"),
        Arguments.of(with("expires_at", "2030-01-01"), "expires_at"),
        Arguments.of(with("expires_at", "2030-01-01T08:00:00"), "expires_at"),
        Arguments.of(with("expires_at", 1893456000), "expires_at"),
        Arguments.of(with("expires_at", "yesterday"), "expires_at"),
        Arguments.of(with("expires_at", at(Instant.now().minusSeconds(60))), "expires_at"),
        Arguments.of(with("customer_id", "cust_1"), "customer_id"),
        Arguments.of(with("customer_id", "prd_01jd3k4m5n6p7q8r9s0t1v2w3x"), "customer_id"),
        Arguments.of("{\"description\":\"x\",\"metadata\":[]}", "metadata"),
        Arguments.of(with("status", "active"), "status"),
        Arguments.of(with("usage_count", 3), "usage_count"),
        Arguments.of(with("url", "https://x.example"), "url"));
  }

  @ParameterizedTest(name = "[{index}] refused on {1}")
  @MethodSource("refusedCreations")
  void eachCreationRuleNamesItsField(String body, String field) {
    Http.Response response = http().post("/v1/payment_links", merchant.testSecret(), body);
    assertEquals(400, response.status(), response.body());
    assertEquals("invalid_request", response.errorCode());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  static Stream<String> acceptedCreations() {
    return Stream.of(
        "{\"description\":\"D\"}",
        with("description", "d".repeat(500)),
        with("description", "😀".repeat(500)),
        with("amount", 0.01),
        "{\"description\":\"x\",\"amount\":999999999999}",
        "{\"description\":\"x\",\"amount\":null,\"method\":null}",
        "{\"description\":\"x\",\"amount\":150.5,\"currency\":\"USD\"}",
        with("method", "m"),
        with("method", "m".repeat(40)),
        with("image_url", url(2048)),
        with("success_url", "http://localhost:3000/done"),
        with("cancel_url", "https://shop.example/cart?x=1"),
        with("expires_at", at(Instant.now().plusSeconds(120))),
        with("expires_at", "2099-12-31T23:59:59Z"),
        with("customer_id", "cus_01jd3k4m5n6p7q8r9s0t1v2w3x"),
        "{\"description\":\"x\",\"metadata\":{\"order\":\"A-1\"}}");
  }

  @ParameterizedTest(name = "[{index}] accepted")
  @MethodSource("acceptedCreations")
  void bodiesAtTheLimitsAreAccepted(String body) {
    Http.Response response = http().post("/v1/payment_links", merchant.testSecret(), body);
    assertEquals(202, response.status(), response.body());
    assertEquals("payment_link", response.json().get("object").asText());
    assertTrue(response.json().get("id").asText().startsWith("plk_"));
    assertTrue(response.header("Location").orElse("").startsWith("/v1/payment_links/plk_"));
  }

  @ParameterizedTest(name = "update {0} refused on {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"description\":null}          | description",
        "{\"description\":\"\"}          | description",
        "{\"currency\":null}             | currency",
        "{\"status\":null}               | status",
        "{\"status\":\"paused\"}         | status",
        "{\"metadata\":null}             | metadata",
        "{\"amount\":0}                  | amount",
        "{\"method\":\"\"}               | method",
        "{\"cancel_url\":\"nope\"}       | cancel_url",
        "{\"expires_at\":\"2099-01-01T00:00:00Z\"} | expires_at",
        "{\"customer_id\":\"cus_01jd3k4m5n6p7q8r9s0t1v2w3x\"} | customer_id",
        "{\"id\":\"plk_x\"}              | id"
      })
  void eachUpdateRuleNamesItsField(String body, String field) {
    for (String method : List.of("PATCH", "POST")) {
      Http.Response response =
          http().send(method, "/v1/payment_links/" + LINK, merchant.testSecret(), body.strip());
      assertEquals(400, response.status(), method + " " + response.body());
      assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
    }
  }

  @ParameterizedTest(name = "update {0} passes validation")
  @ValueSource(
      strings = {
        "{}",
        "{\"amount\":null,\"method\":null,\"image_url\":null,\"success_url\":null,"
            + "\"cancel_url\":null}",
        "{\"status\":\"inactive\",\"description\":\"New\",\"amount\":1,\"currency\":\"USD\"}",
        "{\"status\":\"active\",\"metadata\":{}}"
      })
  void validUpdatesReachTheOwner(String body) {
    for (String method : List.of("PATCH", "POST")) {
      Http.Response response =
          http().send(method, "/v1/payment_links/" + LINK, merchant.testSecret(), body);
      assertEquals(503, response.status(), method + " " + response.body());
    }
  }

  @ParameterizedTest(name = "GET /v1/payment_links?{0} is refused on {1}")
  @CsvSource({
    "status=open, status",
    "status=, status",
    "limit=0, limit",
    "limit=101, limit",
    "starting_after=x, starting_after"
  })
  void listParametersAreChecked(String query, String field) {
    Http.Response response = http().get("/v1/payment_links?" + query, merchant.testSecret());
    assertEquals(400, response.status(), response.body());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  @ParameterizedTest(name = "{0} {1} is 404")
  @CsvSource({
    "GET, /v1/payment_links/plk_x",
    "GET, /v1/payment_links/pay_01jd3k4m5n6p7q8r9s0t1v2w3x",
    "PATCH, /v1/payment_links/plk_x",
    "POST, /v1/payment_links/plk_x",
    "POST, /v1/payment_links/sqr_01jd3k4m5n6p7q8r9s0t1v2w3x"
  })
  void malformedIdsAreNotFound(String method, String path) {
    Http.Response response =
        http().send(method, path, merchant.testSecret(), "{\"description\":\"x\"}");
    assertEquals(404, response.status(), response.body());
    assertEquals("not_found", response.errorCode());
  }

  @Test
  void scopesAreRequired() {
    Operator.Key readOnly =
        operator().createKey(merchant.id(), "test", List.of("payment_links:read"));
    Operator.Key paymentsOnly =
        operator().createKey(merchant.id(), "test", List.of("payments:read", "payments:write"));
    for (Operator.Key key : List.of(readOnly, paymentsOnly)) {
      Http.Response create =
          http().post("/v1/payment_links", key.secret(), "{\"description\":\"x\"}");
      assertEquals(403, create.status());
      assertEquals("insufficient_scope", create.errorCode());
      assertEquals(
          403,
          http()
              .send("PATCH", "/v1/payment_links/" + LINK, key.secret(), "{\"description\":\"x\"}")
              .status());
      assertEquals(
          403,
          http()
              .post("/v1/payment_links/" + LINK, key.secret(), "{\"description\":\"x\"}")
              .status());
    }
    assertEquals(403, http().get("/v1/payment_links", paymentsOnly.secret()).status());
    assertEquals(403, http().get("/v1/payment_links/" + LINK, paymentsOnly.secret()).status());
    // payment_links:read passes the scope check (the owner is not running here: not 403).
    assertNotEquals(403, http().get("/v1/payment_links", readOnly.secret()).status());
    Operator.Key writer =
        operator().createKey(merchant.id(), "test", List.of("payment_links:write"));
    assertEquals(
        202, http().post("/v1/payment_links", writer.secret(), "{\"description\":\"x\"}").status());
  }

  @Test
  void aCreationWithAnIdempotencyKeyIsSentOnce() {
    String key = "link-create-" + System.nanoTime();
    Http.Response first =
        http()
            .post(
                "/v1/payment_links",
                merchant.testSecret(),
                "{\"description\":\"Once\"}",
                "Idempotency-Key",
                key);
    assertEquals(202, first.status(), first.body());
    Http.Response again =
        http()
            .post(
                "/v1/payment_links",
                merchant.testSecret(),
                "{\"description\":\"Once\"}",
                "Idempotency-Key",
                key);
    assertEquals(202, again.status(), again.body());
    assertEquals(first.json().get("id"), again.json().get("id"));
    Http.Response other =
        http()
            .post(
                "/v1/payment_links",
                merchant.testSecret(),
                "{\"description\":\"Twice\"}",
                "Idempotency-Key",
                key);
    assertEquals(409, other.status(), other.body());
  }
}
