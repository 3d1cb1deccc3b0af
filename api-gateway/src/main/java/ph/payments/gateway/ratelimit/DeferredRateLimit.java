package ph.payments.gateway.ratelimit;

import io.micronaut.http.HttpRequest;
import java.time.Duration;
import java.util.Optional;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;

/**
 * The rate-limit decision of a request whose route is {@link DecidedWithCommand}: {@link
 * RateLimitFilter} counts nothing before the route runs and leaves this in the request instead.
 *
 * <p>The command path takes the decision in the statement that writes the command ({@code
 * CommandBus}, {@link RateLimiter#requireAll}), or on its own just before anything is written when
 * the command goes another way (an {@code Idempotency-Key}: {@link #decideAlone}). A request that
 * ends without reaching either (its body was invalid) is decided by the filter's response half,
 * which answers 429 instead when it is refused. So every request of the route is counted once, and
 * one over the limit writes nothing and is answered 429, as on every other route.
 */
public final class DeferredRateLimit {

  static final String ATTRIBUTE = "ph.payments.rate-limit-deferred";

  private final RateLimiter.Request request;
  private volatile RateLimitDecision decision;

  public DeferredRateLimit(RateLimiter.Request request) {
    this.request = request;
  }

  /** The deferred decision of {@code request}, if its route defers one. */
  public static Optional<DeferredRateLimit> of(HttpRequest<?> request) {
    return request.getAttribute(ATTRIBUTE, DeferredRateLimit.class);
  }

  /** What to decide: the caller's key and its limit. */
  public RateLimiter.Request request() {
    return request;
  }

  /** The decision, once taken. */
  public Optional<RateLimitDecision> decision() {
    return Optional.ofNullable(decision);
  }

  /**
   * Records the decision taken for this request.
   *
   * @throws ApiException 429 {@code rate_limited} when it refused
   */
  public void decided(RateLimitDecision taken) {
    record(taken);
    if (taken instanceof RateLimitDecision.Refused refused) {
      throw refusal(refused);
    }
  }

  /**
   * Records the decision taken for this request, whatever becomes of the request: one whose write
   * failed after it was decided was counted, and is not decided again.
   */
  public void record(RateLimitDecision taken) {
    this.decision = taken;
  }

  /**
   * Takes the decision in a transaction of its own, unless it was taken.
   *
   * @throws ApiException 429 {@code rate_limited} when it refused
   */
  public void decideAlone(RateLimiter limiter) {
    if (decision == null) {
      decided(limiter.request(request));
    } else if (decision instanceof RateLimitDecision.Refused refused) {
      throw refusal(refused);
    }
  }

  /** The answer to a refused request: 429 with {@code Retry-After}, as SPEC part 8 has it. */
  static ApiException refusal(RateLimitDecision.Refused refused) {
    long retryAfterSeconds = retryAfterSeconds(refused);
    return new ApiException(
        ErrorCode.RATE_LIMITED,
        "Rate limit exceeded: this API key may make "
            + refused.limit()
            + " requests per minute. Retry after "
            + retryAfterSeconds
            + (retryAfterSeconds == 1 ? " second." : " seconds."),
        null,
        Duration.ofSeconds(retryAfterSeconds));
  }

  /** Whole seconds until a slot frees, at least 1. */
  static long retryAfterSeconds(RateLimitDecision.Refused refused) {
    return Math.max(1, Math.floorDiv(refused.retryAfterMillis() + 999, 1000));
  }
}
