package ph.payments.platform.sealing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Set;
import org.junit.jupiter.api.Test;
import ph.payments.platform.json.Json;

class ReplySealerTest {

  private static final String SECRET = "whsec_Jm0o9bGm2v1w7a8Q1b2c3d4e5f6g7h8i9j0k1l2m3n4";
  private static final String COMMAND = "cmd_01jd3k4m5n6p7q8r9s0t1v2w3x";

  private final ReplySealer sealer = new ReplySealer(randomKey());

  @Test
  void aSealedValueOpensForItsCommandAndFieldAndDoesNotShowTheSecret() {
    String sealed = sealer.seal(SECRET, COMMAND, "secret");
    assertTrue(ReplySealer.isSealed(sealed), sealed);
    assertFalse(sealed.contains(SECRET));
    assertFalse(sealed.contains(SECRET.substring(6)), "not even the random part");
    assertNotEquals(sealed, sealer.seal(SECRET, COMMAND, "secret"), "a fresh nonce each time");
    assertEquals(SECRET, sealer.open(sealed, COMMAND, "secret"));
  }

  @Test
  void anotherCommandAnotherFieldAnotherKeyOrATamperedValueDoNotOpen() {
    String sealed = sealer.seal(SECRET, COMMAND, "secret");
    assertThrows(
        ReplySealer.SealedValueException.class,
        () -> sealer.open(sealed, "cmd_01jd3k4m5n6p7q8r9s0t1v2w3y", "secret"),
        "transplanted into another command's reply");
    assertThrows(
        ReplySealer.SealedValueException.class,
        () -> sealer.open(sealed, COMMAND, "description"),
        "moved to another field");
    assertThrows(
        ReplySealer.SealedValueException.class,
        () -> new ReplySealer(randomKey()).open(sealed, COMMAND, "secret"),
        "another key");
    byte[] bytes = Base64.getUrlDecoder().decode(sealed.substring(ReplySealer.PREFIX.length()));
    for (int i = 1; i < bytes.length; i += 7) {
      byte[] tampered = bytes.clone();
      tampered[i] ^= 1;
      String altered =
          ReplySealer.PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(tampered);
      assertThrows(
          ReplySealer.SealedValueException.class,
          () -> sealer.open(altered, COMMAND, "secret"),
          "byte " + i + " flipped");
    }
    assertThrows(
        ReplySealer.SealedValueException.class,
        () -> sealer.open(sealed.substring(0, sealed.length() - 4), COMMAND, "secret"),
        "truncated");
    assertThrows(
        ReplySealer.SealedValueException.class,
        () -> sealer.open(SECRET, COMMAND, "secret"),
        "a clear value is not taken for a sealed one");
  }

  @Test
  void openFieldsOpensOnlyTheNamedSealedFieldsOfACopy() {
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("id", "whe_1");
    body.put("secret", sealer.seal(SECRET, COMMAND, "secret"));
    body.put("description", "sealed:v1:not-ours");
    String before = Json.toText(body);

    JsonNode opened = sealer.openFields(body, COMMAND, Set.of("secret"));
    assertEquals(SECRET, opened.get("secret").asText());
    assertEquals("sealed:v1:not-ours", opened.get("description").asText(), "not a sealed field");
    assertEquals(before, Json.toText(body), "the stored body is not changed");

    JsonNode error = Json.tree("{\"error\":{\"code\":\"invalid_request\"}}");
    assertSame(error, sealer.openFields(error, COMMAND, Set.of("secret")));
  }

  @Test
  void theConfiguredKeyIsRequiredUnlessDevelopmentKeysAreAllowed() {
    IllegalStateException missing =
        assertThrows(IllegalStateException.class, () -> ReplySealer.configured("", false));
    assertTrue(missing.getMessage().contains("REPLY_SEALING_KEY"), missing.getMessage());
    assertThrows(IllegalStateException.class, () -> ReplySealer.configured(null, false));

    ReplySealer development = ReplySealer.configured(" ", true);
    String sealed = development.seal(SECRET, COMMAND, "secret");
    assertEquals(
        SECRET, new ReplySealer(ReplySealer.DEVELOPMENT_KEY).open(sealed, COMMAND, "secret"));

    byte[] key = randomKey();
    String standard = Base64.getEncoder().encodeToString(key);
    String urlSafe = Base64.getUrlEncoder().withoutPadding().encodeToString(key);
    String sealedWithKey = new ReplySealer(key).seal(SECRET, COMMAND, "secret");
    assertEquals(
        SECRET, ReplySealer.configured(standard, false).open(sealedWithKey, COMMAND, "secret"));
    assertEquals(
        SECRET, ReplySealer.configured(urlSafe, true).open(sealedWithKey, COMMAND, "secret"));

    String tooShort = Base64.getEncoder().encodeToString(new byte[16]);
    IllegalStateException shortKey =
        assertThrows(IllegalStateException.class, () -> ReplySealer.configured(tooShort, true));
    assertFalse(shortKey.getMessage().contains(tooShort), "the key is never in a message");
    assertThrows(IllegalStateException.class, () -> ReplySealer.configured("not base64!", true));
  }

  private static byte[] randomKey() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return key;
  }
}
