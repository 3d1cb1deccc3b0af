package ph.payments.platform.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class OutboxRelaySettingsTest {

  @Test
  void theBusyPauseIsFiveMillisecondsUnlessSetAndEachCopyKeepsIt() {
    OutboxRelay.Settings defaults = OutboxRelay.Settings.defaults("payments-service");
    assertEquals(Duration.ofMillis(5), defaults.busyPause());

    OutboxRelay.Settings longer = defaults.withBusyPause(Duration.ofMillis(8));
    assertEquals(Duration.ofMillis(8), longer.busyPause());
    assertEquals(
        Duration.ofMillis(8),
        longer
            .withSweepInterval(Duration.ofMillis(200))
            .withPurgeAfter(Duration.ZERO)
            .withBatchSize(7)
            .busyPause());
  }

  /** The pause is a notification wait in whole milliseconds, and a wait of 0 ms never ends. */
  @Test
  void aBusyPauseUnderOneMillisecondIsRefused() {
    OutboxRelay.Settings defaults = OutboxRelay.Settings.defaults("payments-service");
    assertThrows(IllegalArgumentException.class, () -> defaults.withBusyPause(Duration.ZERO));
    assertThrows(
        IllegalArgumentException.class, () -> defaults.withBusyPause(Duration.ofNanos(999_999)));
  }
}
