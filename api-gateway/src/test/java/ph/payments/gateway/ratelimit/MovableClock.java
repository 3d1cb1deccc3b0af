package ph.payments.gateway.ratelimit;

import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/**
 * The gateway's clock in {@link SlidingWindowIT}: it stands still until the test moves it, so a
 * minute passes in no time. Gated by {@code spec.name}, so no other test class sees it.
 */
@Singleton
@Replaces(Clock.class)
@Requires(property = "spec.name", value = "SlidingWindowIT")
public class MovableClock extends Clock {

  private volatile Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);

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
    return Clock.fixed(now, zone);
  }
}
