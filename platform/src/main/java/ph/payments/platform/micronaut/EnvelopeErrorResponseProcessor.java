package ph.payments.platform.micronaut;

import io.micronaut.context.annotation.Replaces;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.errors.ErrorEnvelope;

/**
 * Every error the framework answers by itself (unknown route, wrong method, malformed JSON,
 * oversized body, an unexpected exception) in the envelope of SPEC part 7. Server-side failures
 * never show their exception text.
 */
@Singleton
@Replaces(ErrorResponseProcessor.class)
public class EnvelopeErrorResponseProcessor implements ErrorResponseProcessor<ErrorEnvelope> {

  @Override
  public MutableHttpResponse<ErrorEnvelope> processResponse(
      ErrorContext context, MutableHttpResponse<?> response) {
    int status = response.getStatus().getCode();
    ErrorCode code = ErrorCode.forStatus(status);
    ErrorEnvelope body;
    if (status >= 500) {
      body = ErrorEnvelope.of(code, "An internal error occurred. Please retry later.");
    } else if (status == 400) {
      body = ErrorEnvelope.invalid(messageFor(status), issues(context));
    } else {
      body = ErrorEnvelope.of(code, messageFor(status));
    }
    return response.contentType(MediaType.APPLICATION_JSON_TYPE).body(body);
  }

  private static String messageFor(int status) {
    return switch (status) {
      case 401 -> "Missing or invalid API key.";
      case 404 -> "No such resource or route.";
      case 405 -> "This method is not allowed on this route.";
      case 413 -> "The request body is too large.";
      case 415 -> "The request body must be JSON.";
      default -> "The request is invalid.";
    };
  }

  private static final Pattern PARSER_LOCATION =
      Pattern.compile("\\s*at \\[Source: [^\\]]*?line: (\\d+), column: (\\d+)\\]");

  /**
   * Jackson's "Duplicate field 'amount'\n at [Source: REDACTED (…); line: 1, column: 23]" as
   * "Duplicate field 'amount' (line 1, column 23)": where, without the parser's internals.
   */
  static String withoutParserLocation(String message) {
    return PARSER_LOCATION.matcher(message).replaceAll(" (line $1, column $2)").strip();
  }

  private static Map<String, String> issues(ErrorContext context) {
    Map<String, String> issues = new LinkedHashMap<>();
    for (var error : context.getErrors()) {
      String field = error.getPath().orElse("body");
      // Framework messages can quote the input; keep them short.
      String message = withoutParserLocation(error.getMessage());
      issues.putIfAbsent(field, message.length() > 200 ? message.substring(0, 200) : message);
    }
    return issues;
  }
}
