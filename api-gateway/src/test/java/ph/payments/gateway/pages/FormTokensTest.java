package ph.payments.gateway.pages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class FormTokensTest {

  private final FormTokens tokens = new FormTokens("http://localhost:8080");

  @Test
  void aFieldMatchesOnlyTheCookieItWasMadeFor() {
    String cookie = tokens.keepOrNew(null);
    String field = tokens.fieldFor(cookie);
    assertNotEquals(field, tokens.fieldFor(cookie), "each rendering has its own nonce");
    assertTrue(FormTokens.matching(cookie, field).isPresent());

    String other = tokens.keepOrNew(null);
    assertNotEquals(cookie, other);
    assertFalse(FormTokens.matching(other, field).isPresent(), "another browser's");
    assertFalse(FormTokens.matching(null, field).isPresent(), "no cookie");
    assertFalse(FormTokens.matching(cookie, null).isPresent(), "no field");
    assertFalse(FormTokens.matching(cookie, cookie).isPresent(), "the cookie alone");
    assertFalse(FormTokens.matching(cookie, field + "x").isPresent(), "malformed");
  }

  @Test
  void aWellFormedCookieIsKeptAndAMalformedOneReplaced() {
    String cookie = tokens.keepOrNew(null);
    assertEquals(43, cookie.length());
    assertEquals(cookie, tokens.keepOrNew(cookie));
    assertNotEquals("short", tokens.keepOrNew("short"));
  }

  @Test
  void theIdempotencyKeyIsStablePerFormAndHidesTheCookie() {
    String cookie = tokens.keepOrNew(null);
    String field = tokens.fieldFor(cookie);
    String key = FormTokens.idempotencyKey(field).value();
    assertEquals(key, FormTokens.idempotencyKey(field).value());
    assertNotEquals(key, FormTokens.idempotencyKey(tokens.fieldFor(cookie)).value());
    assertFalse(key.contains(cookie));
    assertTrue(key.startsWith("form_"));
  }
}
