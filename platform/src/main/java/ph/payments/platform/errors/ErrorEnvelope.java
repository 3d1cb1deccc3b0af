package ph.payments.platform.errors;

import java.util.Map;

/** {@code {"error": {"code", "message", "issues"?}}}, SPEC part 7. */
public record ErrorEnvelope(ApiError error) {

  public static ErrorEnvelope of(ErrorCode code, String message) {
    return new ErrorEnvelope(new ApiError(code.code(), message, null));
  }

  /** An {@code invalid_request} naming each bad field. */
  public static ErrorEnvelope invalid(String message, Map<String, String> issues) {
    Map<String, String> shown = issues == null || issues.isEmpty() ? null : Map.copyOf(issues);
    return new ErrorEnvelope(new ApiError(ErrorCode.INVALID_REQUEST.code(), message, shown));
  }
}
