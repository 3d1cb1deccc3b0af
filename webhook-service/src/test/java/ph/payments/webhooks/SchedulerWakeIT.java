package ph.payments.webhooks;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import ph.payments.webhooks.deliveries.DeliveryScheduler;
import ph.payments.webhooks.support.Events;
import ph.payments.webhooks.support.Receiver;
import ph.payments.webhooks.support.WebhookServiceTest;

/**
 * When a finished attempt wakes the scheduler (docs/webhooks.md, "Fast path"): only while a
 * delivery may be waiting for a slot. The poll interval here is a minute, far beyond the tests'
 * patience, so a delivery that waits for a slot is delivered in time only if the slot freed woke
 * the scheduler, and a claim counted is one that a wake-up caused.
 */
@MicronautTest(transactional = false)
class SchedulerWakeIT extends WebhookServiceTest {

  private static final Duration PATIENCE = Duration.ofSeconds(15);
  private static final Duration HOLD = Duration.ofMillis(1500);
  private static final int CONCURRENCY = 4;
  private static final int PER_TARGET = 2;

  @Inject DeliveryScheduler scheduler;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of(
        "webhooks.allow-private-targets", "true",
        "webhooks.timeout", "5s",
        "webhooks.delivery.concurrency", "" + CONCURRENCY,
        "webhooks.delivery.per-endpoint", "" + PER_TARGET,
        "webhooks.delivery.poll-interval", "60s");
  }

  @Test
  void attemptsThatFinishWithNothingWaitingStartNoClaim() {
    try (Receiver receiver = Receiver.answering(200)) {
      String merchant = merchant();
      createEndpoint(merchant, "test", receiver.url());
      int count = 10;
      long claimsBefore = scheduler.claimPasses();
      for (int i = 1; i <= count; i++) {
        events().send(merchant, Events.payment("payment.succeeded", "test"));
        int expected = i;
        await().atMost(PATIENCE).until(() -> receiver.count() == expected);
        await().atMost(PATIENCE).until(() -> scheduler.inFlight() == 0);
      }
      long claims = scheduler.claimPasses() - claimsBefore;
      // Each was handed off where it was created; waking for each freed slot was a claim each.
      // One claim may be the minute's poll, if the test happens to span it.
      assertTrue(claims <= 1, count + " attempts, each on a free slot, made " + claims + " claims");
    }
  }

  @Test
  void aDeliveryWaitingForItsTargetsSlotIsClaimedWhenOneFrees() {
    try (Receiver receiver =
        Receiver.start(
            (i, r) ->
                i < PER_TARGET ? Receiver.Response.hang(HOLD) : Receiver.Response.status(200))) {
      String merchant = merchant();
      createEndpoint(merchant, "test", receiver.url());
      List<Events.Event> burst = new ArrayList<>();
      for (int i = 0; i < PER_TARGET + 1; i++) {
        burst.add(Events.payment("payment.succeeded", "test"));
      }
      long sent = System.nanoTime();
      events().sendAll(merchant, burst);
      await().atMost(PATIENCE).until(() -> receiver.count() == PER_TARGET + 1);
      List<Receiver.Received> arrivals = receiver.received();
      long waited = arrivals.get(PER_TARGET).nanos() - arrivals.get(0).nanos();
      assertTrue(
          waited >= HOLD.toNanos(),
          "the third waited for one of the first two: " + waited / 1_000_000 + " ms");
      assertTrue(
          arrivals.get(PER_TARGET).nanos() - sent < PATIENCE.toNanos(),
          "and went out when a slot freed, not at the next poll");
    }
  }

  @Test
  void aDeliveryWaitingForTheInstancesSlotIsClaimedWhenOneFrees() {
    List<Receiver> receivers = new ArrayList<>();
    try {
      String merchant = merchant();
      for (int i = 0; i < CONCURRENCY + 1; i++) {
        Receiver receiver = Receiver.start((n, r) -> Receiver.Response.hang(HOLD));
        receivers.add(receiver);
        createEndpoint(merchant, "test", receiver.url());
      }
      // One event, five endpoints (five targets), four slots in the instance: one delivery finds
      // none and waits for the first of the four to finish.
      long sent = System.nanoTime();
      events().send(merchant, Events.payment("payment.succeeded", "test"));
      await()
          .atMost(PATIENCE)
          .until(() -> receivers.stream().allMatch(receiver -> receiver.count() == 1));
      List<Long> arrivals =
          receivers.stream().map(receiver -> receiver.received().get(0).nanos()).sorted().toList();
      long waited = arrivals.get(CONCURRENCY) - arrivals.get(0);
      assertTrue(
          waited >= HOLD.toNanos(),
          "the fifth waited for a slot of the instance: " + waited / 1_000_000 + " ms");
      assertTrue(
          arrivals.get(CONCURRENCY) - sent < PATIENCE.toNanos(),
          "and went out when a slot freed, not at the next poll");
    } finally {
      receivers.forEach(Receiver::close);
    }
  }
}
