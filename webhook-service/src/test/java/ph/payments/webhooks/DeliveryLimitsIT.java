package ph.payments.webhooks;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import ph.payments.webhooks.support.Events;
import ph.payments.webhooks.support.Receiver;
import ph.payments.webhooks.support.WebhookServiceTest;

/**
 * The limits as shipped (no {@code webhooks.delivery.*} set here): one endpoint gets up to 64
 * attempts at once, the 65th waits for one of them to finish, and an endpoint kept that busy leaves
 * the instance room for everyone else (256 in all). 64 at once is what one endpoint needs for 500
 * events a second when an attempt's cycle takes 100 ms (docs/decisions.md, "Isolation by limits").
 */
@MicronautTest(transactional = false)
class DeliveryLimitsIT extends WebhookServiceTest {

  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final int PER_ENDPOINT = 64;
  private static final Duration HOLD = Duration.ofSeconds(6);

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of(
        "webhooks.allow-private-targets", "true",
        "webhooks.timeout", "30s",
        "webhooks.delivery.poll-interval", "250ms");
  }

  @Test
  void oneEndpointHasSixtyFourAttemptsInFlightAndTheRestOfTheInstanceStaysFree() {
    try (Receiver busy = Receiver.start((i, r) -> Receiver.Response.hang(HOLD));
        Receiver other = Receiver.answering(200)) {
      String merchant = merchant();
      createEndpoint(merchant, "test", busy.url(), "*");
      String otherMerchant = merchant();
      createEndpoint(otherMerchant, "test", other.url(), "*");

      int count = PER_ENDPOINT + 16;
      List<Events.Event> burst = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        burst.add(Events.payment("payment.succeeded", "test"));
      }
      events().sendAll(merchant, burst);
      await().atMost(PATIENCE).until(() -> busy.count() == PER_ENDPOINT);
      events().send(otherMerchant, Events.payment("payment.succeeded", "test"));
      await().atMost(PATIENCE).until(() -> other.count() == 1);
      await().atMost(PATIENCE).until(() -> busy.count() == count);

      List<Receiver.Received> arrivals = busy.received();
      long first = arrivals.get(0).nanos();
      long lastOfTheFirst = arrivals.get(PER_ENDPOINT - 1).nanos();
      long next = arrivals.get(PER_ENDPOINT).nanos();
      long otherArrived = other.received().get(0).nanos();
      assertTrue(
          lastOfTheFirst - first < HOLD.toNanos(),
          "64 attempts went out before any of them finished: "
              + (lastOfTheFirst - first) / 1_000_000
              + " ms");
      assertTrue(
          next - first >= HOLD.toNanos(),
          "the 65th waited for a slot: it arrived " + (next - first) / 1_000_000 + " ms in");
      assertTrue(
          otherArrived - first < HOLD.toNanos(),
          "another endpoint was served while 64 attempts held this one's slots: "
              + (otherArrived - first) / 1_000_000
              + " ms in");
    }
  }
}
