package ph.payments.payments.payments;

import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the test moves; replaces the system clock only in the flow tests that move it. */
@Singleton
@Replaces(Clock.class)
@Requires(
    property = "spec.name",
    pattern = "PaymentFlowIT|RefundFlowIT|PayoutFlowIT|PaymentLinkFlowIT|InvoiceFlowIT")
public class MovableClock extends Clock {

  private volatile Instant now = Instant.now();

  public void advance(Duration duration) {
    now = now.plus(duration);
  }

  public void set(Instant instant) {
    now = instant;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now;
  }
}
