package ph.payments.platform.ids;

/** 13-character base32 bodies for non-negative 64-bit sequence numbers, zero-padded to sort. */
final class SequenceIds {

  static final int LENGTH = 13;

  static String encode(long sequence) {
    if (sequence < 0) {
      throw new IllegalArgumentException("sequence must not be negative: " + sequence);
    }
    char[] out = new char[LENGTH];
    long rest = sequence;
    for (int i = LENGTH - 1; i >= 0; i--) {
      out[i] = Base32.ALPHABET[(int) (rest & 31)];
      rest >>>= 5;
    }
    return new String(out);
  }

  static long decode(String body) {
    // 13 characters carry 65 bits; a non-negative long leaves the top two bits of the first clear.
    if (Base32.value(body.charAt(0)) > 7) {
      throw new IllegalArgumentException("sequence out of range: " + body);
    }
    long value = 0;
    for (int i = 0; i < body.length(); i++) {
      value = (value << 5) | Base32.value(body.charAt(i));
    }
    return value;
  }

  private SequenceIds() {}
}
