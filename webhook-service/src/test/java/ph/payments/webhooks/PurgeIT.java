package ph.payments.webhooks;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import ph.payments.webhooks.deliveries.JdbcDeliveries;
import ph.payments.webhooks.deliveries.PurgeOldAttempts;
import ph.payments.webhooks.support.Events;
import ph.payments.webhooks.support.Receiver;
import ph.payments.webhooks.support.WebhookServiceTest;

/**
 * Attempts are kept 90 days and then purged with the deliveries that finished by then; pending
 * deliveries and the events themselves stay. Time is moved on an injected clock.
 */
@MicronautTest(transactional = false)
class PurgeIT extends WebhookServiceTest {

  @Inject MovableClock clock;
  @Inject PurgeOldAttempts purge;

  @Override
  protected Map<String, String> extraProperties() {
    // Retries far beyond the test, so a failed delivery simply stays pending. The receivers are on
    // loopback, which only a deployment with the flag lets webhooks reach.
    return Map.of(
        "spec.name", "PurgeIT",
        "webhooks.allow-private-targets", "true",
        "webhooks.retry-schedule", "400d,400d,400d,400d,400d,400d",
        "webhooks.purge.interval", "1000d");
  }

  @Test
  void attemptsOlderThanNinetyDaysArePurgedAndEventsAreKept() {
    try (Receiver ok = Receiver.answering(200);
        Receiver failing = Receiver.answering(500)) {
      String merchant = merchant();
      createEndpoint(merchant, "test", ok.url());
      createEndpoint(merchant, "test", failing.url(), "payment.expired");

      events().send(merchant, Events.payment("payment.succeeded", "test"));
      events().send(merchant, Events.payment("payment.expired", "test"));
      await().atMost(Duration.ofSeconds(15)).until(() -> ok.count() == 1 && failing.count() == 1);
      long old = ok.received().get(0).deliveryId();
      long pending = failing.received().get(0).deliveryId();
      awaitAttempts(old, 1);
      awaitAttempts(pending, 1);

      clock.advance(Duration.ofDays(89));
      events().send(merchant, Events.payment("payment.succeeded", "test"));
      await().atMost(Duration.ofSeconds(15)).until(() -> ok.count() == 2);
      long recent = ok.received().get(1).deliveryId();
      awaitAttempts(recent, 1);

      clock.advance(Duration.ofDays(1).minusMinutes(1));
      assertEquals(new JdbcDeliveries.Purged(0, 0), purge.purge(), "90 days are not over yet");

      clock.advance(Duration.ofMinutes(2));
      assertEquals(new JdbcDeliveries.Purged(2, 1), purge.purge());
      assertEquals(404, get("/internal/webhook_deliveries/" + old, merchant, "test").status());
      assertEquals(1, attempts(recent), "a day old: kept");
      assertEquals(
          "pending",
          get("/internal/webhook_deliveries/" + pending, merchant, "test")
              .json()
              .get("status")
              .asText(),
          "a pending delivery is kept");
      assertEquals(0, attempts(pending), "its attempt of 90 days ago is not");
      assertEquals(3L, count("SELECT count(*) FROM webhook_events"), "events are kept forever");
      assertEquals(new JdbcDeliveries.Purged(0, 0), purge.purge(), "nothing twice");
    }
  }

  private void awaitAttempts(long delivery, int count) {
    await().atMost(Duration.ofSeconds(15)).until(() -> attempts(delivery) == count);
  }

  private int attempts(long delivery) {
    return (int) count("SELECT count(*) FROM webhook_attempts WHERE delivery_id = " + delivery);
  }

  private long count(String query) {
    AtomicReference<Long> result = new AtomicReference<>();
    transactions.inTransaction(
        c -> {
          try (var rs = c.createStatement().executeQuery(query)) {
            rs.next();
            result.set(rs.getLong(1));
          }
          return null;
        });
    return result.get();
  }

  /** The system clock, moved forward by the test. */
  @Singleton
  @Replaces(Clock.class)
  @Requires(property = "spec.name", value = "PurgeIT")
  static class MovableClock extends Clock {
    private volatile Duration offset = Duration.ZERO;

    void advance(Duration duration) {
      offset = offset.plus(duration);
    }

    @Override
    public Instant instant() {
      return Instant.now().plus(offset);
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
}
