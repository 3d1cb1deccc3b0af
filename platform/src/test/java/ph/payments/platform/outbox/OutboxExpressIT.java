package ph.payments.platform.outbox;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.KafkaSettings;
import ph.payments.platform.tx.AfterCommit;
import ph.payments.platform.tx.JdbcTransactions;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * The outbox's express lane against a real PostgreSQL database and a real Kafka broker: what it
 * takes it sends once, right after the commit, and the relay only marks; what it cannot be sure of
 * (no certain commit, a rollback, a failed or lost send) the relay sends, never the lane.
 */
class OutboxExpressIT {

  private static TestDatabase database;
  private static Transactions transactions;

  @BeforeAll
  static void createDatabase() throws Exception {
    database = TestDatabase.create("outbox_express");
    Fixtures.applyPlatformSchema(database.dataSource());
    Fixtures.createWritesTable(database.dataSource());
    transactions = new JdbcTransactions(database.dataSource());
  }

  @AfterAll
  static void dropDatabase() {
    database.close();
  }

  @BeforeEach
  void emptyTheOutbox() throws SQLException {
    try (Connection connection = database.dataSource().getConnection()) {
      connection.createStatement().execute("TRUNCATE outbox, inbox, writes");
    }
  }

  /**
   * Commands written auto-committed (the gateway's way), guarded or with a write, and replies
   * appended in a transaction that reports its commit (the owner's way) go by the lane, each once;
   * the relay sends none of them and marks them all; a message of another topic in the same
   * transaction goes through the relay.
   */
  @Test
  void whatTheLaneTakesGoesOutOnceAndTheRelayOnlyMarksIt() throws Exception {
    String express = Fixtures.uniqueTopic("express");
    String other = Fixtures.uniqueTopic("other");
    OutboxMessage event = message(other, "pay_1");
    List<String> sentByTheLane = new ArrayList<>();
    try (Lane lane = Lane.start("taken", express, plain -> plain)) {
      for (int i = 0; i < 5; i++) {
        OutboxMessage command = message(express, "cmd_a" + i);
        assertTrue(
            Fixtures.appendGuardedAutoCommitted(
                transactions, lane.writer, "claim_" + i, "row_" + i, command));
        sentByTheLane.add(command.messageId());

        OutboxMessage grouped = message(express, "cmd_b" + i);
        String row = "group_" + i;
        transactions.autoCommitted(
            connection -> {
              lane.writer.appendAllWith(
                  connection, List.of(Fixtures.insertWrite(row)), List.of(grouped));
              return null;
            });
        sentByTheLane.add(grouped.messageId());
      }
      OutboxMessage reply = message(express, "cmd_reply");
      transactions.inTransaction(
          connection -> {
            lane.writer.append(connection, reply);
            lane.writer.append(connection, event);
            return null;
          });
      sentByTheLane.add(reply.messageId());

      await().atMost(Duration.ofSeconds(20)).until(() -> pending() == 0);
      assertEquals(sentByTheLane.size(), lane.activity.express().sentCount());
      assertEquals(1, lane.relay.publishedCount(), "the relay sent only the other topic's event");
    }
    assertEquals(Set.copyOf(sentByTheLane), Set.copyOf(exactlyOnce(express, 11)));
    assertEquals(List.of(event.messageId()), exactlyOnce(other, 1));
  }

  /** A transaction that rolls back sends nothing by the lane, and leaves nothing in flight. */
  @Test
  void aRolledBackTransactionSendsNothing() throws Exception {
    String topic = Fixtures.uniqueTopic("rolledback");
    OutboxMessage doomed = message(topic, "cmd_doomed");
    OutboxMessage kept = message(topic, "cmd_kept");
    try (Lane lane = Lane.start("rolledback", topic, plain -> plain)) {
      Fixtures.appendAndRollBack(transactions, lane.writer, doomed);
      // A guard that admits nothing writes nothing, and sends nothing either.
      assertTrue(
          Fixtures.appendGuardedAutoCommitted(
              transactions, lane.writer, "claim", "row_1", message(topic, "cmd_first")));
      assertFalse(
          Fixtures.appendGuardedAutoCommitted(
              transactions, lane.writer, "claim", "row_2", message(topic, "cmd_refused")));
      transactions.inTransaction(
          connection -> {
            lane.writer.append(connection, kept);
            return null;
          });
      await().atMost(Duration.ofSeconds(20)).until(() -> lane.activity.express().sentCount() == 2);
      assertEquals(List.of(), lane.activity.express().inFlight());
      assertEquals(0, lane.relay.publishedCount());
    }
    List<String> received = exactlyOnce(topic, 2);
    assertTrue(received.contains(kept.messageId()));
    assertFalse(received.contains(doomed.messageId()));
  }

  /**
   * A transaction whose call cannot say it committed (it joined one that someone else commits) must
   * not send by the lane: the relay sends its message once it is committed.
   */
  @Test
  void aCommitTheWriterCannotBeSureOfIsLeftToTheRelay() throws Exception {
    String topic = Fixtures.uniqueTopic("uncertain");
    OutboxMessage message = message(topic, "cmd_uncertain");
    try (Lane lane = Lane.start("uncertain", topic, plain -> plain)) {
      try (Connection connection = database.dataSource().getConnection()) {
        connection.setAutoCommit(false);
        AfterCommit.around(
            () -> {
              try {
                lane.writer.append(connection, message);
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
              return null;
            });
        assertEquals(List.of(), lane.activity.express().inFlight());
        connection.commit();
      }
      await().atMost(Duration.ofSeconds(20)).until(() -> pending() == 0);
      assertEquals(0, lane.activity.express().sentCount());
      assertEquals(1, lane.relay.publishedCount());
    }
    assertEquals(List.of(message.messageId()), exactlyOnce(topic, 1));
  }

  /**
   * A committed message whose send never happens (its thread died between the commit and the send)
   * is left alone by the relay only until its admission lapses; then the relay sends it.
   */
  @Test
  void aSendThatNeverHappensIsMadeByTheRelayOnceTheAdmissionLapses() throws Exception {
    String topic = Fixtures.uniqueTopic("lapsed");
    OutboxMessage lost = message(topic, "cmd_lost");
    try (Lane lane = Lane.start("lapsed", topic, plain -> plain)) {
      lane.activity.express().probe(envelope -> false);
      long start = System.nanoTime();
      transactions.inTransaction(
          connection -> {
            lane.writer.append(connection, lost);
            return null;
          });
      Thread.sleep(1000); // five sweeps of the relay: it leaves the admitted row alone
      assertEquals(1, pending());
      await().atMost(Duration.ofSeconds(20)).until(() -> pending() == 0);
      assertTrue(
          Duration.ofNanos(System.nanoTime() - start).compareTo(OutboxExpress.LAPSE) >= 0,
          "sent before the admission lapsed");
      assertEquals(0, lane.activity.express().sentCount());
      assertEquals(1, lane.relay.publishedCount());
    }
    assertEquals(List.of(lost.messageId()), exactlyOnce(topic, 1));
  }

  /**
   * A send Kafka refuses is handed back to the relay at once: the relay tries the row itself (and,
   * refused as well, records the attempt and keeps the row pending).
   */
  @Test
  void aRefusedSendIsHandedToTheRelay() throws Exception {
    String topic = Fixtures.uniqueTopic("refused");
    OutboxMessage large =
        new OutboxMessage(
            "msg_large_" + System.nanoTime(), topic, "cmd_large", "t", new byte[4000]);
    try (Lane lane =
        Lane.start(
            "refused",
            topic,
            producers ->
                () -> {
                  Map<String, Object> refusing =
                      KafkaSettings.producer(TestKafka.bootstrapServers(), "refused");
                  refusing.put("max.request.size", 2000);
                  return new KafkaProducer<>(refusing);
                })) {
      transactions.inTransaction(
          connection -> {
            lane.writer.append(connection, large);
            return null;
          });
      await().atMost(Duration.ofSeconds(20)).until(() -> attempts(large.messageId()) >= 1);
      assertEquals(1, lane.activity.express().failedCount());
      assertEquals(0, lane.activity.express().sentCount());
      assertEquals(List.of(), lane.activity.express().inFlight());
    }
    assertEquals(1, pending());
  }

  // --- helpers --------------------------------------------------------------------------------

  /** A leading relay whose activity sends {@code topic} by the lane, and a writer beside it. */
  private record Lane(OutboxActivity activity, OutboxWriter writer, OutboxRelay relay)
      implements AutoCloseable {

    interface Producers {
      Supplier<Producer<String, byte[]>> of(Supplier<Producer<String, byte[]>> plain);
    }

    static Lane start(String name, String topic, Producers producers) {
      OutboxRelay.Settings settings = Fixtures.settings("express-" + name);
      OutboxActivity activity = new OutboxActivity(Set.of(topic), Clock.systemUTC());
      OutboxWriter writer = new OutboxWriter(Clock.systemUTC(), settings.channel(), activity);
      Supplier<Producer<String, byte[]>> plain =
          () -> new KafkaProducer<>(KafkaSettings.producer(TestKafka.bootstrapServers(), name));
      OutboxRelay relay =
          new OutboxRelay(
                  database.dataSource(),
                  producers.of(plain),
                  settings,
                  Clock.systemUTC(),
                  OutboxRelay.Probe.NONE,
                  activity)
              .start();
      await().atMost(Duration.ofSeconds(20)).until(() -> activity.express().takes(topic));
      return new Lane(activity, writer, relay);
    }

    @Override
    public void close() {
      relay.close();
    }
  }

  private static OutboxMessage message(String topic, String key) {
    return OutboxMessage.of(topic, key, "test.express", "{}".getBytes(StandardCharsets.UTF_8));
  }

  /** The message ids on {@code topic}, each once, {@code expected} of them. */
  private static List<String> exactlyOnce(String topic, int expected) {
    List<ConsumerRecord<String, byte[]>> records =
        Fixtures.readUntil(topic, Duration.ofSeconds(3), r -> false);
    List<String> ids = new ArrayList<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      ids.add(KafkaEnvelopes.fromRecord(record).messageId());
    }
    assertEquals(expected, ids.size(), "records on " + topic + ": " + ids);
    assertEquals(expected, new HashSet<>(ids).size(), "a message twice: " + ids);
    return ids;
  }

  private static long pending() throws SQLException {
    return count("SELECT count(*) FROM outbox WHERE published_at IS NULL");
  }

  private static long attempts(String messageId) throws SQLException {
    return count("SELECT coalesce(max(attempts), 0) FROM outbox WHERE message_id = ?", messageId);
  }

  private static long count(String sql, String... parameters) throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setString(i + 1, parameters[i]);
      }
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
