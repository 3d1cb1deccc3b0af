package ph.payments.webhooks.signing;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.stripe.net.Webhook;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import ph.payments.webhooks.verify.WebhookSignature;

/** Secrets, their encryption at rest, and signatures checked by two independent verifiers. */
class SigningTest {

  private static final String BODY =
      "{\"id\":\"evt_1\",\"object\":\"event\",\"type\":\"payment.succeeded\",\"data\":{\"object\":{\"amount\":10.50}}}";

  @Test
  void secretsHaveTheStripeCompatibleForm() {
    String secret = SigningSecrets.generate();
    assertTrue(secret.matches("whsec_[A-Za-z0-9_-]{43}"), secret);
    assertNotEquals(secret, SigningSecrets.generate());
  }

  @Test
  void ourHeaderVerifiesWithStripeAndWithTheMerchantHelper() throws Exception {
    String secret = SigningSecrets.generate();
    long t = 1_767_225_600L;
    String header = Signatures.header(t, BODY.getBytes(StandardCharsets.UTF_8), List.of(secret));
    assertTrue(header.matches("t=1767225600,v1=[0-9a-f]{64}"), header);
    Clock at = Clock.fixed(Instant.ofEpochSecond(t), ZoneOffset.UTC);
    assertTrue(Webhook.Signature.verifyHeader(BODY, header, secret, 300, at));
    assertDoesNotThrow(
        () -> WebhookSignature.verify(BODY, header, secret, 300, Instant.ofEpochSecond(t)));
  }

  @Test
  void duringARotationBothSecretsSignUntilTheOldOneExpires() throws Exception {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");
    SigningKeys keys = new SigningKeys("whsec_new", "whsec_old", now.plus(Duration.ofHours(24)));
    assertEquals(List.of("whsec_new", "whsec_old"), keys.active(now));
    assertEquals(List.of("whsec_new"), keys.active(now.plus(Duration.ofHours(24))));
    String header =
        Signatures.header(
            now.getEpochSecond(), BODY.getBytes(StandardCharsets.UTF_8), keys.active(now));
    Clock at = Clock.fixed(now, ZoneOffset.UTC);
    assertTrue(Webhook.Signature.verifyHeader(BODY, header, "whsec_old", 300, at));
    assertTrue(Webhook.Signature.verifyHeader(BODY, header, "whsec_new", 300, at));
    assertFalse(keys.toString().contains("whsec"), "keys never print");
  }

  @Test
  void sealedSecretsOpenOnlyWithTheirKeyAndRow() {
    SecretBox box = new SecretBox("key-one");
    String secret = SigningSecrets.generate();
    byte[] sealed = box.seal(secret, "endpoint:whe_a");
    assertEquals(secret, box.open(sealed, "endpoint:whe_a"));
    assertFalse(
        new String(sealed, StandardCharsets.ISO_8859_1).contains(secret.substring(6)),
        "not stored in clear");
    assertNotEquals(
        java.util.HexFormat.of().formatHex(sealed),
        java.util.HexFormat.of().formatHex(box.seal(secret, "endpoint:whe_a")),
        "a fresh nonce each time");
    IllegalStateException otherRow =
        assertThrows(IllegalStateException.class, () -> box.open(sealed, "endpoint:whe_b"));
    assertFalse(otherRow.getMessage().contains(secret));
    assertThrows(
        IllegalStateException.class, () -> new SecretBox("key-two").open(sealed, "endpoint:whe_a"));
    sealed[sealed.length - 1] ^= 1;
    assertThrows(IllegalStateException.class, () -> box.open(sealed, "endpoint:whe_a"));
  }
}
