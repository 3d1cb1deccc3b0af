package ph.payments.platform.errors;

import java.time.Duration;
import java.util.Map;

/**
 * Thrown at the HTTP edge to answer with the error envelope. Domain code returns rejections as
 * values; this exception is how a controller turns one into a response in a single line.
 */
public final class ApiException extends RuntimeException {

  private final ErrorCode code;
  private final int httpStatus;
  private final Map<String, String> issues;
  private final Duration retryAfter;

  public ApiException(ErrorCode code, String message) {
    this(code, message, null, null);
  }

  public ApiException(
      ErrorCode code, String message, Map<String, String> issues, Duration retryAfter) {
    this(code, code.httpStatus(), message, issues, retryAfter);
  }

  private ApiException(
      ErrorCode code,
      int httpStatus,
      String message,
      Map<String, String> issues,
      Duration retryAfter) {
    super(message, null, false, false); // expected outcome: no stack trace to fill
    this.code = code;
    this.httpStatus = httpStatus;
    this.issues = issues == null ? Map.of() : Map.copyOf(issues);
    this.retryAfter = retryAfter;
  }

  public static ApiException invalid(Map<String, String> issues) {
    return new ApiException(
        ErrorCode.INVALID_REQUEST, "The request has invalid fields.", issues, null);
  }

  /**
   * 503 {@code internal_error} with {@code Retry-After}: the request was accepted but its outcome
   * is not known yet (not a domain rejection, so outside the code-to-status mapping).
   */
  public static ApiException unavailable(String message, Duration retryAfter) {
    return new ApiException(ErrorCode.INTERNAL_ERROR, 503, message, null, retryAfter);
  }

  public static ApiException notFound(String what) {
    return new ApiException(ErrorCode.NOT_FOUND, "No such " + what + ".");
  }

  public ErrorCode code() {
    return code;
  }

  public int httpStatus() {
    return httpStatus;
  }

  public Map<String, String> issues() {
    return issues;
  }

  /** For 429 and 503: how long the client should wait; null otherwise. */
  public Duration retryAfter() {
    return retryAfter;
  }

  public ErrorEnvelope envelope() {
    if (code == ErrorCode.INVALID_REQUEST) {
      return ErrorEnvelope.invalid(getMessage(), issues);
    }
    return ErrorEnvelope.of(code, getMessage());
  }
}
