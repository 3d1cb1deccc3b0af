package ph.payments.webhooks.signing;

import java.security.SecureRandom;
import java.util.Base64;

/**
 * Signing secrets as merchants receive them: {@code whsec_} and 32 random bytes in base64url
 * without padding (43 characters). The HMAC key is the UTF-8 bytes of this whole string, prefix
 * included, the convention Stripe-compatible verifiers (and our {@code webhook-verifier}) follow.
 */
public final class SigningSecrets {

  public static final String PREFIX = "whsec_";
  private static final SecureRandom RANDOM = new SecureRandom();

  public static String generate() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private SigningSecrets() {}
}
