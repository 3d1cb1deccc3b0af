package ph.payments.platform.outbox;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.Envelope;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.KafkaSettings;
import ph.payments.platform.tx.JdbcTransactions;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * The logical outbox ({@code pg_logical_emit_message}, read from a replication slot) against a real
 * PostgreSQL server with {@code wal_level=logical} and a real Kafka broker.
 */
class LogicalOutboxRelayIT {

  private static TestDatabase database;
  private static Transactions transactions;
  private static final OutboxWriter writer = OutboxWriter.logical(Clock.systemUTC());

  @BeforeAll
  static void createDatabase() throws Exception {
    database = TestDatabase.create("logical_outbox");
    Fixtures.applyPlatformSchema(database.dataSource());
    transactions = new JdbcTransactions(database.dataSource());
    LogicalOutboxRelay.prepare(database.dataSource());
  }

  @AfterAll
  static void dropDatabase() {
    database.close(); // drops the slot too
  }

  private static LogicalOutboxRelay relay(String name, LogicalOutboxRelay.Probe probe) {
    return relay(
        name,
        probe,
        KafkaSettings.relayProducer(TestKafka.bootstrapServers(), name + "-" + System.nanoTime()));
  }

  private static LogicalOutboxRelay relay(
      String name, LogicalOutboxRelay.Probe probe, Map<String, Object> producer) {
    OutboxRelay.Settings settings = Fixtures.settings("logical");
    return new LogicalOutboxRelay(
        database.dataSource(),
        LogicalOutboxRelay.replicationDataSource(database.dataSource()),
        () -> new KafkaProducer<>(producer),
        settings,
        Clock.systemUTC(),
        probe);
  }

  @Test
  void committedMessagesArePublishedOnceAndRolledBackOnesNever() throws Exception {
    String topic = Fixtures.uniqueTopic("logical-committed");
    OutboxMessage committed =
        new OutboxMessage(
            "msg_logical_" + System.nanoTime(),
            topic,
            "pay_1",
            "test.committed",
            bytes("{\"n\":1}"),
            Map.of(Envelope.ATTRIBUTE_MERCHANT_ID, "mer_1"));
    OutboxMessage doomed = OutboxMessage.of(topic, "pay_1", "test.doomed", bytes("{}"));
    Fixtures.appendAndRollBack(transactions, writer, doomed);
    write(committed);

    try (LogicalOutboxRelay relay = relay("committed", LogicalOutboxRelay.Probe.NONE).start()) {
      await().atMost(Duration.ofSeconds(20)).until(() -> relay.publishedCount() >= 1);
      Thread.sleep(500);
    }
    List<ConsumerRecord<String, byte[]>> records =
        Fixtures.readUntil(topic, Duration.ofSeconds(3), r -> false);
    assertEquals(1, records.size());
    Envelope received = KafkaEnvelopes.fromRecord(records.get(0));
    assertEquals(committed.messageId(), received.messageId());
    assertEquals("pay_1", received.key());
    assertEquals("test.committed", received.type());
    assertEquals("{\"n\":1}", new String(received.payload(), StandardCharsets.UTF_8));
    assertEquals("mer_1", received.attribute(Envelope.ATTRIBUTE_MERCHANT_ID));
    assertEquals(
        0,
        count("SELECT count(*) FROM outbox WHERE message_id = '" + committed.messageId() + "'"),
        "no table row is written");
  }

  /** A write and its message in one auto-committed statement: the message only if the write. */
  @Test
  void aWriteAndItsMessageInOneAutoCommittedStatementCommitTogether() throws Exception {
    String topic = Fixtures.uniqueTopic("logical-together");
    Fixtures.createWritesTable(database.dataSource());
    String id = "w_" + System.nanoTime();
    OutboxMessage written = OutboxMessage.of(topic, "k", "test.together", bytes("{}"));
    OutboxMessage refused = OutboxMessage.of(topic, "k", "test.refused", bytes("{}"));
    Fixtures.appendWithAutoCommitted(transactions, writer, Fixtures.insertWrite(id), written);
    assertThrows(
        ph.payments.platform.tx.TransactionFailedException.class,
        () ->
            Fixtures.appendWithAutoCommitted(
                transactions, writer, Fixtures.insertWrite(id), refused));
    assertEquals(1, count("SELECT count(*) FROM writes WHERE id = '" + id + "'"));

    assertRelayPublishesOnly("together", topic, written);
  }

  /** Rows of one insert and several messages in one statement: emitted in order, or not at all. */
  @Test
  void rowsOfOneInsertAndSeveralMessagesAreEmittedTogetherInOrder() throws Exception {
    String topic = Fixtures.uniqueTopic("logical-group");
    Fixtures.createWritesTable(database.dataSource());
    String id = "lg_" + System.nanoTime();
    List<OutboxMessage> written =
        List.of(
            OutboxMessage.of(topic, "k", "test.group", bytes("{\"n\":1}")),
            OutboxMessage.of(topic, "k", "test.group", bytes("{\"n\":2}")),
            OutboxMessage.of(topic, "k", "test.group", bytes("{\"n\":3}")));
    Fixtures.appendAllWithAutoCommitted(
        transactions, writer, List.of(id + "a", id + "b", id + "c"), written);
    assertThrows(
        ph.payments.platform.tx.TransactionFailedException.class,
        () ->
            Fixtures.appendAllWithAutoCommitted(
                transactions,
                writer,
                List.of(id + "d", id + "a"),
                List.of(
                    OutboxMessage.of(topic, "k", "test.refused", bytes("{}")),
                    OutboxMessage.of(topic, "k", "test.refused", bytes("{}")))));
    assertEquals(3, count("SELECT count(*) FROM writes WHERE id LIKE '" + id + "%'"));

    try (LogicalOutboxRelay relay = relay("group", LogicalOutboxRelay.Probe.NONE).start()) {
      assertEquals(3, Fixtures.readUntil(topic, Duration.ofSeconds(20), r -> r.size() >= 3).size());
      Thread.sleep(500);
    }
    List<ConsumerRecord<String, byte[]>> records =
        Fixtures.readUntil(topic, Duration.ofSeconds(3), r -> false);
    assertEquals(
        written.stream().map(OutboxMessage::messageId).toList(),
        records.stream().map(r -> KafkaEnvelopes.fromRecord(r).messageId()).toList());
    assertEquals(
        "{\"n\":2}",
        new String(KafkaEnvelopes.fromRecord(records.get(1)).payload(), StandardCharsets.UTF_8));
  }

  /** A guarded write: the row and the message only when the guard wrote. */
  @Test
  void aGuardedWriteAndItsMessageAreWrittenOnlyWhenTheGuardWrites() throws Exception {
    String topic = Fixtures.uniqueTopic("logical-guarded");
    Fixtures.createWritesTable(database.dataSource());
    String claim = "claim_" + System.nanoTime();
    OutboxMessage admitted = OutboxMessage.of(topic, "k", "test.admitted", bytes("{}"));
    OutboxMessage declined = OutboxMessage.of(topic, "k", "test.declined", bytes("{}"));
    assertTrue(
        Fixtures.appendGuardedAutoCommitted(transactions, writer, claim, claim + "-row", admitted));
    assertFalse(
        Fixtures.appendGuardedAutoCommitted(
            transactions, writer, claim, claim + "-again", declined));
    assertEquals(1, count("SELECT count(*) FROM writes WHERE id = '" + claim + "-row'"));
    assertEquals(0, count("SELECT count(*) FROM writes WHERE id = '" + claim + "-again'"));

    assertRelayPublishesOnly("guarded", topic, admitted);
  }

  /**
   * A lead ({@link OutboxWriter#appendAllAfter}) and the writes after it are one transaction: a
   * write that fails undoes the lead, a lead that fails emits nothing, and only the message of the
   * statement that committed is published.
   */
  @Test
  void aLeadAndTheMessagesAfterItCommitOrFailTogether() throws Exception {
    String topic = Fixtures.uniqueTopic("logical-lead");
    Fixtures.LeadMessages messages =
        Fixtures.appendAfterThreeWays(transactions, writer, topic, database.dataSource());
    assertRelayPublishesOnly("lead", topic, messages.written());
  }

  @Test
  void theWriterRefusesToRunOutsideATransaction() throws Exception {
    try (Connection connection = database.dataSource().getConnection()) {
      connection.setAutoCommit(true);
      OutboxMessage message = OutboxMessage.of("t", "k", "test.refused", bytes("{}"));
      assertThrows(IllegalStateException.class, () -> writer.append(connection, message));
    }
  }

  /**
   * The relay dies after Kafka acknowledged a batch and before it confirmed the position: the slot
   * sends the batch again, so every message arrives (twice), none is lost.
   */
  @Test
  void aRelayDyingBetweenSendAndConfirmSendsAgainAndLosesNothing() throws Exception {
    String topic = Fixtures.uniqueTopic("logical-crash");
    List<OutboxMessage> messages =
        List.of(
            OutboxMessage.of(topic, "pay_a", "test.crash", bytes("1")),
            OutboxMessage.of(topic, "pay_b", "test.crash", bytes("2")),
            OutboxMessage.of(topic, "pay_a", "test.crash", bytes("3")));
    transactions.inTransaction(
        connection -> {
          for (OutboxMessage message : messages) {
            writer.append(connection, message);
          }
          return null;
        });
    AtomicInteger crashes = new AtomicInteger();
    LogicalOutboxRelay.Probe crashOnce =
        new LogicalOutboxRelay.Probe() {
          @Override
          public void afterSend(List<String> messageIds) {
            if (messageIds.contains(messages.get(0).messageId())
                && crashes.getAndIncrement() == 0) {
              throw new IllegalStateException("simulated crash after send, before confirm");
            }
          }
        };
    try (LogicalOutboxRelay relay = relay("crash", crashOnce).start()) {
      await().atMost(Duration.ofSeconds(20)).until(() -> crashes.get() >= 2);
    }
    List<ConsumerRecord<String, byte[]>> records =
        Fixtures.readUntil(topic, Duration.ofSeconds(10), r -> r.size() >= 6);
    assertEquals(6, records.size(), "each message was delivered twice");
    List<String> pay_a =
        records.stream()
            .filter(r -> r.key().equals("pay_a"))
            .map(r -> new String(r.value(), StandardCharsets.UTF_8))
            .toList();
    assertEquals(List.of("1", "3", "1", "3"), pay_a, "in order, each pass");
  }

  @Test
  void perKeyOrderHoldsAcrossAThousandMessagesWrittenWhileTheRelayRuns() throws Exception {
    String topic = Fixtures.uniqueTopic("logical-order");
    try (LogicalOutboxRelay relay = relay("order", LogicalOutboxRelay.Probe.NONE).start()) {
      Fixtures.writeThousandInterleaved(transactions, writer, topic);
      Fixtures.assertThousandInOrderPerKey(topic);
    }
  }

  /**
   * The producer refuses one message (larger than its {@code max.request.size}). Nothing of its key
   * behind it reaches Kafka; once it can be sent, the key's messages arrive in order.
   */
  @Test
  void afterAFailedSendNothingOfItsKeyOvertakesIt() throws Exception {
    String topic = Fixtures.uniqueTopic("logical-keyorder");
    byte[] large = new byte[4000];
    java.util.Arrays.fill(large, (byte) 'x');
    List<OutboxMessage> blocked =
        List.of(
            OutboxMessage.of(topic, "pay_a", "test.order", large),
            OutboxMessage.of(topic, "pay_a", "test.order", bytes("a2")),
            OutboxMessage.of(topic, "pay_a", "test.order", bytes("a3")));
    for (OutboxMessage message : blocked) {
      write(message);
    }
    Map<String, Object> refusing =
        KafkaSettings.relayProducer(TestKafka.bootstrapServers(), "logical-keyorder");
    refusing.put("max.request.size", 2000);
    AtomicInteger failures = new AtomicInteger();
    try (LogicalOutboxRelay relay =
        relay("keyorder", LogicalOutboxRelay.Probe.NONE, refusing)
            .observe(
                new OutboxRelay.Observer() {
                  @Override
                  public void failed() {
                    failures.incrementAndGet();
                  }
                })
            .start()) {
      await().atMost(Duration.ofSeconds(20)).until(() -> failures.get() >= 2);
    }
    assertEquals(
        List.of(),
        Fixtures.readUntil(topic, Duration.ofSeconds(3), r -> false),
        "nothing of the failing key reached Kafka");

    try (LogicalOutboxRelay relay = relay("keyorder", LogicalOutboxRelay.Probe.NONE).start()) {
      List<ConsumerRecord<String, byte[]>> records =
          Fixtures.readUntil(topic, Duration.ofSeconds(20), r -> r.size() >= 3);
      assertEquals(
          blocked.stream().map(OutboxMessage::messageId).toList(),
          records.stream().map(r -> KafkaEnvelopes.fromRecord(r).messageId()).toList());
    }
  }

  @Test
  void onlyOneRelayLeadsAndAnotherTakesOverWhenItStops() throws Exception {
    String topic = Fixtures.uniqueTopic("logical-leader");
    LogicalOutboxRelay first = relay("leader-1", LogicalOutboxRelay.Probe.NONE).start();
    await().atMost(Duration.ofSeconds(10)).until(first::isLeader);
    try (LogicalOutboxRelay second = relay("leader-2", LogicalOutboxRelay.Probe.NONE).start()) {
      Thread.sleep(1000);
      assertFalse(second.isLeader(), "the lock keeps the second relay waiting");
      first.close();
      // Written while no relay reads the slot: kept by the slot for the next reader.
      OutboxMessage message = OutboxMessage.of(topic, "pay_l", "test.leader", bytes("{}"));
      write(message);
      await().atMost(Duration.ofSeconds(10)).until(second::isLeader);
      List<ConsumerRecord<String, byte[]>> records =
          Fixtures.readUntil(topic, Duration.ofSeconds(10), r -> !r.isEmpty());
      assertEquals(1, records.size());
      assertEquals(message.messageId(), KafkaEnvelopes.fromRecord(records.get(0)).messageId());
    }
  }

  /** Rows left in the table (written before the switch) go out before the slot is read. */
  @Test
  void pendingTableRowsHoldTheSlotBackUntilTheTableRelayPublishedThem() throws Exception {
    String topic = Fixtures.uniqueTopic("logical-switch");
    OutboxRelay.Settings settings = Fixtures.settings("switch");
    OutboxMessage old = OutboxMessage.of(topic, "pay_s", "test.switch", bytes("old"));
    OutboxMessage young = OutboxMessage.of(topic, "pay_s", "test.switch", bytes("young"));
    OutboxWriter tableWriter = new OutboxWriter(Clock.systemUTC(), settings.channel());
    transactions.inTransaction(
        connection -> {
          tableWriter.append(connection, old);
          return null;
        });
    write(young);
    try (LogicalOutboxRelay logical = relay("switch", LogicalOutboxRelay.Probe.NONE).start()) {
      Thread.sleep(1000);
      assertEquals(0, logical.publishedCount(), "waits for the table");
      try (OutboxRelay table =
          Fixtures.relay(database.dataSource(), settings, OutboxRelay.Probe.NONE).start()) {
        List<ConsumerRecord<String, byte[]>> records =
            Fixtures.readUntil(topic, Duration.ofSeconds(20), r -> r.size() >= 2);
        assertEquals(
            List.of("old", "young"),
            records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList());
      }
    }
  }

  /**
   * Runs a relay until {@code topic} holds a message, then checks, half a second later, that it
   * holds {@code message} alone.
   */
  private static void assertRelayPublishesOnly(String name, String topic, OutboxMessage message)
      throws Exception {
    try (LogicalOutboxRelay relay = relay(name, LogicalOutboxRelay.Probe.NONE).start()) {
      assertEquals(1, Fixtures.readUntil(topic, Duration.ofSeconds(20), r -> !r.isEmpty()).size());
      Thread.sleep(500);
    }
    List<ConsumerRecord<String, byte[]>> records =
        Fixtures.readUntil(topic, Duration.ofSeconds(3), r -> false);
    assertEquals(
        List.of(message.messageId()),
        records.stream().map(r -> KafkaEnvelopes.fromRecord(r).messageId()).toList());
  }

  private static void write(OutboxMessage message) {
    transactions.inTransaction(
        connection -> {
          writer.append(connection, message);
          return null;
        });
  }

  private static long count(String sql) throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
