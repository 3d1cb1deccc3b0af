package ph.payments.webhooks;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import ph.payments.testkit.TestDatabase;
import ph.payments.webhooks.deliveries.DeliveryScheduler;
import ph.payments.webhooks.deliveries.JdbcDeliveries;
import ph.payments.webhooks.support.Events;
import ph.payments.webhooks.support.Receiver;
import ph.payments.webhooks.support.WebhookServiceTest;

/**
 * The direct hand-off: a new event's deliveries that find a free slot in this instance are leased
 * to it in the transaction that creates them and attempted once it commits, with no claim and no
 * NOTIFY; the others wait, unleased and due, for a claim. Limits hold however the two paths mix,
 * and a transaction that rolls back starts nothing and keeps no slot.
 */
@MicronautTest(transactional = false)
class HandOffIT extends WebhookServiceTest {

  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final int CONCURRENCY = 4;
  private static final int PER_TARGET = 2;

  @Inject DeliveryScheduler scheduler;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of(
        "webhooks.allow-private-targets", "true",
        "webhooks.retry-schedule", "1200ms,1200ms,1200ms,1200ms,1200ms,1200ms",
        "webhooks.timeout", "5s",
        "webhooks.delivery.concurrency", "" + CONCURRENCY,
        "webhooks.delivery.per-endpoint", "" + PER_TARGET,
        "webhooks.delivery.poll-interval", "250ms",
        "consumers.retry-delay", "200ms");
  }

  @Test
  void withAFreeSlotADeliveryIsLeasedWhereItIsCreatedAndNobodyIsNotified() throws Exception {
    try (Receiver receiver =
            Receiver.start((i, r) -> Receiver.Response.hang(Duration.ofMillis(1500)));
        Notifications notifications = new Notifications()) {
      String merchant = merchant();
      createEndpoint(merchant, "test", receiver.url());
      Events.Event event = events().send(merchant, Events.payment("payment.succeeded", "test"));
      await().atMost(PATIENCE).until(() -> receiver.count() == 1);

      // The attempt is running: its delivery row is still as the fan-out transaction wrote it.
      List<Row> rows = rows(event.id());
      assertEquals(1, rows.size());
      assertTrue(rows.get(0).leased(), "leased");
      assertTrue(rows.get(0).writtenWithEvent(), "leased by the transaction that created it");
      await().atMost(PATIENCE).until(() -> "succeeded".equals(rows(event.id()).get(0).status()));
      assertEquals(0, notifications.received(), "nothing waited for a claim: no NOTIFY");
    }
  }

  @Test
  void withTheTargetFullADeliveryWaitsUnleasedAndIsClaimedWhenASlotFrees() throws Exception {
    try (Receiver receiver =
            Receiver.start(
                (i, r) ->
                    i < PER_TARGET
                        ? Receiver.Response.hang(Duration.ofMillis(2500))
                        : Receiver.Response.status(200));
        Notifications notifications = new Notifications()) {
      String merchant = merchant();
      createEndpoint(merchant, "test", receiver.url());
      List<Events.Event> sent = new ArrayList<>();
      for (int i = 0; i < PER_TARGET + 1; i++) {
        sent.add(events().send(merchant, Events.payment("payment.succeeded", "test")));
      }
      await().atMost(PATIENCE).until(() -> receiver.count() == PER_TARGET);
      await().atMost(PATIENCE).until(() -> rowsOf(sent).size() == PER_TARGET + 1);

      // While the first two hang on the target's two slots: they were handed off, the third waits.
      List<Row> rows = rowsOf(sent);
      for (Row row : rows.subList(0, PER_TARGET)) {
        assertTrue(row.leased() && row.writtenWithEvent(), "handed off: " + row);
      }
      Row waiting = rows.get(PER_TARGET);
      assertEquals("pending", waiting.status());
      assertFalse(waiting.leased(), "no slot, no lease: " + waiting);
      assertTrue(waiting.due(), "due now, for whoever has a slot first: " + waiting);
      assertTrue(notifications.received() >= 1, "the waiting delivery was announced");

      await().atMost(PATIENCE).until(() -> receiver.count() == PER_TARGET + 1);
      await()
          .atMost(PATIENCE)
          .until(() -> rowsOf(sent).stream().allMatch(row -> row.status().equals("succeeded")));
      assertEquals(
          rows.get(PER_TARGET).id(), receiver.received().get(PER_TARGET).deliveryId(), "claimed");
    }
  }

  /**
   * The second event's fan-out fails twice after leasing its delivery (a trigger raises), so its
   * transaction rolls back: with the first event in the same poll, the batch rolls back and is
   * applied again one by one. The rolled-back leases must start nothing and keep no slot: the
   * target has two, so two kept would block it for good.
   */
  @Test
  void aRolledBackFanOutStartsNothingAndGivesItsSlotsBack() throws Exception {
    transactions.inTransaction(
        c -> {
          try (Statement ddl = c.createStatement()) {
            ddl.execute("CREATE SEQUENCE poison_tries");
            ddl.execute("CREATE TABLE poison (event_id text PRIMARY KEY)");
            ddl.execute(
                "CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                    + " IF EXISTS (SELECT 1 FROM poison WHERE event_id = NEW.event_id)"
                    + " AND nextval('poison_tries') <= 2 THEN"
                    + " RAISE EXCEPTION 'poisoned fan-out of %', NEW.event_id; END IF;"
                    + " RETURN NEW; END $$");
            ddl.execute(
                "CREATE TRIGGER poison AFTER INSERT ON webhook_deliveries"
                    + " FOR EACH ROW EXECUTE FUNCTION poison()");
          }
          return null;
        });
    try (Receiver receiver = Receiver.answering(200)) {
      String merchant = merchant();
      createEndpoint(merchant, "test", receiver.url());
      Events.Event first = Events.payment("payment.succeeded", "test");
      Events.Event second = Events.payment("payment.succeeded", "test");
      // One key, so one partition and, sent together, one poll.
      Events.Event poisoned =
          new Events.Event(second.id(), second.type(), first.paymentId(), second.body());
      String poisonedId = poisoned.id();
      transactions.inTransaction(
          c -> {
            try (var insert = c.prepareStatement("INSERT INTO poison VALUES (?)")) {
              insert.setString(1, poisonedId);
              insert.executeUpdate();
            }
            return null;
          });
      events().sendAll(merchant, List.of(first, poisoned));

      await()
          .atMost(PATIENCE)
          .until(
              () -> {
                List<Row> both = rowsOf(List.of(first, poisoned));
                return both.size() == 2 && both.stream().allMatch(Row::succeeded);
              });
      List<Row> rows = rowsOf(List.of(first, poisoned));
      assertEquals(
          3L,
          (long)
              transactions.inTransaction(
                  c -> {
                    try (var select = c.prepareStatement("SELECT last_value FROM poison_tries");
                        var rs = select.executeQuery()) {
                      rs.next();
                      return rs.getLong(1);
                    }
                  }),
          "the poisoned fan-out failed twice, then applied");
      Thread.sleep(500); // an attempt of a rolled-back lease would arrive meanwhile
      assertEquals(
          rows.stream().map(Row::id).toList(),
          receiver.received().stream().map(Receiver.Received::deliveryId).toList(),
          "each committed delivery attempted once, nothing else");
      await().atMost(PATIENCE).until(() -> scheduler.inFlight() == 0);
    }
  }

  @Test
  void limitsHoldUnderABurstWhetherHandedOffOrClaimed() {
    Duration hold = Duration.ofMillis(200);
    List<Receiver> receivers = new ArrayList<>();
    try {
      String merchant = merchant();
      for (int i = 0; i < 3; i++) {
        Receiver receiver = Receiver.start((n, r) -> Receiver.Response.hang(hold));
        receivers.add(receiver);
        createEndpoint(merchant, "test", receiver.url());
      }
      int count = 15;
      List<Events.Event> burst = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        burst.add(Events.payment("payment.succeeded", "test"));
      }
      events().sendAll(merchant, burst);
      await()
          .atMost(PATIENCE)
          .until(() -> receivers.stream().allMatch(receiver -> receiver.count() == count));

      // Each request is inside its attempt's slot, so requests overlapping at a receiver (or at
      // all of them) are never more than the slots of the target (of the instance).
      List<Long> all = new ArrayList<>();
      for (Receiver receiver : receivers) {
        List<Long> starts = receiver.received().stream().map(Receiver.Received::nanos).toList();
        int most = mostOverlapping(starts, hold);
        assertTrue(most <= PER_TARGET, "at one target at once: " + most);
        all.addAll(starts);
      }
      int most = mostOverlapping(all, hold);
      assertTrue(most <= CONCURRENCY, "at once in the instance: " + most);
      assertTrue(most >= PER_TARGET, "the burst did run in parallel: " + most);
    } finally {
      receivers.forEach(Receiver::close);
    }
  }

  /** The most of the intervals {@code [start, start + length)} that share an instant. */
  private static int mostOverlapping(List<Long> starts, Duration length) {
    List<long[]> edges = new ArrayList<>();
    for (long start : starts) {
      edges.add(new long[] {start, 1});
      edges.add(new long[] {start + length.toNanos(), -1});
    }
    // An interval ending where another starts does not overlap it: ends first.
    edges.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    int open = 0;
    int most = 0;
    for (long[] edge : edges) {
      open += (int) edge[1];
      most = Math.max(most, open);
    }
    return most;
  }

  /**
   * A delivery row as it stands.
   *
   * @param writtenWithEvent last written by the transaction that stored its event (same {@code
   *     xmin}): the row is as the fan-out created it
   */
  private record Row(
      long id, String status, boolean leased, boolean due, boolean writtenWithEvent) {
    boolean succeeded() {
      return status.equals("succeeded");
    }
  }

  private List<Row> rowsOf(List<Events.Event> events) {
    List<Row> rows = new ArrayList<>();
    for (Events.Event event : events) {
      rows.addAll(rows(event.id()));
    }
    return rows;
  }

  private List<Row> rows(String eventId) {
    return transactions.inTransaction(
        c -> {
          try (var select =
              c.prepareStatement(
                  "SELECT d.id, d.status, d.lease_token IS NOT NULL,"
                      + " d.next_attempt_at <= now(), d.xmin::text = e.xmin::text"
                      + " FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id"
                      + " WHERE d.event_id = ? ORDER BY d.id")) {
            select.setString(1, eventId);
            try (var rs = select.executeQuery()) {
              List<Row> rows = new ArrayList<>();
              while (rs.next()) {
                rows.add(
                    new Row(
                        rs.getLong(1),
                        rs.getString(2),
                        rs.getBoolean(3),
                        rs.getBoolean(4),
                        rs.getBoolean(5)));
              }
              return rows;
            }
          }
        });
  }

  /** LISTENs, as the schedulers do, on {@value JdbcDeliveries#CHANNEL}. */
  private final class Notifications implements AutoCloseable {
    private final Connection connection;
    private int received;

    Notifications() throws SQLException {
      TestDatabase database = TestDatabase.forClass(HandOffIT.class);
      connection =
          DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
      try (Statement listen = connection.createStatement()) {
        listen.execute("LISTEN " + JdbcDeliveries.CHANNEL);
      }
    }

    /** How many notifications arrived since this started listening. */
    int received() throws SQLException {
      PGNotification[] arrived = connection.unwrap(PGConnection.class).getNotifications(200);
      received += arrived == null ? 0 : arrived.length;
      return received;
    }

    @Override
    public void close() throws SQLException {
      connection.close();
    }
  }
}
