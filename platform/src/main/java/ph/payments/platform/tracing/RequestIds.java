package ph.payments.platform.tracing;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The request id every response and log line carries. A caller's {@code X-Request-Id} is kept when
 * it is safe to echo and to log (at most 128 characters of {@code [A-Za-z0-9._-]}: nothing that
 * could split a header or forge a log line); otherwise, or when absent, a fresh {@code req_…} id
 * replaces it.
 */
public final class RequestIds {

  /** The HTTP header, on the merchant's request, every response and every internal call. */
  public static final String HEADER = "X-Request-Id";

  /** The logging MDC key (logback pattern {@code %X{request_id}}). */
  public static final String MDC_KEY = "request_id";

  /** The envelope attribute, so a Kafka header {@code attr-request-id}. */
  public static final String ATTRIBUTE = "request-id";

  private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._-]{1,128}");
  private static final SecureRandom RANDOM = new SecureRandom();

  /** {@code given} when valid, else a new id. */
  public static String acceptOrGenerate(String given) {
    return isValid(given) ? given : generate();
  }

  public static boolean isValid(String id) {
    return id != null && VALID.matcher(id).matches();
  }

  /** {@code req_} and 24 hex digits (96 random bits). */
  public static String generate() {
    byte[] bytes = new byte[12];
    RANDOM.nextBytes(bytes);
    return "req_" + HexFormat.of().formatHex(bytes);
  }

  private RequestIds() {}
}
