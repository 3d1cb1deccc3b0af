package ph.payments.gateway.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;

/**
 * Bad input of every kind answers 400 {@code invalid_request} in the envelope, naming the field
 * where there is one: malformed JSON, wrong types, unknown fields, out-of-range values, bad list
 * parameters; oversized bodies and wrong media types use the same envelope.
 */
@MicronautTest
class EdgeValidationIT extends GatewayTest {

  private static final String BODY = "/v1/test_probe/body";
  private String key;

  @BeforeAll
  void merchant() {
    key = operator().createMerchant("Validation Store").testSecret();
  }

  @Test
  void aValidBodyPasses() {
    Http.Response ok =
        http().post(BODY, key, "{\"amount\":100.50,\"currency\":\"USD\",\"metadata\":{\"a\":1}}");
    assertEquals(200, ok.status(), ok.body());
  }

  @Test
  void malformedJsonIsInvalidRequest() {
    Http.Response response = http().post(BODY, key, "{\"amount\": 10,");
    assertInvalid(response);
  }

  @Test
  void eachBadFieldIsNamed() {
    Http.Response response =
        http()
            .post(
                BODY,
                key,
                "{\"amount\":\"10\",\"currency\":\"peso\",\"email\":\"nope\",\"url\":\"ftp://x\","
                    + "\"metadata\":[1],\"colour\":\"red\"}");
    assertInvalid(response);
    for (String field : new String[] {"amount", "currency", "email", "url", "metadata", "colour"}) {
      assertTrue(
          response.json().at("/error/issues/" + field).isTextual(), field + " in " + response);
    }
  }

  @Test
  void amountsFollowTheSpecLimits() {
    assertEquals("is required", issue(http().post(BODY, key, "{}"), "amount"));
    assertTrue(issue(http().post(BODY, key, "{\"amount\":0}"), "amount").contains("at least 0.01"));
    assertTrue(issue(http().post(BODY, key, "{\"amount\":1.005}"), "amount").contains("0.01"));
    assertTrue(
        issue(http().post(BODY, key, "{\"amount\":1000000000000}"), "amount").contains("at most"));
    assertEquals(200, http().post(BODY, key, "{\"amount\":999999999999}").status());
    assertEquals(200, http().post(BODY, key, "{\"amount\":0.01}").status());
    assertEquals(200, http().post(BODY, key, "{\"amount\":1.10}").status());
  }

  @Test
  void aBodyThatIsNotAnObjectIsInvalid() {
    assertInvalid(http().post(BODY, key, "[]"));
    assertInvalid(http().post(BODY, key, "42"));
  }

  @Test
  void anOversizedBodyUsesTheEnvelope() {
    String huge = "{\"amount\":1,\"metadata\":{\"x\":\"" + "a".repeat(1_100_000) + "\"}}";
    Http.Response response = http().post(BODY, key, huge);
    assertEquals(413, response.status());
    assertEquals("invalid_request", response.errorCode());
  }

  @Test
  void aWrongMediaTypeUsesTheEnvelope() {
    Http.Response response = http().send("POST", BODY, key, null, "Content-Type", "text/plain");
    assertTrue(response.status() == 415 || response.status() == 400, response.toString());
    assertEquals("invalid_request", response.errorCode());
  }

  @Test
  void listParametersAreCheckedTheSameWayEverywhere() {
    Http.Response defaults = http().get("/v1/test_probe/list", key);
    assertEquals(200, defaults.status());
    assertEquals(25, defaults.json().get("limit").asInt());
    assertEquals(100, http().get("/v1/test_probe/list?limit=100", key).json().get("limit").asInt());
    for (String bad : new String[] {"0", "101", "abc", "-1", "2.5"}) {
      Http.Response response = http().get("/v1/test_probe/list?limit=" + bad, key);
      assertInvalid(response);
      assertTrue(response.json().at("/error/issues/limit").isTextual(), bad);
    }
    Http.Response cursor = http().get("/v1/test_probe/list?starting_after=%27%3B--", key);
    assertInvalid(cursor);
    assertTrue(cursor.json().at("/error/issues/starting_after").isTextual());
    assertEquals(
        "pay_01jd3k4m5n6p7q8r9s0t1v2w3x",
        http()
            .get("/v1/test_probe/list?starting_after=pay_01jd3k4m5n6p7q8r9s0t1v2w3x", key)
            .json()
            .get("starting_after")
            .asText());
  }

  @Test
  void errorsOutside400CarryNoIssues() {
    Http.Response response = http().get("/v1/nothing", key);
    assertEquals(404, response.status());
    assertFalse(response.json().at("/error").has("issues"));
  }

  private static String issue(Http.Response response, String field) {
    assertInvalid(response);
    return response.json().at("/error/issues/" + field).asText();
  }

  private static void assertInvalid(Http.Response response) {
    assertEquals(400, response.status(), response.body());
    assertEquals("invalid_request", response.errorCode());
    assertTrue(response.json().at("/error/message").isTextual());
  }
}
