package ph.payments.platform.ids;

/**
 * Lowercase Crockford base32: digits before letters, so fixed-length strings sort in numeric order
 * under plain string comparison (as in PostgreSQL's {@code COLLATE "C"} and Java's {@code
 * String.compareTo}).
 */
final class Base32 {

  static final char[] ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz".toCharArray();
  private static final int[] VALUES = new int[128];

  static {
    java.util.Arrays.fill(VALUES, -1);
    for (int i = 0; i < ALPHABET.length; i++) {
      VALUES[ALPHABET[i]] = i;
    }
  }

  /** The value of one character, or -1 when it is not in the alphabet. */
  static int value(char c) {
    return c < 128 ? VALUES[c] : -1;
  }

  private Base32() {}
}
