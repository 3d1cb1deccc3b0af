package ph.payments.payments.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.outbox.OutboxWriter;
import ph.payments.platform.tx.JdbcTransactions;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.TestDatabase;

/**
 * The reconciliation poll of SPEC part 6 against real PostgreSQL: writers that commit out of
 * sequence order never make a poller skip or repeat an event.
 */
class EventLogIT {

  private static TestDatabase database;
  private static Transactions transactions;
  private static EventLog log;

  @BeforeAll
  static void migrate() {
    database = TestDatabase.create("event_log");
    Flyway.configure()
        .dataSource(database.dataSource())
        .locations("classpath:db/platform", "classpath:db/migration")
        .outOfOrder(true)
        .load()
        .migrate();
    transactions = new JdbcTransactions(database.dataSource());
    log = new EventLog(new OutboxWriter(Clock.systemUTC(), "outbox_events_it"), Clock.systemUTC());
  }

  @AfterAll
  static void drop() {
    database.close();
  }

  @Test
  void aLongTransactionInAnotherDatabaseDoesNotHoldTheListBackButOneHereDoes() throws Exception {
    String merchant = "mer_" + "0".repeat(25) + "4";
    try (TestDatabase other = TestDatabase.create("event_log_other");
        Connection elsewhere = other.dataSource().getConnection();
        Connection here = database.dataSource().getConnection()) {
      // A writing transaction in another database of the server, open throughout.
      elsewhere.setAutoCommit(false);
      elsewhere.createStatement().execute("CREATE TABLE busy (n int); INSERT INTO busy VALUES (1)");
      appendCommitted(merchant, "pay_one");
      assertEquals(List.of("pay_one"), listed(merchant), "another database holds nothing back");

      // A transaction of this database that took its id before the next event's: it could
      // still write an event sorting earlier, so the later event waits for it.
      here.setAutoCommit(false);
      here.createStatement().execute("SELECT pg_current_xact_id()");
      appendCommitted(merchant, "pay_two");
      assertEquals(List.of("pay_one"), listed(merchant), "held back by this database's writer");
      here.commit();
      assertEquals(List.of("pay_one", "pay_two"), listed(merchant));
      elsewhere.rollback();
    }
  }

  private static void appendCommitted(String merchant, String resource) {
    transactions.inTransaction(
        connection ->
            log.append(
                connection,
                new EventLog.Subject(merchant, "test", "payment", resource, resource),
                "payment.succeeded",
                Json.mapper().createObjectNode().put("id", resource)));
  }

  private static List<String> listed(String merchant) {
    EventLog.Page page =
        transactions.inTransaction(c -> log.list(c, merchant, "test", null, null, 100));
    List<String> resources = new ArrayList<>();
    page.events().forEach(b -> resources.add(Json.tree(b).at("/data/object/id").asText()));
    return resources;
  }

  @Test
  void eightWritersCommittingOutOfOrderNeverMakeThePollerSkipOrRepeat() throws Exception {
    String merchant = "mer_" + "0".repeat(25) + "1";
    int writers = 8;
    int eventsPerWriter = 60;
    int total = writers * eventsPerWriter;
    AtomicBoolean writing = new AtomicBoolean(true);
    ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> writes = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      writes.add(
          pool.submit(
              () -> {
                start.await();
                for (int n = 0; n < eventsPerWriter; n++) {
                  String resource = "pay_w" + writer + "_" + n;
                  transactions.inTransaction(
                      connection -> {
                        log.append(
                            connection,
                            new EventLog.Subject(merchant, "test", "payment", resource, resource),
                            "payment.succeeded",
                            Json.mapper().createObjectNode().put("id", resource));
                        // Hold the transaction open for a random while, so later sequence
                        // numbers routinely commit before earlier ones.
                        sleepMillis(ThreadLocalRandom.current().nextInt(0, 15));
                        return null;
                      });
                }
                return null;
              }));
    }

    // The poller: keep the highest processed id, ask for the next page, follow has_more.
    Future<List<String>> poller =
        pool.submit(
            () -> {
              List<String> seen = new ArrayList<>();
              start.await();
              long giveUpAt = Long.MAX_VALUE;
              while (true) {
                // After the writers finish, visibility can still trail (any open transaction on
                // the server holds it back); a skipped event would never show up at all.
                if (!writing.get() && giveUpAt == Long.MAX_VALUE) {
                  giveUpAt = System.nanoTime() + Duration.ofSeconds(15).toNanos();
                }
                boolean done = seen.size() >= total || System.nanoTime() > giveUpAt;
                EventLog.Page page =
                    transactions.inTransaction(
                        c -> log.list(c, merchant, "test", null, seenLast(seen), 100));
                for (byte[] body : page.events()) {
                  seen.add(Json.tree(body).get("id").asText());
                }
                if (!page.hasMore()) {
                  if (done) {
                    // One more look: nothing beyond the expected events may appear.
                    EventLog.Page extra =
                        transactions.inTransaction(
                            c -> log.list(c, merchant, "test", null, seenLast(seen), 100));
                    extra.events().forEach(b -> seen.add(Json.tree(b).get("id").asText()));
                    return seen;
                  }
                  sleepMillis(5);
                }
              }
            });

    start.countDown();
    for (Future<?> write : writes) {
      write.get();
    }
    writing.set(false);
    List<String> seen = poller.get();
    pool.shutdown();

    assertEquals(total, seen.size(), "every event seen");
    assertEquals(seen.size(), new HashSet<>(seen).size(), "no event seen twice");
    List<String> sorted = new ArrayList<>(seen);
    sorted.sort(String::compareTo);
    assertEquals(sorted, seen, "ids arrive in ascending order");
  }

  @Test
  void anEventOfAnOpenTransactionIsNotListedUntilItCommits() throws Exception {
    String merchant = "mer_" + "0".repeat(25) + "2";
    CountDownLatch written = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    Future<?> slow =
        pool.submit(
            () ->
                transactions.inTransaction(
                    connection -> {
                      log.append(
                          connection,
                          new EventLog.Subject(merchant, "test", "payment", "pay_slow", "pay_slow"),
                          "payment.processing",
                          Json.mapper().createObjectNode().put("id", "pay_slow"));
                      written.countDown();
                      await(release);
                      return null;
                    }));
    written.await();
    // A later event commits first.
    transactions.inTransaction(
        connection ->
            log.append(
                connection,
                new EventLog.Subject(merchant, "test", "payment", "pay_fast", "pay_fast"),
                "payment.processing",
                Json.mapper().createObjectNode().put("id", "pay_fast")));
    EventLog.Page before =
        transactions.inTransaction(c -> log.list(c, merchant, "test", null, null, 100));
    assertTrue(before.events().isEmpty(), "the later event waits for the earlier transaction");

    release.countDown();
    slow.get();
    pool.shutdown();
    EventLog.Page after =
        transactions.inTransaction(c -> log.list(c, merchant, "test", null, null, 100));
    assertEquals(2, after.events().size());
    assertEquals("pay_slow", Json.tree(after.events().get(0)).at("/data/object/id").asText());
    assertEquals("pay_fast", Json.tree(after.events().get(1)).at("/data/object/id").asText());
    assertFalse(after.hasMore());
  }

  @Test
  void theStoredEventIsTheEnvelopeOfSpecPartSix() {
    String merchant = "mer_" + "0".repeat(25) + "3";
    byte[] body =
        transactions.inTransaction(
            connection ->
                log.append(
                    connection,
                    new EventLog.Subject(merchant, "live", "payment", "pay_env", "pay_env"),
                    "payment.failed",
                    Json.tree("{\"id\":\"pay_env\",\"object\":\"payment\",\"amount\":100.50}")));
    JsonNode event = Json.tree(body);
    assertTrue(event.get("id").asText().startsWith("evt_"));
    assertEquals("event", event.get("object").asText());
    assertEquals("payment.failed", event.get("type").asText());
    assertEquals("live", event.get("environment").asText());
    assertTrue(event.get("created").isIntegralNumber());
    assertEquals("100.50", event.at("/data/object/amount").decimalValue().toPlainString());
    List<String> fields = new ArrayList<>();
    event.fieldNames().forEachRemaining(fields::add);
    assertEquals(List.of("id", "object", "type", "environment", "created", "data"), fields);

    EventLog.Stored found =
        transactions.inTransaction(
            c -> log.find(c, merchant, event.get("id").asText()).orElseThrow());
    assertEquals(new String(body), new String(found.body()), "stored byte for byte");
    assertEquals("live", found.environment());
    assertTrue(
        transactions
            .inTransaction(
                c -> log.find(c, "mer_" + "0".repeat(25) + "4", event.get("id").asText()))
            .isEmpty(),
        "another merchant's event is not found");
  }

  @Test
  void anEventsIdIsItsPositionAndItsBodyAndMessageCarryIt() throws Exception {
    String merchant = "mer_" + "0".repeat(25) + "6";
    long[] transaction = new long[1];
    List<byte[]> bodies =
        transactions.inTransaction(
            c -> {
              List<byte[]> appended = new ArrayList<>();
              for (String type : List.of("payment.processing", "payment.succeeded")) {
                appended.add(
                    log.append(
                        c,
                        new EventLog.Subject(merchant, "test", "payment", "pay_pos", "pay_pos"),
                        type,
                        Json.mapper().createObjectNode().put("id", "pay_pos")));
              }
              try (var rs =
                  c.createStatement().executeQuery("SELECT pg_current_xact_id()::text::bigint")) {
                rs.next();
                transaction[0] = rs.getLong(1);
              }
              return appended;
            });
    List<String> ids = new ArrayList<>();
    try (Connection c = database.dataSource().getConnection();
        var select =
            c.prepareStatement(
                "SELECT e.txid::text::bigint, e.seq, e.body, o.message_id, o.payload"
                    + " FROM events e JOIN outbox o ON o.payload = e.body"
                    + " WHERE e.merchant_id = ? ORDER BY e.txid, e.seq")) {
      select.setString(1, merchant);
      try (var rs = select.executeQuery()) {
        long previous = -1;
        for (byte[] appended : bodies) {
          assertTrue(rs.next(), "each event has its row and its message");
          assertEquals(transaction[0], rs.getLong(1), "the writing transaction");
          assertTrue(rs.getLong(2) > previous, "sequence numbers rise within a transaction");
          previous = rs.getLong(2);
          String id = IdType.eventId(rs.getLong(1), rs.getLong(2));
          assertEquals(id, Json.tree(rs.getBytes(3)).get("id").asText(), "the body's id");
          assertEquals(id, rs.getString(4), "the message's id");
          assertEquals(new String(appended), new String(rs.getBytes(3)), "returned as stored");
          assertEquals(new String(appended), new String(rs.getBytes(5)), "published as stored");
          ids.add(id);
        }
        assertFalse(rs.next());
      }
    }
    assertEquals(2, new HashSet<>(ids).size());
  }

  @Test
  void theEventAndItsOutboxMessageCommitTogetherOrNotAtAll() throws Exception {
    String merchant = "mer_" + "0".repeat(25) + "5";
    EventLog.Subject subject =
        new EventLog.Subject(
            merchant, "test", "payment", "pay_out", "pay_out", "https://m.example/h");
    byte[] body =
        transactions.inTransaction(
            c ->
                log.append(
                    c,
                    subject,
                    "payment.succeeded",
                    Json.mapper().createObjectNode().put("id", "pay_out")));
    String id = Json.tree(body).get("id").asText();
    try (Connection c = database.dataSource().getConnection();
        var select =
            c.prepareStatement(
                "SELECT topic, message_key, message_type, payload, attributes::text"
                    + " FROM outbox WHERE message_id = ?")) {
      select.setString(1, id);
      try (var rs = select.executeQuery()) {
        assertTrue(rs.next(), "the event's message is in the outbox");
        assertEquals("payments.events", rs.getString(1));
        assertEquals("pay_out", rs.getString(2));
        assertEquals("payment.succeeded", rs.getString(3));
        assertEquals(new String(body), new String(rs.getBytes(4)), "the stored event, as is");
        JsonNode attributes = Json.tree(rs.getString(5));
        assertEquals(merchant, attributes.get("merchant-id").asText());
        assertEquals("https://m.example/h", attributes.get("webhook-url").asText());
        assertFalse(rs.next());
      }
    }

    // A transaction that appends and then fails leaves neither the event nor its message.
    String[] rolledBack = new String[1];
    assertThrows(
        RuntimeException.class,
        () ->
            transactions.inTransaction(
                c -> {
                  byte[] b =
                      log.append(
                          c,
                          subject,
                          "payment.failed",
                          Json.mapper().createObjectNode().put("id", "pay_out"));
                  rolledBack[0] = Json.tree(b).get("id").asText();
                  throw new IllegalStateException("the state change failed");
                }));
    try (Connection c = database.dataSource().getConnection();
        var count =
            c.prepareStatement(
                "SELECT (SELECT count(*) FROM outbox WHERE message_id = ?)"
                    + " + (SELECT count(*) FROM events WHERE merchant_id = ? AND type = ?)")) {
      count.setString(1, rolledBack[0]);
      count.setString(2, merchant);
      count.setString(3, "payment.failed");
      try (var rs = count.executeQuery()) {
        rs.next();
        assertEquals(0, rs.getLong(1));
      }
    }
  }

  private static String seenLast(List<String> seen) {
    return seen.isEmpty() ? null : seen.get(seen.size() - 1);
  }

  private static void sleepMillis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(Duration.ofSeconds(30).toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
