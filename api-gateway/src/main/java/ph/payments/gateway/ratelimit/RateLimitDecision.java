package ph.payments.gateway.ratelimit;

/**
 * The answer to one request of a key: admitted or refused. Both say what the {@code X-RateLimit-*}
 * headers show.
 */
public sealed interface RateLimitDecision {

  /** The key's requests per 60 seconds. */
  int limit();

  /** How many more requests the key may send right now. */
  int remaining();

  /** Epoch milliseconds at which the oldest request counted in the window leaves it. */
  long resetAtMillis();

  /** The request goes through and is counted. */
  record Admitted(int limit, int remaining, long resetAtMillis) implements RateLimitDecision {}

  /**
   * The request is answered 429 and not counted.
   *
   * @param retryAfterMillis how long until the key may send a request again (always positive)
   */
  record Refused(int limit, long resetAtMillis, long retryAfterMillis)
      implements RateLimitDecision {

    @Override
    public int remaining() {
      return 0;
    }
  }
}
