package ph.payments.webhooks.signing;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * {@code X-Service-Signature} (SPEC part 6): {@code t=<unix>,v1=<hex>}, where {@code v1} is the
 * lowercase hex HMAC-SHA256 of {@code "<t>.<body>"} over the raw body bytes, one {@code v1} per
 * active secret (two during a rotation).
 */
public final class Signatures {

  public static final String HEADER = "X-Service-Signature";
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /**
   * @param timestamp Unix seconds of this attempt; a retry is signed afresh with its own time
   * @param body exactly the bytes sent
   * @param secrets at least one; the current secret first
   */
  public static String header(long timestamp, byte[] body, List<String> secrets) {
    if (secrets.isEmpty()) {
      throw new IllegalArgumentException("at least one secret signs");
    }
    StringBuilder header = new StringBuilder("t=").append(timestamp);
    for (String secret : secrets) {
      header.append(",v1=").append(hex(hmac(secret, timestamp, body)));
    }
    return header.toString();
  }

  static byte[] hmac(String secret, long timestamp, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      mac.update(Long.toString(timestamp).getBytes(StandardCharsets.US_ASCII));
      mac.update((byte) '.');
      return mac.doFinal(body);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
    }
  }

  private static String hex(byte[] bytes) {
    char[] out = new char[bytes.length * 2];
    for (int i = 0; i < bytes.length; i++) {
      out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
      out[2 * i + 1] = HEX[bytes[i] & 0xf];
    }
    return new String(out);
  }

  private Signatures() {}
}
