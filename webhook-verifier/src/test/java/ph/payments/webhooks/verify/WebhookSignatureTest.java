package ph.payments.webhooks.verify;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.stripe.exception.SignatureVerificationException;
import com.stripe.net.Webhook;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import ph.payments.webhooks.verify.WebhookSignatureException.Reason;

/**
 * The verifier against an independent implementation of the same scheme: stripe-java's {@code
 * Webhook.Signature} (test scope only). Both must accept what the other signs and reject the same
 * forgeries. Where the spec is stricter than Stripe (a timestamp too far in the <em>future</em>),
 * the difference is asserted explicitly.
 */
class WebhookSignatureTest {

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final long NOW = 1_767_225_600L; // 2026-01-01T00:00:00Z
  private static final String EVENT =
      "{\"id\":\"evt_0000000000x1k00000000003f\",\"object\":\"event\",\"type\":\"payment.succeeded\","
          + "\"environment\":\"test\",\"created\":1767225600,\"data\":{\"object\":{\"id\":"
          + "\"pay_01jd3k4m5n6p7q8r9s0t1v2w3x\",\"amount\":1500.00,\"description\":\"Bánh mì ×2\"}}}";

  @Test
  void aHeaderSignedByStripeVerifies() throws Exception {
    String secret = secret();
    String header = Webhook.Signature.generateSignatureHeader(EVENT, secret, NOW);
    assertDoesNotThrow(() -> WebhookSignature.verify(EVENT, header, secret, 300, at(NOW)));
  }

  @Test
  void aHeaderWeSignVerifiesWithStripe() throws Exception {
    String secret = secret();
    String header = WebhookSignature.header(utf8(EVENT), secret, NOW);
    assertTrue(Webhook.Signature.verifyHeader(EVENT, header, secret, 300, clock(NOW)));
    assertEquals(
        Webhook.Util.computeHmacSha256(secret, NOW + "." + EVENT),
        WebhookSignature.signature(utf8(EVENT), secret, NOW));
  }

  /** Random bodies (any Unicode, any whitespace) and secrets: both sides agree both ways. */
  @RepeatedTest(200)
  void randomBodiesAndSecretsAgreeBothWays() throws Exception {
    String secret = secret();
    String body = randomBody();
    long t = NOW - RANDOM.nextInt(300);
    String ours = WebhookSignature.header(utf8(body), secret, t);
    String theirs = Webhook.Signature.generateSignatureHeader(body, secret, t);
    assertEquals(theirs, ours);
    assertTrue(Webhook.Signature.verifyHeader(body, ours, secret, 300, clock(NOW)));
    assertDoesNotThrow(() -> WebhookSignature.verify(body, theirs, secret, 300, at(NOW)));
  }

  @Test
  void anAlteredBodyIsRejectedByBoth() throws Exception {
    String secret = secret();
    String header = WebhookSignature.header(utf8(EVENT), secret, NOW);
    String altered = EVENT.replace("1500.00", "1500.0");
    assertRejected(altered, header, secret, Reason.SIGNATURE_MISMATCH);
    // Re-serialising changes bytes too: a space after a colon is another body.
    assertRejected(
        EVENT.replace("\"object\":\"event\"", "\"object\": \"event\""),
        header,
        secret,
        Reason.SIGNATURE_MISMATCH);
  }

  @Test
  void anotherSecretIsRejectedByBoth() throws Exception {
    String header = WebhookSignature.header(utf8(EVENT), secret(), NOW);
    assertRejected(EVENT, header, secret(), Reason.SIGNATURE_MISMATCH);
  }

  @Test
  void duringRotationEitherSecretVerifies() throws Exception {
    String oldSecret = secret();
    String newSecret = secret();
    String header =
        "t="
            + NOW
            + ",v1="
            + WebhookSignature.signature(utf8(EVENT), newSecret, NOW)
            + ",v1="
            + WebhookSignature.signature(utf8(EVENT), oldSecret, NOW);
    for (String secret : new String[] {oldSecret, newSecret}) {
      assertDoesNotThrow(() -> WebhookSignature.verify(EVENT, header, secret, 300, at(NOW)));
      assertTrue(Webhook.Signature.verifyHeader(EVENT, header, secret, 300, clock(NOW)));
    }
    assertRejected(EVENT, header, secret(), Reason.SIGNATURE_MISMATCH);
  }

  @Test
  void exactlyThreeHundredSecondsOldIsAcceptedAndOneMoreIsNotByEither() throws Exception {
    String secret = secret();
    String header = WebhookSignature.header(utf8(EVENT), secret, NOW - 300);
    assertDoesNotThrow(() -> WebhookSignature.verify(EVENT, header, secret, 300, at(NOW)));
    assertTrue(Webhook.Signature.verifyHeader(EVENT, header, secret, 300, clock(NOW)));

    String stale = WebhookSignature.header(utf8(EVENT), secret, NOW - 301);
    assertRejected(EVENT, stale, secret, Reason.TIMESTAMP_OUTSIDE_TOLERANCE);
  }

  @Test
  void theToleranceAppliesInTheFutureTooWhereStripeDoesNotCheck() throws Exception {
    String secret = secret();
    String soon = WebhookSignature.header(utf8(EVENT), secret, NOW + 300);
    assertDoesNotThrow(() -> WebhookSignature.verify(EVENT, soon, secret, 300, at(NOW)));

    String future = WebhookSignature.header(utf8(EVENT), secret, NOW + 301);
    WebhookSignatureException e =
        assertThrows(
            WebhookSignatureException.class,
            () -> WebhookSignature.verify(EVENT, future, secret, 300, at(NOW)));
    assertEquals(Reason.TIMESTAMP_OUTSIDE_TOLERANCE, e.reason());
    assertTrue(e.getMessage().contains("future"));
    // SPEC part 6 rule 4 says "absolute difference"; stripe-java checks only the past.
    assertTrue(Webhook.Signature.verifyHeader(EVENT, future, secret, 300, clock(NOW)));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "   ",
        "v1=abc",
        "t=,v1=00",
        "t=12x,v1=00",
        "t=-5,v1=00",
        "garbage",
        "t=1767225600,t=1767225600,v1=" + "00",
      })
  void malformedHeadersAreRejectedByBoth(String header) {
    String secret = "whsec_test";
    WebhookSignatureException e =
        assertThrows(
            WebhookSignatureException.class,
            () -> WebhookSignature.verify(EVENT, header, secret, 300, at(NOW)));
    assertTrue(
        e.reason() == Reason.MALFORMED_HEADER || e.reason() == Reason.NO_SIGNATURE,
        e.reason()::name);
    // stripe-java rejects these too, some with a NumberFormatException rather than its own type.
    Exception theirs =
        assertThrows(
            Exception.class,
            () -> Webhook.Signature.verifyHeader(EVENT, header, secret, 300, clock(NOW)));
    assertTrue(
        theirs instanceof SignatureVerificationException || theirs instanceof NumberFormatException,
        theirs::toString);
  }

  @Test
  void aHeaderWithoutV1OrWithOnlyOtherSchemesHasNoSignature() throws Exception {
    String secret = secret();
    String v0 = "t=" + NOW + ",v0=" + WebhookSignature.signature(utf8(EVENT), secret, NOW);
    assertRejected(EVENT, v0, secret, Reason.NO_SIGNATURE);
    String upper =
        WebhookSignature.header(utf8(EVENT), secret, NOW).toUpperCase().replace("T=", "t=");
    assertRejected(EVENT, upper.replace("V1=", "v1="), secret, Reason.NO_SIGNATURE);
  }

  @Test
  void aMissingHeaderIsMalformed() {
    WebhookSignatureException e =
        assertThrows(
            WebhookSignatureException.class,
            () -> WebhookSignature.verify(utf8(EVENT), null, "whsec_x", 300, at(NOW)));
    assertEquals(Reason.MALFORMED_HEADER, e.reason());
  }

  @Test
  void theDefaultOverloadUsesTheSystemClockAndThreeHundredSeconds() {
    String secret = secret();
    long now = Instant.now().getEpochSecond();
    assertDoesNotThrow(
        () ->
            WebhookSignature.verify(
                utf8(EVENT), WebhookSignature.header(utf8(EVENT), secret, now), secret));
    assertDoesNotThrow(
        () ->
            WebhookSignature.verify(
                EVENT, WebhookSignature.header(utf8(EVENT), secret, now - 250), secret, 300));
    assertThrows(
        WebhookSignatureException.class,
        () ->
            WebhookSignature.verify(
                utf8(EVENT), WebhookSignature.header(utf8(EVENT), secret, now - 400), secret));
  }

  @Test
  void callerMistakesAreNotVerificationOutcomes() {
    assertThrows(
        IllegalArgumentException.class,
        () -> WebhookSignature.verify(EVENT, "t=1,v1=00", "", 300, at(NOW)));
    assertThrows(
        IllegalArgumentException.class,
        () -> WebhookSignature.verify(EVENT, "t=1,v1=00", "whsec_x", 0, at(NOW)));
  }

  private static void assertRejected(String body, String header, String secret, Reason reason) {
    WebhookSignatureException ours =
        assertThrows(
            WebhookSignatureException.class,
            () -> WebhookSignature.verify(body, header, secret, 300, at(NOW)));
    assertEquals(reason, ours.reason(), ours.getMessage());
    boolean stripeAccepted;
    try {
      stripeAccepted = Webhook.Signature.verifyHeader(body, header, secret, 300, clock(NOW));
    } catch (SignatureVerificationException e) {
      stripeAccepted = false;
    }
    assertFalse(stripeAccepted, "stripe-java accepted what we rejected");
  }

  /** A secret in the service's format: whsec_ + 32 random bytes, base64url without padding. */
  private static String secret() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return "whsec_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static String randomBody() {
    Random random = new Random(RANDOM.nextLong());
    StringBuilder body = new StringBuilder("{\"v\":\"");
    int length = random.nextInt(2000);
    for (int i = 0; i < length; i++) {
      int codePoint;
      do {
        codePoint = random.nextInt(4) == 0 ? random.nextInt(0x1_0000) : 0x20 + random.nextInt(95);
      } while (Character.isSurrogate((char) codePoint));
      body.appendCodePoint(codePoint);
    }
    return body.append("\"}\n").toString();
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static Instant at(long epochSecond) {
    return Instant.ofEpochSecond(epochSecond);
  }

  private static Clock clock(long epochSecond) {
    return Clock.fixed(at(epochSecond), ZoneOffset.UTC);
  }
}
