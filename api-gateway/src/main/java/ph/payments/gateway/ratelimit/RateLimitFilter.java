package ph.payments.gateway.ratelimit;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.annotation.Order;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpHeaders;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.Optional;
import ph.payments.gateway.auth.AuthOrder;
import ph.payments.gateway.auth.MerchantContext;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.errors.ErrorEnvelope;

/**
 * Limits every authenticated {@code /v1} request to the key's requests per minute (SPEC part 8,
 * ARCHITECTURE "Rate limit"): no key gets more than {@link MerchantContext#rateLimitPerMinute()}
 * requests through in any 60 seconds. Over the limit the answer is 429 {@code rate_limited} with
 * {@code Retry-After} (whole seconds until a slot frees, at least 1).
 *
 * <p>Runs after {@code ApiKeyAuthentication}: a request it refused never gets here and is not
 * counted. Every response to a counted or refused request carries {@code X-RateLimit-Limit}, {@code
 * X-RateLimit-Remaining} and {@code X-RateLimit-Reset} (unix seconds, rounded up, at which the
 * oldest counted request leaves the window), errors included.
 */
@ServerFilter("/v1/**")
@Order(AuthOrder.RATE_LIMIT)
public class RateLimitFilter {

  public static final String LIMIT_HEADER = "X-RateLimit-Limit";
  public static final String REMAINING_HEADER = "X-RateLimit-Remaining";
  public static final String RESET_HEADER = "X-RateLimit-Reset";

  private static final String DECISION = "ph.payments.rate-limit-decision";

  private final RateLimiter limiter;

  public RateLimitFilter(RateLimiter limiter) {
    this.limiter = limiter;
  }

  @RequestFilter
  @ExecuteOn(TaskExecutors.BLOCKING)
  @Nullable
  public HttpResponse<?> limit(HttpRequest<?> request) {
    Optional<MerchantContext> caller =
        request.getAttribute(MerchantContext.ATTRIBUTE, MerchantContext.class);
    if (caller.isEmpty()) {
      return null; // no authenticated key (an unknown route): nothing to count against
    }
    RateLimitDecision decision =
        limiter.request(caller.get().apiKeyId(), caller.get().rateLimitPerMinute());
    request.setAttribute(DECISION, decision);
    if (decision instanceof RateLimitDecision.Refused refused) {
      long retryAfterSeconds = Math.max(1, ceilSeconds(refused.retryAfterMillis()));
      MutableHttpResponse<ErrorEnvelope> response =
          HttpResponse.<ErrorEnvelope>status(HttpStatus.TOO_MANY_REQUESTS)
              .body(
                  ErrorEnvelope.of(
                      ErrorCode.RATE_LIMITED,
                      "Rate limit exceeded: this API key may make "
                          + refused.limit()
                          + " requests per minute. Retry after "
                          + retryAfterSeconds
                          + (retryAfterSeconds == 1 ? " second." : " seconds.")));
      response.getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
      writeHeaders(response.getHeaders(), decision);
      return response;
    }
    return null;
  }

  @ResponseFilter
  public void addHeaders(HttpRequest<?> request, MutableHttpResponse<?> response) {
    request
        .getAttribute(DECISION, RateLimitDecision.class)
        .ifPresent(decision -> writeHeaders(response.getHeaders(), decision));
  }

  private static void writeHeaders(MutableHttpHeaders headers, RateLimitDecision decision) {
    headers.set(LIMIT_HEADER, Integer.toString(decision.limit()));
    headers.set(REMAINING_HEADER, Integer.toString(decision.remaining()));
    headers.set(RESET_HEADER, Long.toString(ceilSeconds(decision.resetAtMillis())));
  }

  private static long ceilSeconds(long millis) {
    return Math.floorDiv(millis + 999, 1000);
  }
}
