package ph.payments.webhooks;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;
import ph.payments.webhooks.support.Events;
import ph.payments.webhooks.support.Receiver;
import ph.payments.webhooks.support.WebhookServiceTest;

/**
 * The webhook service is stopped in the middle of a delivery's retry schedule, stays down while the
 * retry falls due and while another event arrives, and is started again on the same database: the
 * retry happens (same delivery id), the new event is delivered, and the attempt log has every
 * attempt exactly once.
 */
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RestartIT {

  private final Map<String, Object> properties =
      new java.util.HashMap<>(
          WebhookServiceTest.properties(
              RestartIT.class,
              Map.of(
                  // The receiver is on loopback: only a deployment with the flag reaches it.
                  "webhooks.allow-private-targets", "true",
                  "webhooks.retry-schedule", "1500ms,8s,1500ms,1500ms,1500ms,1500ms",
                  "webhooks.retry-jitter", "0",
                  "webhooks.timeout", "1s",
                  "webhooks.delivery.poll-interval", "200ms")));

  @Test
  void aRestartInTheMiddleOfARetryScheduleLosesNothing() throws Exception {
    String merchant = IdType.MERCHANT.generate();
    try (Receiver receiver = Receiver.start((i, r) -> Receiver.Response.status(i < 2 ? 500 : 200));
        Events events =
            new Events(
                TestKafka.bootstrapServers(), WebhookServiceTest.eventTopic(RestartIT.class))) {
      EmbeddedServer first = ApplicationContext.run(EmbeddedServer.class, properties);
      Events.Event before;
      try {
        CommandReply created =
            WebhookServiceTest.command(
                first.getApplicationContext().getBean(CommandDispatcher.class),
                first.getApplicationContext().getBean(Transactions.class),
                WebhookCommands.ENDPOINT_CREATE,
                merchant,
                "test",
                IdType.WEBHOOK_ENDPOINT.generate(),
                Json.mapper().valueToTree(Map.of("url", receiver.url())));
        assertEquals(201, created.status());
        before = events.send(merchant, Events.payment("payment.succeeded", "test"));
        await().atMost(Duration.ofSeconds(15)).until(() -> receiver.count() == 2);
      } finally {
        // The second retry is due 8 s after the second failure: time for close() on a busy
        // machine (it has taken 6.6 s there; with 1.5 s the retry went out before the stop).
        first.close();
      }

      long deliveryId = receiver.received().get(0).deliveryId();
      assertEquals("pending", deliveryStatus(deliveryId), "scheduled, not lost");
      Events.Event whileDown = events.send(merchant, Events.payment("payment.failed", "test"));
      // The retry falls due while nobody runs.
      long due = receiver.received().get(1).nanos() + Duration.ofMillis(8_500).toNanos();
      Thread.sleep(Math.max(0, (due - System.nanoTime()) / 1_000_000));
      assertEquals(2, receiver.count());

      EmbeddedServer second = ApplicationContext.run(EmbeddedServer.class, properties);
      try {
        await().atMost(Duration.ofSeconds(15)).until(() -> receiver.count() == 4);
        List<Receiver.Received> got = receiver.received();
        assertEquals(deliveryId, got.get(2).deliveryId(), "the same delivery, retried");
        assertEquals(before.id(), Json.tree(got.get(2).body()).get("id").asText());
        assertEquals(whileDown.id(), Json.tree(got.get(3).body()).get("id").asText());
        JsonNode attempts =
            WebhookServiceTest.get(
                    second.getURL().toString(),
                    "/internal/webhook_deliveries/" + deliveryId + "/attempts",
                    merchant,
                    "test")
                .json();
        List<Integer> codes = new ArrayList<>();
        attempts.get("data").forEach(a -> codes.add(a.get("status_code").asInt()));
        assertEquals(List.of(500, 500, 200), codes, "every attempt once");
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> "succeeded".equals(deliveryStatus(deliveryId)));
        Thread.sleep(500);
        assertEquals(4, receiver.count(), "nothing sent twice");
      } finally {
        second.close();
      }
    }
  }

  private static String deliveryStatus(long id) throws Exception {
    try (Connection connection =
            TestDatabase.forClass(RestartIT.class).dataSource().getConnection();
        PreparedStatement select =
            connection.prepareStatement("SELECT status FROM webhook_deliveries WHERE id = ?")) {
      select.setLong(1, id);
      try (ResultSet rs = select.executeQuery()) {
        assertTrue(rs.next());
        return rs.getString(1);
      }
    }
  }
}
