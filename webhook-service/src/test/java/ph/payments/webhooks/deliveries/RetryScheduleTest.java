package ph.payments.webhooks.deliveries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RetryScheduleTest {

  private static final RetrySchedule SPEC = RetrySchedule.parse("1m,5m,30m,2h,6h,24h");

  @Test
  void theSpecScheduleIsSixRetriesSoSevenAttempts() {
    assertEquals(
        List.of(
            Duration.ofMinutes(1),
            Duration.ofMinutes(5),
            Duration.ofMinutes(30),
            Duration.ofHours(2),
            Duration.ofHours(6),
            Duration.ofHours(24)),
        SPEC.steps());
    for (int used = 0; used < 6; used++) {
      assertEquals(Optional.of(SPEC.steps().get(used)), SPEC.next(used, 0, () -> 0.5));
    }
    assertEquals(Optional.empty(), SPEC.next(6, 0, () -> 0.5), "the sixth retry was the last");
  }

  @Test
  void jitterStaysWithinTenPercentEitherWay() {
    Random random = new Random(7);
    Duration min = Duration.ofDays(1);
    Duration max = Duration.ZERO;
    for (int i = 0; i < 10_000; i++) {
      Duration wait = SPEC.next(2, 0.1, random::nextDouble).orElseThrow();
      min = wait.compareTo(min) < 0 ? wait : min;
      max = wait.compareTo(max) > 0 ? wait : max;
    }
    assertTrue(min.compareTo(Duration.ofMinutes(27)) >= 0, min::toString);
    assertTrue(max.compareTo(Duration.ofMinutes(33)) <= 0, max::toString);
    assertTrue(max.minus(min).compareTo(Duration.ofMinutes(5)) > 0, "it does vary");
    assertEquals(Duration.ofMinutes(27), SPEC.next(2, 0.1, () -> 0.0).orElseThrow());
  }

  @Test
  void shortSchedulesForTestsAndLocalRuns() {
    RetrySchedule shortOne = RetrySchedule.parse(" 200ms, 1s ,2m,3h,1d ");
    assertEquals(
        List.of(
            Duration.ofMillis(200),
            Duration.ofSeconds(1),
            Duration.ofMinutes(2),
            Duration.ofHours(3),
            Duration.ofDays(1)),
        shortOne.steps());
    assertEquals(5, shortOne.retries());
    assertEquals(Duration.ofDays(1), shortOne.longest());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "1m,,5m", "5", "1w", "-1s", "0s", "1.5m"})
  void unreadableSchedulesAreRefusedAtStartUp(String text) {
    assertThrows(IllegalArgumentException.class, () -> RetrySchedule.parse(text));
  }
}
