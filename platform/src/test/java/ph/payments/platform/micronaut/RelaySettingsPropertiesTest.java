package ph.payments.platform.micronaut;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.Environment;
import io.micronaut.context.exceptions.ConfigurationException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import ph.payments.platform.outbox.OutboxRelay;

/**
 * The relay's settings come from {@link OutboxRelay.Settings#defaults}, each overridden only by its
 * property when that is set: the defaults are written in one place.
 */
class RelaySettingsPropertiesTest {

  @Test
  void unsetPropertiesKeepTheRelaysDefaults() {
    assertEquals(OutboxRelay.Settings.defaults("payments-service"), settingsWith(Map.of()));
  }

  @Test
  void setPropertiesOverrideTheirDefaultsOnly() {
    OutboxRelay.Settings settings =
        settingsWith(
            Map.of(
                "outbox.sweep-interval", "250ms",
                "outbox.purge-after", "2h",
                "outbox.busy-pause", "7ms"));
    assertEquals(Duration.ofMillis(250), settings.sweepInterval());
    assertEquals(Duration.ofHours(2), settings.purgeAfter());
    assertEquals(Duration.ofMillis(7), settings.busyPause());
    assertEquals(
        OutboxRelay.Settings.defaults("payments-service")
            .withSweepInterval(Duration.ofMillis(250))
            .withPurgeAfter(Duration.ofHours(2))
            .withBusyPause(Duration.ofMillis(7)),
        settings,
        "the rest are the defaults");
  }

  @Test
  void aValueThatIsNotADurationStopsTheStart() {
    ConfigurationException refused =
        assertThrows(
            ConfigurationException.class, () -> settingsWith(Map.of("outbox.busy-pause", "soon")));
    assertTrue(refused.getMessage().contains("outbox.busy-pause"), refused.getMessage());
  }

  /** What the factory makes of {@code properties}, read as a service reads its configuration. */
  private static OutboxRelay.Settings settingsWith(Map<String, Object> properties) {
    try (ApplicationContext context = ApplicationContext.builder().properties(properties).build()) {
      Environment environment = context.getEnvironment().start();
      return new PlatformFactory().relaySettings("payments-service", environment);
    }
  }
}
