package ph.payments.payments.links.domain;

import java.security.SecureRandom;
import java.util.regex.Pattern;

/**
 * The public part of a payment link's URL ({@code /l/{slug}}): 16 characters of {@code [A-Za-z0-9]}
 * drawn from {@link SecureRandom}, about 95 bits. Short enough to type from a printed QR's caption,
 * far too many to guess. The {@code plk_} id is time-ordered and never public: a URL built from it
 * would let one link's holder walk to its neighbours.
 */
public final class LinkSlugs {

  public static final int LENGTH = 16;
  public static final Pattern FORMAT = Pattern.compile("[A-Za-z0-9]{" + LENGTH + "}");

  private static final String ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  public static String generate() {
    StringBuilder slug = new StringBuilder(LENGTH);
    for (int i = 0; i < LENGTH; i++) {
      slug.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    return slug.toString();
  }

  public static boolean matches(String slug) {
    return slug != null && FORMAT.matcher(slug).matches();
  }

  private LinkSlugs() {}
}
