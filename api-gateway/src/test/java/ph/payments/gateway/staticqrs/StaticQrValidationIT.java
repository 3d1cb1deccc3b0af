package ph.payments.gateway.staticqrs;

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
 * The static QR routes' body rules and limits at their edges (SPEC parts 2 and 8), the archive
 * action, list parameters, ids, scopes and the command path, over real HTTP. No payments-service
 * runs here: a valid creation answers 202, a valid update or archive 503.
 */
@MicronautTest
class StaticQrValidationIT extends GatewayTest {

  private static final String QR = "sqr_01jd3k4m5n6p7q8r9s0t1v2w3x";

  private Operator.Merchant merchant;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("gateway.commands.reply-timeout", "200ms");
  }

  @BeforeAll
  void merchant() {
    merchant = operator().createMerchant("QR Store");
    operator().setRateLimit(merchant.testKeyId(), 10_000);
  }

  private static String with(String field, Object value) {
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("name", "Counter 1");
    body.set(field, Json.mapper().valueToTree(value));
    return Json.toText(body);
  }

  static Stream<Arguments> refusedCreations() {
    return Stream.of(
        Arguments.of("{}", "name"),
        Arguments.of("{\"name\":null}", "name"),
        Arguments.of("{\"name\":\"\"}", "name"),
        Arguments.of(with("name", "n".repeat(121)), "name"),
        Arguments.of("{\"name\":1}", "name"),
        Arguments.of(with("reference", ""), "reference"),
        Arguments.of(with("reference", "r".repeat(61)), "reference"),
        Arguments.of(with("location", "l".repeat(201)), "location"),
        Arguments.of(with("location", 5), "location"),
        Arguments.of(with("default_method", ""), "default_method"),
        Arguments.of(with("default_method", "m".repeat(41)), "default_method"),
        Arguments.of(with("currency", "php"), "currency"),
        Arguments.of(with("currency", "PH"), "currency"),
        Arguments.of(with("currency", "PHPX"), "currency"),
        Arguments.of(with("archived", true), "archived"),
        Arguments.of(with("payment_link_id", "plk_01jd3k4m5n6p7q8r9s0t1v2w3x"), "payment_link_id"),
        Arguments.of(with("metadata", Map.of()), "metadata"));
  }

  @ParameterizedTest(name = "[{index}] refused on {1}")
  @MethodSource("refusedCreations")
  void eachCreationRuleNamesItsField(String body, String field) {
    Http.Response response = http().post("/v1/static_qrs", merchant.testSecret(), body);
    assertEquals(400, response.status(), response.body());
    assertEquals("invalid_request", response.errorCode());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  static Stream<String> acceptedCreations() {
    return Stream.of(
        "{\"name\":\"N\"}",
        with("name", "n".repeat(120)),
        with("name", "😀".repeat(120)),
        with("reference", "r"),
        with("reference", "r".repeat(60)),
        with("location", ""),
        with("location", "l".repeat(200)),
        with("default_method", "m"),
        with("default_method", "m".repeat(40)),
        with("currency", "USD"),
        "{\"name\":\"N\",\"reference\":null,\"location\":null,\"default_method\":null}");
  }

  @ParameterizedTest(name = "[{index}] accepted")
  @MethodSource("acceptedCreations")
  void bodiesAtTheLimitsAreAccepted(String body) {
    Http.Response response = http().post("/v1/static_qrs", merchant.testSecret(), body);
    assertEquals(202, response.status(), response.body());
    assertEquals("static_qr", response.json().get("object").asText());
    assertTrue(response.json().get("id").asText().startsWith("sqr_"));
    assertTrue(response.header("Location").orElse("").startsWith("/v1/static_qrs/sqr_"));
  }

  @ParameterizedTest(name = "update {0} refused on {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"name\":null}                 | name",
        "{\"name\":\"\"}                 | name",
        "{\"currency\":null}             | currency",
        "{\"reference\":\"\"}            | reference",
        "{\"archived\":false}            | archived",
        "{\"archived\":true}             | archived",
        "{\"payment_link_id\":\"plk_1\"} | payment_link_id"
      })
  void eachUpdateRuleNamesItsField(String body, String field) {
    for (String method : List.of("PATCH", "POST")) {
      Http.Response response =
          http().send(method, "/v1/static_qrs/" + QR, merchant.testSecret(), body.strip());
      assertEquals(400, response.status(), method + " " + response.body());
      assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
    }
  }

  @ParameterizedTest(name = "update {0} passes validation")
  @ValueSource(
      strings = {
        "{}",
        "{\"reference\":null,\"location\":null,\"default_method\":null}",
        "{\"name\":\"Front\",\"currency\":\"USD\",\"location\":\"\"}"
      })
  void validUpdatesReachTheOwner(String body) {
    for (String method : List.of("PATCH", "POST")) {
      Http.Response response =
          http().send(method, "/v1/static_qrs/" + QR, merchant.testSecret(), body);
      assertEquals(503, response.status(), method + " " + response.body());
    }
  }

  @Test
  void theArchiveTakesNoBodyOrAnEmptyOne() {
    for (String body : new String[] {null, "{}"}) {
      Http.Response response =
          http().send("POST", "/v1/static_qrs/" + QR + "/archive", merchant.testSecret(), body);
      assertEquals(503, response.status(), body + " " + response.body());
    }
    Http.Response refused =
        http()
            .post(
                "/v1/static_qrs/" + QR + "/archive", merchant.testSecret(), "{\"archived\":false}");
    assertEquals(400, refused.status(), refused.body());
    assertEquals("invalid_request", refused.errorCode());
  }

  @ParameterizedTest(name = "GET /v1/static_qrs?{0} is refused on {1}")
  @CsvSource({"archived=yes, archived", "limit=101, limit", "starting_after=x, starting_after"})
  void listParametersAreChecked(String query, String field) {
    Http.Response response = http().get("/v1/static_qrs?" + query, merchant.testSecret());
    assertEquals(400, response.status(), response.body());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  @ParameterizedTest(name = "{0} {1} is 404")
  @CsvSource({
    "GET, /v1/static_qrs/sqr_x",
    "GET, /v1/static_qrs/plk_01jd3k4m5n6p7q8r9s0t1v2w3x",
    "PATCH, /v1/static_qrs/sqr_x",
    "POST, /v1/static_qrs/sqr_x",
    "POST, /v1/static_qrs/sqr_x/archive",
    "POST, /v1/static_qrs/prd_01jd3k4m5n6p7q8r9s0t1v2w3x/archive"
  })
  void malformedIdsAreNotFound(String method, String path) {
    Http.Response response = http().send(method, path, merchant.testSecret(), "{\"name\":\"x\"}");
    assertEquals(404, response.status(), response.body());
    assertEquals("not_found", response.errorCode());
  }

  @Test
  void scopesAreRequired() {
    Operator.Key readOnly = operator().createKey(merchant.id(), "test", List.of("static_qrs:read"));
    Operator.Key linksOnly =
        operator()
            .createKey(merchant.id(), "test", List.of("payment_links:read", "payment_links:write"));
    for (Operator.Key key : List.of(readOnly, linksOnly)) {
      Http.Response create = http().post("/v1/static_qrs", key.secret(), "{\"name\":\"x\"}");
      assertEquals(403, create.status());
      assertEquals("insufficient_scope", create.errorCode());
      assertEquals(
          403,
          http().send("PATCH", "/v1/static_qrs/" + QR, key.secret(), "{\"name\":\"x\"}").status());
      assertEquals(
          403, http().post("/v1/static_qrs/" + QR, key.secret(), "{\"name\":\"x\"}").status());
      assertEquals(
          403, http().post("/v1/static_qrs/" + QR + "/archive", key.secret(), "{}").status());
    }
    assertEquals(403, http().get("/v1/static_qrs", linksOnly.secret()).status());
    assertEquals(403, http().get("/v1/static_qrs/" + QR, linksOnly.secret()).status());
    assertNotEquals(403, http().get("/v1/static_qrs", readOnly.secret()).status());
    Operator.Key writer = operator().createKey(merchant.id(), "test", List.of("static_qrs:write"));
    assertEquals(202, http().post("/v1/static_qrs", writer.secret(), "{\"name\":\"x\"}").status());
    // The old singular spelling is no scope.
    assertEquals(
        400,
        http()
            .post(
                "/admin/v1/merchants/" + merchant.id() + "/api_keys",
                ADMIN_TOKEN,
                "{\"environment\":\"test\",\"scopes\":[\"static_qr:read\"]}")
            .status());
  }
}
