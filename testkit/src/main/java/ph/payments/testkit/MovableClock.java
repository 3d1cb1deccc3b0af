package ph.payments.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock in UTC that stands still at the moment it was made until the test moves it, so a time
 * window passes in no time and every reading in between is the same. A service's tests register a
 * subclass as their {@link Clock} bean (gated by {@code spec.name}); a plain test passes one in.
 */
public class MovableClock extends Clock {

  private volatile Instant now = Instant.now();

  /** Moves this clock forward by {@code duration}. */
  public void advance(Duration duration) {
    now = now.plus(duration);
  }

  /** Sets this clock to {@code instant}. */
  public void set(Instant instant) {
    now = instant;
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
