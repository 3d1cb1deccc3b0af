package ph.payments.gateway.idempotency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import ph.payments.platform.json.Json;

class RequestFingerprintTest {

  private static String fingerprint(String path, String json) {
    return RequestFingerprint.of("POST", path, Json.tree(json));
  }

  @Test
  void whitespaceAndKeyOrderDoNotMatter() {
    String a =
        fingerprint(
            "/v1/payments", "{\"amount\":10.50,\"meta\":{\"a\":1,\"b\":[1,{\"y\":2,\"x\":3}]}}");
    String b =
        fingerprint(
            "/v1/payments",
            "{\n  \"meta\" : { \"b\" : [ 1, { \"x\" : 3, \"y\" : 2 } ], \"a\" : 1 },\n"
                + "  \"amount\" : 10.50\n}");
    assertEquals(a, b);
    assertTrue(a.matches("[0-9a-f]{64}"));
  }

  @Test
  void numbersCompareByValue() {
    assertEquals(fingerprint("/p", "{\"a\":100}"), fingerprint("/p", "{\"a\":100.00}"));
    assertEquals(fingerprint("/p", "{\"a\":100}"), fingerprint("/p", "{\"a\":1E+2}"));
    assertEquals(fingerprint("/p", "{\"a\":0}"), fingerprint("/p", "{\"a\":0.00}"));
    assertNotEquals(fingerprint("/p", "{\"a\":100}"), fingerprint("/p", "{\"a\":100.01}"));
    assertNotEquals(fingerprint("/p", "{\"a\":100}"), fingerprint("/p", "{\"a\":\"100\"}"));
  }

  @Test
  void methodPathAndContentAllCount() {
    String body = "{\"amount\":10,\"lines\":[1,2]}";
    String base = fingerprint("/v1/payments", body);
    assertNotEquals(base, fingerprint("/v1/payouts", body));
    assertNotEquals(base, RequestFingerprint.of("PUT", "/v1/payments", Json.tree(body)));
    assertNotEquals(base, fingerprint("/v1/payments", "{\"amount\":10,\"lines\":[2,1]}"));
    assertNotEquals(
        base, fingerprint("/v1/payments", "{\"amount\":10,\"lines\":[1,2],\"x\":null}"));
    assertNotEquals(fingerprint("/p", "{\"a\":\"x\"}"), fingerprint("/p", "{\"a\":\"x \"}"));
  }

  @Test
  void canonicalJsonIsCompactSortedAndEscaped() {
    assertEquals(
        "{\"a\":[true,null,\"q\\\"\\n\"],\"b\":1.5}",
        RequestFingerprint.canonicalJson(
            Json.tree("{ \"b\": 1.50, \"a\": [true, null, \"q\\\"\\n\"] }")));
  }
}
