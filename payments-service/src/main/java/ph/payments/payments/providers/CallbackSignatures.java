package ph.payments.payments.providers;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Provider callback signatures: {@code t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>}, the
 * same scheme our own webhooks use. Verification is constant-time and refuses timestamps further
 * than the tolerance from now (a captured callback cannot be replayed much later).
 */
public final class CallbackSignatures {

  public static final Duration TOLERANCE = Duration.ofMinutes(5);

  public static String sign(byte[] secret, byte[] body, Instant at) {
    long t = at.getEpochSecond();
    return "t=" + t + ",v1=" + HexFormat.of().formatHex(hmac(secret, t, body));
  }

  public static boolean verify(byte[] secret, byte[] body, String header, Instant now) {
    if (header == null) {
      return false;
    }
    long t = -1;
    String v1 = null;
    for (String part : header.split(",")) {
      String[] pair = part.trim().split("=", 2);
      if (pair.length != 2) {
        return false;
      }
      if (pair[0].equals("t")) {
        try {
          t = Long.parseLong(pair[1]);
        } catch (NumberFormatException e) {
          return false;
        }
      } else if (pair[0].equals("v1")) {
        v1 = pair[1];
      }
    }
    if (t < 0 || v1 == null || Math.abs(now.getEpochSecond() - t) > TOLERANCE.toSeconds()) {
      return false;
    }
    byte[] presented;
    try {
      presented = HexFormat.of().parseHex(v1);
    } catch (IllegalArgumentException e) {
      return false;
    }
    return MessageDigest.isEqual(hmac(secret, t, body), presented);
  }

  private static byte[] hmac(byte[] secret, long t, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      mac.update((t + ".").getBytes(StandardCharsets.US_ASCII));
      return mac.doFinal(body);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK has HmacSHA256", e);
    }
  }

  private CallbackSignatures() {}
}
