package ph.payments.gateway.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.util.List;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;

/** SPEC part 5 over real HTTP: keys, environments, merchant state, scopes and the key-id hint. */
@MicronautTest
class AuthenticationIT extends GatewayTest {

  private static final String READ = "/v1/test_probe";
  private static final String WRITE = "/v1/test_probe/write";

  @Test
  void aMissingMalformedOrUnknownKeyIsUnauthenticated() {
    Http http = http();
    assertUnauthenticated(http.get(READ, null));
    assertUnauthenticated(http.get(READ, null, "Authorization", "Basic dXNlcjpwYXNz"));
    assertUnauthenticated(http.get(READ, "pk_test_not_a_secret_key"));
    assertUnauthenticated(http.get(READ, "sk_test_" + "A".repeat(43)));
    assertUnauthenticated(http.get(READ, "sk_live_" + "A".repeat(43)));
  }

  @Test
  void theEnvironmentComesFromTheKeyPrefix() {
    Operator.Merchant merchant = operator().createMerchant("Prefix Store");
    Operator.Key live = operator().activate(merchant.id());

    Http.Response test = http().get(READ, merchant.testSecret());
    assertEquals(200, test.status(), test.body());
    assertEquals("test", test.json().get("environment").asText());
    assertEquals(merchant.id(), test.json().get("merchant_id").asText());

    Http.Response production = http().get(READ, live.secret());
    assertEquals(200, production.status(), production.body());
    assertEquals("live", production.json().get("environment").asText());
  }

  @Test
  void aRevokedKeyIsUnauthenticatedAndOtherKeysKeepWorking() {
    Operator.Merchant merchant = operator().createMerchant("Rotating Store");
    Operator.Key next = operator().createKey(merchant.id(), "test", List.of("*"));
    assertEquals(200, http().get(READ, merchant.testSecret()).status());

    operator().revoke(merchant.testKeyId());

    assertUnauthenticated(http().get(READ, merchant.testSecret()));
    assertEquals(200, http().get(READ, next.secret()).status(), "rotation without downtime");
  }

  @Test
  void aDeactivatedMerchantIsRefused() {
    Operator.Merchant merchant = operator().createMerchant("Closed Store");
    // Used first, so that the key and its merchant are in the authenticated-key cache.
    assertEquals(200, http().get(READ, merchant.testSecret()).status());
    operator().deactivate(merchant.id());
    Http.Response response = http().get(READ, merchant.testSecret());
    assertEquals(403, response.status());
    assertEquals("merchant_inactive", response.errorCode());

    operator().reactivate(merchant.id());
    assertEquals(200, http().get(READ, merchant.testSecret()).status());
  }

  @Test
  void aLiveKeyOfAMerchantNotYetLiveIsRefused() {
    Operator.Merchant merchant = operator().createMerchant("Early Store");
    Operator.Key live = operator().createKey(merchant.id(), "live", List.of("*"));
    Http.Response response = http().get(READ, live.secret());
    assertEquals(403, response.status());
    assertEquals("merchant_not_live", response.errorCode());

    operator().activate(merchant.id());
    assertEquals(200, http().get(READ, live.secret()).status());
  }

  @Test
  void scopesDecideWhatAKeyMayDo() {
    Operator.Merchant merchant = operator().createMerchant("Scoped Store");
    Operator.Key readOnly = operator().createKey(merchant.id(), "test", List.of("payments:read"));
    Operator.Key writeOnly = operator().createKey(merchant.id(), "test", List.of("payments:write"));
    Operator.Key refunds = operator().createKey(merchant.id(), "test", List.of("refunds:write"));

    assertEquals(200, http().get(READ, readOnly.secret()).status());
    assertInsufficientScope(http().post(WRITE, readOnly.secret(), "{}"));
    assertInsufficientScope(http().get(READ, writeOnly.secret()));
    assertEquals(200, http().post(WRITE, writeOnly.secret(), "{}").status());
    assertInsufficientScope(http().get(READ, refunds.secret()));
    assertInsufficientScope(http().post(WRITE, refunds.secret(), "{}"));
    assertEquals(200, http().get(READ, merchant.testSecret()).status(), "* grants everything");
    assertEquals(200, http().post(WRITE, merchant.testSecret(), "{}").status());
  }

  @Test
  void aRouteWithoutADeclaredScopeFailsClosed() {
    Operator.Merchant merchant = operator().createMerchant("Closed By Default");
    assertInsufficientScope(http().get("/v1/test_probe/undeclared", merchant.testSecret()));
  }

  @Test
  void theKeyIdHintFindsTheKeyButNeverAuthenticatesAnotherOne() {
    Operator.Merchant merchant = operator().createMerchant("Hinted Store");
    Operator.Key other = operator().createKey(merchant.id(), "test", List.of("*"));
    String header = ApiKeyAuthentication.KEY_ID_HEADER;

    Http.Response right = http().get(READ, merchant.testSecret(), header, merchant.testKeyId());
    assertEquals(200, right.status());
    assertEquals(merchant.testKeyId(), right.json().get("api_key_id").asText());

    assertUnauthenticated(http().get(READ, merchant.testSecret(), header, other.id()));
    assertUnauthenticated(http().get(READ, merchant.testSecret(), header, "key_nonsense"));
    assertUnauthenticated(http().get(READ, merchant.testSecret(), header, "mer_" + "0".repeat(26)));
  }

  @Test
  void sandboxOnlyRoutesDoNotExistForLiveKeys() {
    Operator.Merchant merchant = operator().createMerchant("Sandbox Store");
    Operator.Key live = operator().activate(merchant.id());
    assertEquals(200, http().get("/v1/test_probe/sandbox", merchant.testSecret()).status());
    Http.Response response = http().get("/v1/test_probe/sandbox", live.secret());
    assertEquals(404, response.status());
    assertEquals("not_found", response.errorCode());
  }

  @Test
  void unknownRoutesAndWrongMethodsAnswerInTheEnvelope() {
    Operator.Merchant merchant = operator().createMerchant("Lost Store");
    Http.Response unknown = http().get("/v1/nothing_here", merchant.testSecret());
    assertEquals(404, unknown.status());
    assertEquals("not_found", unknown.errorCode());

    Http.Response wrongMethod = http().send("DELETE", READ, merchant.testSecret(), null);
    assertEquals(405, wrongMethod.status());
    assertEquals("invalid_request", wrongMethod.errorCode());
    assertNull(wrongMethod.json().at("/error/issues").textValue());
  }

  @Test
  void aSecretIsShownOnlyWhenCreated() {
    Operator.Merchant merchant = operator().createMerchant("Secretive Store");
    assertTrue(merchant.testSecret().startsWith("sk_test_"));
    assertTrue(merchant.testSecret().length() >= 8 + 43, "at least 192 random bits");
    Http.Response read = http().get("/admin/v1/merchants/" + merchant.id(), ADMIN_TOKEN);
    assertEquals(200, read.status());
    assertFalse(read.body().contains(merchant.testSecret()));
    assertFalse(read.json().get("api_keys").get(0).has("secret"));
    assertEquals(
        merchant.testSecret().substring(merchant.testSecret().length() - 4),
        read.json().get("api_keys").get(0).get("secret_last4").asText());
  }

  @Test
  void theOperatorApiNeedsTheAdminTokenAndValidatesItsInput() {
    Http.Response anonymous = http().post("/admin/v1/merchants", null, "{\"name\":\"x\"}");
    assertEquals(401, anonymous.status());
    assertEquals("unauthenticated", anonymous.errorCode());
    Operator.Merchant merchant = operator().createMerchant("Admin Key Store");
    assertUnauthenticated(http().post("/admin/v1/merchants", merchant.testSecret(), "{}"));

    Http.Response invalid =
        http().post("/admin/v1/merchants", ADMIN_TOKEN, "{\"email\":\"not-an-email\",\"x\":1}");
    assertEquals(400, invalid.status());
    assertEquals("invalid_request", invalid.errorCode());
    assertTrue(invalid.json().at("/error/issues/name").isTextual());
    assertTrue(invalid.json().at("/error/issues/email").isTextual());
    assertTrue(invalid.json().at("/error/issues/x").isTextual());

    Http.Response missing = http().post("/admin/v1/merchants/mer_nope/activate", ADMIN_TOKEN, null);
    assertEquals(404, missing.status());
    assertEquals("not_found", missing.errorCode());
  }

  private static void assertUnauthenticated(Http.Response response) {
    assertEquals(401, response.status(), response.body());
    assertEquals("unauthenticated", response.errorCode());
  }

  private static void assertInsufficientScope(Http.Response response) {
    assertEquals(403, response.status(), response.body());
    assertEquals("insufficient_scope", response.errorCode());
  }
}
