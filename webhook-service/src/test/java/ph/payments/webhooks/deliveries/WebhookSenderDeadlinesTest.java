package ph.payments.webhooks.deliveries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import ph.payments.webhooks.support.Receiver;
import ph.payments.webhooks.targets.TargetPolicy;

/**
 * Each attempt's deadline: it cuts off a receiver that does not answer in time, and an attempt that
 * ends before it takes its deadline out of the queue at once, instead of leaving it there (and the
 * request it would cancel, body and all) for the rest of the timeout.
 */
class WebhookSenderDeadlinesTest {

  private static final byte[] BODY = "{\"id\":\"evt_1\"}".getBytes(StandardCharsets.UTF_8);

  @Test
  void anAttemptThatEndsInTimeLeavesNoDeadlineBehind() {
    try (Receiver receiver = Receiver.answering(200);
        WebhookSender sender =
            new WebhookSender(Duration.ofMinutes(2), 4, TargetPolicy.Resolver.SYSTEM, true)) {
      for (int i = 0; i < 50; i++) {
        assertEquals(200, sender.send(request(receiver.url(), i)).statusCode());
      }
      assertEquals(50, receiver.count());
      assertEquals(0, sender.pendingDeadlines(), "deadlines of finished attempts are dropped");
    }
  }

  @Test
  void aReceiverThatDoesNotAnswerInTimeIsCutOff() {
    try (Receiver receiver =
            Receiver.start((i, r) -> Receiver.Response.hang(Duration.ofSeconds(5)));
        WebhookSender sender =
            new WebhookSender(Duration.ofMillis(300), 4, TargetPolicy.Resolver.SYSTEM, true)) {
      long started = System.nanoTime();
      AttemptOutcome outcome = sender.send(request(receiver.url(), 1));
      long tookMillis = (System.nanoTime() - started) / 1_000_000;
      assertNull(outcome.statusCode());
      assertEquals("timed out: no complete response within 300ms", outcome.error());
      assertTrue(tookMillis < 3_000, "cut off at the deadline, not at the reply: " + tookMillis);
      assertEquals(0, sender.pendingDeadlines());
    }
  }

  private static WebhookSender.Request request(String url, long deliveryId) {
    return new WebhookSender.Request(url, BODY, "payment.succeeded", deliveryId, "t=1,v1=00");
  }
}
