package ph.payments.gateway.commands;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import ph.payments.contracts.commands.Command;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.platform.json.Json;
import ph.payments.platform.outbox.OutboxRelay;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * A command written by the bus reaches Kafka because the gateway's transaction rang its relay when
 * it committed: with the relay's sweep an hour away, nothing else would publish it, and nobody
 * queued a PostgreSQL notification (whose commit-time lock serialises writers cluster-wide).
 */
@MicronautTest(transactional = false)
class OutboxRingIT extends GatewayTest {

  private static final String COMMANDS = "test.outbox-ring.commands";

  @Inject CommandBus bus;
  @Inject OutboxRelay relay;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("outbox.sweep-interval", "1h");
  }

  @Test
  void theBusRingsTheRelayAfterItsCommitAndNotifiesNobody() throws Exception {
    TestKafka.createTopics(3, COMMANDS);
    await().atMost(Duration.ofSeconds(20)).until(relay::isLeader);
    String channel = OutboxRelay.Settings.defaults("api-gateway").channel();
    try (Connection listener = TestDatabase.forClass(getClass()).dataSource().getConnection()) {
      listener.createStatement().execute("LISTEN " + channel);
      List<String> commandIds = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        Command command =
            bus.prepare(
                new CommandBus.Request(
                    COMMANDS,
                    "test_ring.ping",
                    null,
                    "test",
                    null,
                    Json.mapper().createObjectNode().put("n", i)));
        bus.accept(command, COMMANDS);
        commandIds.add(command.commandId());
        Thread.sleep(10);
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> unpublished(commandIds) == 0);
      PGNotification[] notifications = listener.unwrap(PGConnection.class).getNotifications(300);
      assertEquals(0, notifications == null ? 0 : notifications.length);
    }
    assertTrue(relay.publishedCount() >= 20);
  }

  private long unpublished(List<String> commandIds) throws Exception {
    try (Connection connection = TestDatabase.forClass(getClass()).dataSource().getConnection();
        PreparedStatement select =
            connection.prepareStatement(
                "SELECT count(*) FROM outbox WHERE published_at IS NULL AND message_id = ANY (?)")) {
      select.setArray(1, connection.createArrayOf("text", commandIds.toArray()));
      try (ResultSet rs = select.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
