package ph.payments.gateway.support;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that runs with the system clock but can be moved forward, for tests of time windows
 * (idempotency records expiring after 24 hours) without waiting. Register it as the {@link Clock}
 * bean in a factory gated by {@code spec.name}, so only the test that moves it sees it.
 */
public final class MovableClock extends Clock {

  private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

  /** Moves this clock forward by {@code amount}, from now on for everything that reads it. */
  public void advance(Duration amount) {
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
