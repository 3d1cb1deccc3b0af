package ph.payments.gateway.edge;

import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import java.time.Duration;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.errors.ErrorEnvelope;

/** 429 {@code rate_limited} in the envelope, with {@code Retry-After} in whole seconds (≥ 1). */
final class RateLimitedResponses {

  static MutableHttpResponse<ErrorEnvelope> tooMany(String message, Duration retryAfter) {
    long seconds = Math.max(1, (retryAfter.toMillis() + 999) / 1000);
    MutableHttpResponse<ErrorEnvelope> response =
        HttpResponse.<ErrorEnvelope>status(HttpStatus.TOO_MANY_REQUESTS)
            .body(
                ErrorEnvelope.of(
                    ErrorCode.RATE_LIMITED,
                    message
                        + " Retry after "
                        + seconds
                        + (seconds == 1 ? " second." : " seconds.")));
    response.getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(seconds));
    return response;
  }

  private RateLimitedResponses() {}
}
