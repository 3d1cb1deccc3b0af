package ph.payments.gateway.ratelimit;

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
import io.micronaut.web.router.RouteAttributes;
import jakarta.inject.Named;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.gateway.auth.AuthOrder;
import ph.payments.gateway.auth.MerchantContext;
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
 *
 * <p>On a route that is {@link DecidedWithCommand} the decision is taken later, in the transaction
 * of the route's command ({@link DeferredRateLimit}); the answers are the same. Such a request
 * stays on its own thread here (nothing to wait for); the others are decided on a blocking thread.
 */
@ServerFilter("/v1/**")
@Order(AuthOrder.RATE_LIMIT)
public class RateLimitFilter {

  public static final String LIMIT_HEADER = "X-RateLimit-Limit";
  public static final String REMAINING_HEADER = "X-RateLimit-Remaining";
  public static final String RESET_HEADER = "X-RateLimit-Reset";

  private static final Logger log = LoggerFactory.getLogger(RateLimitFilter.class);

  private static final String DECISION = "ph.payments.rate-limit-decision";

  private final RateLimiter limiter;
  private final Executor blocking;

  public RateLimitFilter(RateLimiter limiter, @Named(TaskExecutors.BLOCKING) Executor blocking) {
    this.limiter = limiter;
    this.blocking = blocking;
  }

  /**
   * @return a future of nothing to go on, or of the 429; completed at once when the decision is
   *     left to the command or there is nothing to count
   */
  @RequestFilter
  public CompletableFuture<Optional<HttpResponse<?>>> limit(HttpRequest<?> request) {
    Optional<MerchantContext> caller =
        request.getAttribute(MerchantContext.ATTRIBUTE, MerchantContext.class);
    if (caller.isEmpty()) {
      // no authenticated key (an unknown route): nothing to count against
      return CompletableFuture.completedFuture(Optional.empty());
    }
    RateLimiter.Request counted =
        new RateLimiter.Request(caller.get().apiKeyId(), caller.get().rateLimitPerMinute());
    if (decidedWithCommand(request)) {
      request.setAttribute(DeferredRateLimit.ATTRIBUTE, new DeferredRateLimit(counted));
      return CompletableFuture.completedFuture(Optional.empty());
    }
    return CompletableFuture.supplyAsync(() -> decideNow(request, counted), blocking);
  }

  private Optional<HttpResponse<?>> decideNow(HttpRequest<?> request, RateLimiter.Request counted) {
    RateLimitDecision decision = limiter.request(counted);
    request.setAttribute(DECISION, decision);
    if (decision instanceof RateLimitDecision.Refused refused) {
      return Optional.of(refusedResponse(refused));
    }
    return Optional.empty();
  }

  /**
   * Writes the headers of the request's decision. A decision left to the command path and not taken
   * there (the request ended before its command, on a bad body, say) is taken here, on a blocking
   * thread; when it refuses, the answer is 429 instead of what the route answered, which wrote
   * nothing.
   */
  @ResponseFilter
  public CompletableFuture<MutableHttpResponse<?>> addHeaders(
      HttpRequest<?> request, MutableHttpResponse<?> response) {
    Optional<DeferredRateLimit> deferred = DeferredRateLimit.of(request);
    if (deferred.isPresent()) {
      Optional<RateLimitDecision> taken = deferred.get().decision();
      if (taken.isEmpty()) {
        return CompletableFuture.supplyAsync(
            () -> decideAfter(request, deferred.get(), response), blocking);
      }
      writeHeaders(response.getHeaders(), taken.get());
    } else {
      request
          .getAttribute(DECISION, RateLimitDecision.class)
          .ifPresent(decision -> writeHeaders(response.getHeaders(), decision));
    }
    return CompletableFuture.completedFuture(response);
  }

  private MutableHttpResponse<?> decideAfter(
      HttpRequest<?> request, DeferredRateLimit deferred, MutableHttpResponse<?> response) {
    RateLimitDecision decision;
    try {
      decision = limiter.request(deferred.request());
    } catch (RuntimeException e) {
      // The route's own answer stands (it wrote nothing); the request goes uncounted.
      log.warn(
          "rate limit: no decision after {} {}: {}",
          request.getMethodName(),
          request.getPath(),
          e.toString());
      return response;
    }
    if (decision instanceof RateLimitDecision.Refused refused) {
      return refusedResponse(refused);
    }
    writeHeaders(response.getHeaders(), decision);
    return response;
  }

  /** The 429 of {@code refused}, with its headers. */
  private static MutableHttpResponse<?> refusedResponse(RateLimitDecision.Refused refused) {
    MutableHttpResponse<?> response =
        HttpResponse.<ErrorEnvelope>status(HttpStatus.TOO_MANY_REQUESTS)
            .body(DeferredRateLimit.refusal(refused).envelope());
    response
        .getHeaders()
        .set(HttpHeaders.RETRY_AFTER, Long.toString(DeferredRateLimit.retryAfterSeconds(refused)));
    writeHeaders(response.getHeaders(), refused);
    return response;
  }

  private static boolean decidedWithCommand(HttpRequest<?> request) {
    return RouteAttributes.getRouteMatch(request)
        .map(route -> route.getAnnotationMetadata().hasAnnotation(DecidedWithCommand.class))
        .orElse(false);
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
