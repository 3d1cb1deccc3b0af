package ph.payments.payments.invoices.domain;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * The public part of an invoice's URL ({@code /i/{token}}): {@code it_} and 32 base64url characters
 * of 24 {@link SecureRandom} bytes (192 bits). The {@code inv_} id is time-ordered and never
 * public.
 */
public final class InvoiceTokens {

  public static final Pattern FORMAT = Pattern.compile("it_[A-Za-z0-9_-]{32}");

  private static final SecureRandom RANDOM = new SecureRandom();

  public static String generate() {
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    return "it_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  public static boolean matches(String token) {
    return token != null && FORMAT.matcher(token).matches();
  }

  private InvoiceTokens() {}
}
