package ph.payments.platform.ids;

import java.security.SecureRandom;

/**
 * 26-character ULID-style bodies: 48 bits of milliseconds since the epoch, then 80 random bits.
 * Within one millisecond the random part is incremented instead of redrawn, so ids from one JVM are
 * strictly increasing; across JVMs they are ordered by millisecond.
 */
final class TimeOrderedIds {

  static final int LENGTH = 26;
  private static final SecureRandom RANDOM = new SecureRandom();

  private static long lastMillis = -1;
  private static long randomHigh; // 16 bits
  private static long randomLow; // 64 bits

  static synchronized String next() {
    long now = System.currentTimeMillis();
    if (now > lastMillis) {
      lastMillis = now;
      randomHigh = RANDOM.nextInt(1 << 16);
      randomLow = RANDOM.nextLong();
    } else if (++randomLow == 0 && (randomHigh = (randomHigh + 1) & 0xFFFF) == 0) {
      // 2^80 ids in one millisecond: borrow the next millisecond rather than wrap around.
      lastMillis++;
    }
    return encode(lastMillis, randomHigh, randomLow);
  }

  private static String encode(long millis, long high16, long low64) {
    char[] out = new char[LENGTH];
    // 10 characters of time (50 bits, the top two always zero).
    for (int i = 9; i >= 0; i--) {
      out[i] = Base32.ALPHABET[(int) (millis & 31)];
      millis >>>= 5;
    }
    // 16 characters of randomness: 80 bits = high16 (16 bits) followed by low64 (64 bits).
    long low = low64;
    long high = high16;
    for (int i = 25; i >= 10; i--) {
      out[i] = Base32.ALPHABET[(int) (low & 31)];
      low = (low >>> 5) | ((high & 31) << 59);
      high >>>= 5;
    }
    return new String(out);
  }

  private TimeOrderedIds() {}
}
