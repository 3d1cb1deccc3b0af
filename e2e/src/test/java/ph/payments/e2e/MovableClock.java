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

  private final AtomicReference<Duration> offset;
  private final ZoneId zone;

  MovableClock() {
    this(new AtomicReference<>(Duration.ZERO), ZoneOffset.UTC);
  }

  private MovableClock(AtomicReference<Duration> offset, ZoneId zone) {
    this.offset = offset;
    this.zone = zone;
  }

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
    return zone;
  }

  /** The same moving time seen in {@code other}: a later {@link #advance} moves both. */
  @Override
  public Clock withZone(ZoneId other) {
    return new MovableClock(offset, other);
  }
}
