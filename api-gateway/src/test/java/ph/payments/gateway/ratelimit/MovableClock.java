package ph.payments.gateway.ratelimit;

import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The gateway's clock in {@link SlidingWindowIT}: it stands still until the test moves it, so a
 * minute passes in no time. Gated by {@code spec.name}, so no other test class sees it.
 */
@Singleton
@Replaces(Clock.class)
@Requires(property = "spec.name", value = "SlidingWindowIT")
public class MovableClock extends ph.payments.testkit.MovableClock {

  public MovableClock() {
    set(Instant.now().truncatedTo(ChronoUnit.SECONDS));
  }
}
