package ph.payments.gateway.ratelimit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The rule alone, in plain Java: what counts, when a slot frees, what the headers say. */
class SlidingWindowLogTest {

  private static final long T0 = 1_800_000_000_000L;

  @Test
  void aFreshKeyMayMakeExactlyTheLimitAtOnce() {
    SlidingWindowLog log = SlidingWindowLog.empty();
    for (int i = 1; i <= 3; i++) {
      RateLimitDecision decision = log.decide(T0, 3);
      assertEquals(new RateLimitDecision.Admitted(3, 3 - i, T0 + 60_000), decision);
      log = log.admit(T0);
    }
    RateLimitDecision refused = log.decide(T0 + 1, 3);
    assertEquals(new RateLimitDecision.Refused(3, T0 + 60_000, 59_999), refused);
    assertEquals(0, refused.remaining());
  }

  @Test
  void aRequestCountsForExactlySixtySeconds() {
    SlidingWindowLog log = SlidingWindowLog.empty().admit(T0);
    assertInstanceOf(
        RateLimitDecision.Refused.class,
        SlidingWindowLog.of(log.admittedAtMillis(), T0 + 59_999).decide(T0 + 59_999, 1));
    assertEquals(
        0, SlidingWindowLog.of(log.admittedAtMillis(), T0 + 60_000).size(), "left the window");
    assertInstanceOf(
        RateLimitDecision.Admitted.class,
        SlidingWindowLog.of(log.admittedAtMillis(), T0 + 60_000).decide(T0 + 60_000, 1));
  }

  @Test
  void aLoweredLimitWaitsUntilEnoughRequestsHaveLeft() {
    long[] stored = {T0, T0 + 1_000, T0 + 2_000, T0 + 3_000, T0 + 4_000};
    RateLimitDecision decision = SlidingWindowLog.of(stored, T0 + 10_000).decide(T0 + 10_000, 2);
    // 5 count, at most 1 may count before another is admitted: the 4th oldest must leave first.
    assertEquals(new RateLimitDecision.Refused(2, T0 + 60_000, 53_000), decision);
  }

  @Test
  void storedTimesAreSortedAndPrunedAndTimesAheadOfTheClockStillCount() {
    long[] stored = {T0 + 5_000, T0 - 70_000, T0 + 100_000, T0};
    SlidingWindowLog log = SlidingWindowLog.of(stored, T0 + 10_000);
    assertArrayEquals(new long[] {T0, T0 + 5_000, T0 + 100_000}, log.admittedAtMillis());
    assertArrayEquals(
        new long[] {T0, T0 + 5_000, T0 + 10_000, T0 + 100_000},
        log.admit(T0 + 10_000).admittedAtMillis());
  }

  @Test
  void aLimitBelowOneIsABug() {
    assertThrows(IllegalArgumentException.class, () -> SlidingWindowLog.empty().decide(T0, 0));
  }

  /**
   * A client that sends bursts at random times for ten minutes: no 60-second window ever holds more
   * than the limit, and a request is refused only when a full window's worth is counted.
   */
  @Test
  void noSixtySecondWindowEverHoldsMoreThanTheLimit() {
    Random random = new Random(42);
    int limit = 7;
    SlidingWindowLog log = SlidingWindowLog.empty();
    List<Long> admitted = new ArrayList<>();
    long now = T0;
    while (now < T0 + 600_000) {
      now += random.nextInt(4_000);
      for (int burst = random.nextInt(5); burst >= 0; burst--) {
        log = SlidingWindowLog.of(log.admittedAtMillis(), now);
        RateLimitDecision decision = log.decide(now, limit);
        long counted = countIn(admitted, now - 59_999, now);
        if (decision instanceof RateLimitDecision.Admitted) {
          assertTrue(counted < limit);
          log = log.admit(now);
          admitted.add(now);
        } else {
          assertEquals(limit, counted, "refused only when the window is full");
        }
      }
    }
    for (long start : admitted) {
      assertTrue(countIn(admitted, start, start + 59_999) <= limit, "window from " + start);
    }
  }

  private static long countIn(List<Long> times, long fromMillis, long toMillis) {
    return times.stream().filter(t -> t >= fromMillis && t <= toMillis).count();
  }
}
