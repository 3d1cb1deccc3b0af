package ph.payments.gateway.ratelimit;

import java.util.Arrays;

/**
 * The rate-limit rule in plain Java: a key may have at most {@code limit} requests admitted in any
 * window of {@link #WINDOW_MILLIS}. The log holds the times of the key's admitted requests that
 * still count; a request is admitted only when fewer than {@code limit} do. A request admitted at
 * {@code t} counts from {@code t} until just before {@code t + WINDOW_MILLIS}, so every half-open
 * interval of 60 seconds holds at most {@code limit} admitted requests, wherever it starts.
 *
 * <p>This is the rule's reference: the gateway decides in PostgreSQL ({@link RateLimiter}, a ring
 * of admission times), and {@code RateLimiterModelIT} holds those decisions to this class's.
 *
 * <p>Times come from the gateway replicas' clocks. A time later than {@code now} (a replica whose
 * clock is ahead) keeps counting until it has left the window, which errs on the strict side.
 */
public final class SlidingWindowLog {

  public static final long WINDOW_MILLIS = 60_000;

  private static final SlidingWindowLog EMPTY = new SlidingWindowLog(new long[0]);

  private final long[] admittedAtMillis; // ascending, each still counting at the time of reading

  private SlidingWindowLog(long[] admittedAtMillis) {
    this.admittedAtMillis = admittedAtMillis;
  }

  public static SlidingWindowLog empty() {
    return EMPTY;
  }

  /** The stored times as of {@code nowMillis}: those that left the window are dropped. */
  public static SlidingWindowLog of(long[] storedMillis, long nowMillis) {
    long[] counting =
        Arrays.stream(storedMillis).filter(at -> counts(at, nowMillis)).sorted().toArray();
    return new SlidingWindowLog(counting);
  }

  /**
   * Decides on one more request at {@code nowMillis}; the caller records it with {@link #admit}
   * when admitted.
   *
   * @param limit at least 1
   */
  public RateLimitDecision decide(long nowMillis, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("a rate limit is at least 1 request per window");
    }
    int counted = admittedAtMillis.length;
    if (counted < limit) {
      long oldest = counted == 0 ? nowMillis : Math.min(admittedAtMillis[0], nowMillis);
      return new RateLimitDecision.Admitted(limit, limit - counted - 1, oldest + WINDOW_MILLIS);
    }
    // A slot frees when enough requests have left for the count to drop below the limit (more
    // than one must leave when the limit was lowered after they were admitted).
    long slotFreesAt = admittedAtMillis[counted - limit] + WINDOW_MILLIS;
    return new RateLimitDecision.Refused(
        limit, admittedAtMillis[0] + WINDOW_MILLIS, Math.max(1, slotFreesAt - nowMillis));
  }

  /** This log with a request admitted at {@code nowMillis}. */
  public SlidingWindowLog admit(long nowMillis) {
    long[] next = Arrays.copyOf(admittedAtMillis, admittedAtMillis.length + 1);
    next[next.length - 1] = nowMillis;
    Arrays.sort(next); // only needed when another replica's clock ran ahead
    return new SlidingWindowLog(next);
  }

  /** The times that count, ascending: what is stored. */
  public long[] admittedAtMillis() {
    return admittedAtMillis.clone();
  }

  public int size() {
    return admittedAtMillis.length;
  }

  private static boolean counts(long admittedAtMillis, long nowMillis) {
    return nowMillis - admittedAtMillis < WINDOW_MILLIS;
  }
}
