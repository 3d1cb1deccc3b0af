package ph.payments.webhooks.deliveries;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import ph.payments.webhooks.WebhookSettings;

/**
 * The scheduler's rule for the fan-out's hand-off: once one of a target's deliveries had to wait
 * for a claim, the target's new deliveries wait behind it, even when a slot is free, until a claim
 * finds nothing more due for it. Claims take free slots as before. (The scheduler here has no
 * database: its claims fail, so nothing but this test clears a target.)
 */
class HandOffRuleTest {

  private static final int PER_TARGET = 2;

  private DeliveryScheduler scheduler;

  @BeforeEach
  void start() {
    WebhookSettings settings =
        new WebhookSettings(
            RetrySchedule.parse("1m"),
            0,
            Duration.ofSeconds(5),
            false,
            16,
            Duration.ofHours(1),
            8,
            PER_TARGET,
            Duration.ofMinutes(10),
            Duration.ofDays(1));
    scheduler = new DeliveryScheduler(null, null, null, settings, Clock.systemUTC(), null);
    scheduler.start();
  }

  @AfterEach
  void stop() {
    scheduler.stop();
  }

  @Test
  void aTargetWithADeliveryWaitingGetsNoHandOffUntilAClaimFindsItDrained() {
    Reservations claim = new Reservations(scheduler);
    assertTrue(claim.reserve("a") && claim.reserve("a"), "a claim fills the target");
    assertFalse(Reservations.forHandOff(scheduler).reserve("a"), "full: this delivery waits");

    claim.giveBack("a");
    assertFalse(
        Reservations.forHandOff(scheduler).reserve("a"),
        "a slot is free, but a delivery of the target waits: the new one waits behind it");
    Reservations other = Reservations.forHandOff(scheduler);
    assertTrue(other.reserve("b"), "other targets are unaffected");
    other.rolledBack();
    assertTrue(claim.reserve("a"), "a claim takes the free slot (for the waiting delivery)");

    scheduler.drained(); // a claim that left slots free, with the target still at its limit
    claim.giveBack("a");
    assertFalse(
        Reservations.forHandOff(scheduler).reserve("a"),
        "the target was full when the claim ended: its queue may hold more");

    scheduler.drained(); // and one that found it below its limit: nothing more was due
    Reservations handOff = Reservations.forHandOff(scheduler);
    assertTrue(handOff.reserve("a"), "drained: hand-offs again");
    handOff.rolledBack();
    claim.rolledBack();
  }
}
