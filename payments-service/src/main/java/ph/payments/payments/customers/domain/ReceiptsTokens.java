package ph.payments.payments.customers.domain;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * The unguessable part of a customer's public receipt-history URL ({@code
 * /receipts/history/{token}}): 192 random bits, URL-safe, like a payment's checkout token. Customer
 * ids are time-ordered, so a URL built from the id would let anyone holding one history link walk
 * to its neighbours.
 */
public final class ReceiptsTokens {

  /** {@code rh_} and 32 base64url characters (24 bytes). */
  public static final Pattern FORMAT = Pattern.compile("rh_[A-Za-z0-9_-]{32}");

  private static final SecureRandom RANDOM = new SecureRandom();

  public static String generate() {
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    return "rh_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  public static boolean matches(String token) {
    return token != null && FORMAT.matcher(token).matches();
  }

  private ReceiptsTokens() {}
}
