package ph.payments.payments.payments.domain;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * The unguessable part of a payment's public URLs ({@code /checkout/{token}}, {@code
 * /qr/{token}.png}): 192 random bits, URL-safe. Payment ids are time-ordered (two minted in one
 * millisecond differ by one), so a URL built from the id would let anyone holding one checkout link
 * walk to its neighbours; the customer's browser gets this token instead and nothing else resolves
 * the page.
 */
public final class CheckoutTokens {

  /** {@code ct_} and 32 base64url characters (24 bytes). */
  public static final Pattern FORMAT = Pattern.compile("ct_[A-Za-z0-9_-]{32}");

  private static final SecureRandom RANDOM = new SecureRandom();

  public static String generate() {
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    return "ct_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  public static boolean matches(String token) {
    return token != null && FORMAT.matcher(token).matches();
  }

  private CheckoutTokens() {}
}
