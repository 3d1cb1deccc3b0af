package ph.payments.webhooks.verify;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verifies that a webhook delivery came from the payment service and was not altered or replayed
 * late (SPEC part 6, "Signature rules").
 *
 * <p>Every delivery carries {@value #SIGNATURE_HEADER}{@code : t=<unix seconds>,v1=<hex>}, where
 * {@code v1} is the lowercase hex HMAC-SHA256 of {@code "<t>.<raw body>"} keyed with the endpoint's
 * signing secret (the whole {@code whsec_…} string, as returned when the endpoint was created).
 * While a secret is being rotated the header carries two {@code v1} values, one per secret; a
 * delivery is genuine when any of them matches.
 *
 * <p>Typical use in a receiver:
 *
 * <pre>{@code
 * byte[] body = request.bodyAsBytes();                     // the raw bytes, before any JSON parsing
 * String header = request.header("X-Service-Signature");
 * try {
 *   WebhookSignature.verify(body, header, System.getenv("WEBHOOK_SECRET"));
 * } catch (WebhookSignatureException e) {
 *   return 400;                                            // not from us, altered, or too old
 * }
 * // parse the event from body; answer 2xx within 10 seconds; de-duplicate on X-Service-Delivery
 * }</pre>
 *
 * <p>Rules applied, in order:
 *
 * <ol>
 *   <li>the header must have exactly one {@code t} (decimal Unix seconds) and at least one {@code
 *       v1} (other schemes are ignored);
 *   <li>{@code |now − t|} must not exceed the tolerance (default {@value
 *       #DEFAULT_TOLERANCE_SECONDS} seconds) in either direction: a delivery stamped too far in the
 *       past is a replay, one too far in the future means a badly wrong clock;
 *   <li>the expected signature is computed over the raw body bytes, never a re-serialised body, and
 *       compared with each {@code v1} in constant time.
 * </ol>
 *
 * <p>Thread-safe and free of dependencies; the class holds no state.
 */
public final class WebhookSignature {

  /** Name of the header carrying the signature. */
  public static final String SIGNATURE_HEADER = "X-Service-Signature";

  /** Largest accepted distance between the signature's timestamp and now (SPEC part 8). */
  public static final long DEFAULT_TOLERANCE_SECONDS = 300;

  private static final String SCHEME = "v1";
  private static final String ALGORITHM = "HmacSHA256";
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /**
   * Verifies with the default tolerance of {@value #DEFAULT_TOLERANCE_SECONDS} seconds against the
   * system clock.
   *
   * @param payload the request body exactly as received
   * @param header the value of {@value #SIGNATURE_HEADER}
   * @param secret the endpoint's signing secret ({@code whsec_…})
   * @throws WebhookSignatureException when the delivery must be rejected; {@link
   *     WebhookSignatureException#reason()} says why
   */
  public static void verify(byte[] payload, String header, String secret)
      throws WebhookSignatureException {
    verify(payload, header, secret, DEFAULT_TOLERANCE_SECONDS, Clock.systemUTC().instant());
  }

  /**
   * Verifies a body given as text; its UTF-8 bytes must be exactly the bytes received (read the
   * body as UTF-8 without trimming or re-formatting it).
   *
   * @param toleranceSeconds largest accepted {@code |now − t|}, at least 1
   * @throws WebhookSignatureException when the delivery must be rejected
   */
  public static void verify(String payload, String header, String secret, long toleranceSeconds)
      throws WebhookSignatureException {
    verify(payload, header, secret, toleranceSeconds, Clock.systemUTC().instant());
  }

  /**
   * As {@link #verify(String, String, String, long)}, at the given time (for tests and for
   * receivers that take time from an injected clock).
   */
  public static void verify(
      String payload, String header, String secret, long toleranceSeconds, Instant now)
      throws WebhookSignatureException {
    Objects.requireNonNull(payload, "payload");
    verify(payload.getBytes(StandardCharsets.UTF_8), header, secret, toleranceSeconds, now);
  }

  /**
   * The complete check on the raw body bytes.
   *
   * @param payload the request body exactly as received
   * @param header the value of {@value #SIGNATURE_HEADER}; null counts as missing
   * @param secret the endpoint's signing secret ({@code whsec_…})
   * @param toleranceSeconds largest accepted {@code |now − t|}, at least 1
   * @param now the receiver's current time
   * @throws WebhookSignatureException when the delivery must be rejected
   * @throws IllegalArgumentException for a missing secret or a tolerance below 1 (caller bugs, not
   *     properties of the delivery)
   */
  public static void verify(
      byte[] payload, String header, String secret, long toleranceSeconds, Instant now)
      throws WebhookSignatureException {
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(now, "now");
    if (secret == null || secret.isEmpty()) {
      throw new IllegalArgumentException("the signing secret is required");
    }
    if (toleranceSeconds < 1) {
      throw new IllegalArgumentException("the tolerance must be at least one second");
    }
    Parsed parsed = parse(header);
    long age = now.getEpochSecond() - parsed.timestamp();
    if (age > toleranceSeconds || age < -toleranceSeconds) {
      throw new WebhookSignatureException(
          WebhookSignatureException.Reason.TIMESTAMP_OUTSIDE_TOLERANCE,
          "The signature timestamp is "
              + Math.abs(age)
              + " seconds "
              + (age > 0 ? "old" : "in the future")
              + "; at most "
              + toleranceSeconds
              + " are accepted.");
    }
    byte[] expected = hmac(secret, parsed.timestamp(), payload);
    boolean matched = false;
    for (byte[] candidate : parsed.signatures()) {
      // Compare against every value, without stopping early, so timing says nothing about which.
      matched |= MessageDigest.isEqual(expected, candidate);
    }
    if (!matched) {
      throw new WebhookSignatureException(
          WebhookSignatureException.Reason.SIGNATURE_MISMATCH,
          "No v1 signature matches the body and secret.");
    }
  }

  /**
   * A header as the service sends it, for a receiver's own tests: {@code t=<t>,v1=<hex>}.
   *
   * @param payload the body that will be sent
   * @param secret the signing secret
   * @param timestamp Unix seconds
   */
  public static String header(byte[] payload, String secret, long timestamp) {
    return "t=" + timestamp + "," + SCHEME + "=" + hex(hmac(secret, timestamp, payload));
  }

  /** Lowercase hex HMAC-SHA256 of {@code "<timestamp>.<payload>"} keyed with {@code secret}. */
  public static String signature(byte[] payload, String secret, long timestamp) {
    return hex(hmac(secret, timestamp, payload));
  }

  private record Parsed(long timestamp, List<byte[]> signatures) {}

  private static Parsed parse(String header) throws WebhookSignatureException {
    if (header == null || header.isBlank()) {
      throw malformed("The " + SIGNATURE_HEADER + " header is missing.");
    }
    Long timestamp = null;
    List<byte[]> signatures = new ArrayList<>();
    for (String part : header.split(",")) {
      int equals = part.indexOf('=');
      if (equals <= 0) {
        throw malformed("Each element of the header must be key=value.");
      }
      String key = part.substring(0, equals).trim();
      String value = part.substring(equals + 1).trim();
      if (key.equals("t")) {
        if (timestamp != null) {
          throw malformed("The header has more than one timestamp.");
        }
        timestamp = parseTimestamp(value);
      } else if (key.equals(SCHEME)) {
        byte[] decoded = unhex(value);
        if (decoded != null) {
          signatures.add(decoded);
        }
      }
    }
    if (timestamp == null) {
      throw malformed("The header has no timestamp (t=).");
    }
    if (signatures.isEmpty()) {
      throw new WebhookSignatureException(
          WebhookSignatureException.Reason.NO_SIGNATURE,
          "The header has no well-formed v1 signature.");
    }
    return new Parsed(timestamp, signatures);
  }

  private static long parseTimestamp(String value) throws WebhookSignatureException {
    if (value.isEmpty() || value.length() > 18 || !value.chars().allMatch(Character::isDigit)) {
      throw malformed("The timestamp must be decimal Unix seconds.");
    }
    return Long.parseLong(value);
  }

  private static WebhookSignatureException malformed(String message) {
    return new WebhookSignatureException(
        WebhookSignatureException.Reason.MALFORMED_HEADER, message);
  }

  private static byte[] hmac(String secret, long timestamp, byte[] payload) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM));
      mac.update(Long.toString(timestamp).getBytes(StandardCharsets.US_ASCII));
      mac.update((byte) '.');
      return mac.doFinal(payload);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
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

  /** 32 bytes from 64 lowercase hex digits (the form the service sends), or null. */
  private static byte[] unhex(String value) {
    if (value.length() != 64) {
      return null;
    }
    byte[] out = new byte[32];
    for (int i = 0; i < 32; i++) {
      int high = lowerHexDigit(value.charAt(2 * i));
      int low = lowerHexDigit(value.charAt(2 * i + 1));
      if (high < 0 || low < 0) {
        return null;
      }
      out[i] = (byte) ((high << 4) | low);
    }
    return out;
  }

  private static int lowerHexDigit(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  }

  private WebhookSignature() {}
}
