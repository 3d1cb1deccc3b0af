package ph.payments.e2e;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The system clock plus an offset the test moves forward: the {@link Clock} of a gateway run by
 * {@link SystemUnderTest#startWithGatewayClock}, so a window (an embed token's ttl) can pass
 * without waiting. Only that gateway's time moves; the other services keep the real time.
 */
final class MovableClock extends Clock {

  private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

  /** Moves this clock forward by {@code amount}, from now on for everything that reads it. */
  void advance(Duration amount) {
    offset.accumulateAndGet(amount, Duration::plus);
  }

  @Override
  public Instant instant() {
    return Instant.now().plus(offset.get());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("the system works in UTC");
  }
}
