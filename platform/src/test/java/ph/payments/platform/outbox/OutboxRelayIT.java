package ph.payments.platform.outbox;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.Envelope;
import ph.payments.platform.inbox.IdempotentConsumer;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.KafkaSettings;
import ph.payments.platform.tx.JdbcTransactions;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/** The outbox against a real PostgreSQL database and a real Kafka broker. */
class OutboxRelayIT {

  private static TestDatabase database;
  private static Transactions transactions;

  @BeforeAll
  static void createDatabase() throws Exception {
    database = TestDatabase.create("outbox_relay");
    Fixtures.applyPlatformSchema(database.dataSource());
    transactions = new JdbcTransactions(database.dataSource());
  }

  @AfterAll
  static void dropDatabase() {
    database.close();
  }

  // Every relay here works on the same outbox table: start each test from an empty one.
  @BeforeEach
  void emptyTheOutbox() throws SQLException {
    try (Connection connection = database.dataSource().getConnection()) {
      connection.createStatement().execute("TRUNCATE outbox, inbox");
    }
  }

  @Test
  void aCommittedRowIsPublishedExactlyOnce() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("committed");
    String topic = Fixtures.uniqueTopic("committed");
    OutboxMessage message =
        new OutboxMessage(
            "msg_committed_" + System.nanoTime(),
            topic,
            "pay_1",
            "test.committed",
            bytes("{\"n\":1}"),
            Map.of(Envelope.ATTRIBUTE_MERCHANT_ID, "mer_1"));
    write(settings, message);

    try (OutboxRelay relay =
        Fixtures.relay(database.dataSource(), settings, OutboxRelay.Probe.NONE).start()) {
      await().atMost(Duration.ofSeconds(20)).until(() -> isPublished(message.messageId()));
      // Give a second pass (sweep every 200 ms) every chance to send it again.
      Thread.sleep(1000);
    }
    List<ConsumerRecord<String, byte[]>> records =
        Fixtures.readUntil(topic, Duration.ofSeconds(3), r -> false);
    assertEquals(1, records.size());
    Envelope received = KafkaEnvelopes.fromRecord(records.get(0));
    assertEquals(message.messageId(), received.messageId());
    assertEquals("pay_1", received.key());
    assertEquals("test.committed", received.type());
    assertEquals("{\"n\":1}", new String(received.payload(), StandardCharsets.UTF_8));
    assertEquals("mer_1", received.attribute(Envelope.ATTRIBUTE_MERCHANT_ID));
  }

  @Test
  void aRowOfARolledBackTransactionIsNeverPublished() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("rolledback");
    String topic = Fixtures.uniqueTopic("rolledback");
    OutboxWriter writer = new OutboxWriter(Clock.systemUTC(), settings.channel());
    OutboxMessage doomed = OutboxMessage.of(topic, "pay_2", "test.doomed", bytes("{}"));
    OutboxMessage committed = OutboxMessage.of(topic, "pay_2", "test.after", bytes("{}"));

    try (OutboxRelay relay =
        Fixtures.relay(database.dataSource(), settings, OutboxRelay.Probe.NONE).start()) {
      Fixtures.appendAndRollBack(transactions, writer, doomed);
      write(settings, committed);
      await().atMost(Duration.ofSeconds(20)).until(() -> isPublished(committed.messageId()));
    }
    List<ConsumerRecord<String, byte[]>> records =
        Fixtures.readUntil(topic, Duration.ofSeconds(2), r -> false);
    assertEquals(List.of(committed.messageId()), messageIds(records));
    assertFalse(exists(doomed.messageId()));
  }

  @Test
  void underLoadWritersSkipTheNotificationAndEveryRowIsStillPublished() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("busy");
    String topic = Fixtures.uniqueTopic("busy");
    OutboxActivity activity = new OutboxActivity();
    OutboxWriter writer = new OutboxWriter(Clock.systemUTC(), settings.channel(), activity);
    try (Connection listener = database.dataSource().getConnection();
        OutboxRelay relay = Fixtures.relay(database.dataSource(), settings, activity).start()) {
      listener.createStatement().execute("LISTEN " + settings.channel());
      await().atMost(Duration.ofSeconds(20)).until(relay::isLeader);

      // A steady stream: the relay finds rows on every pass and polls.
      List<OutboxMessage> stream = new java.util.ArrayList<>();
      for (int i = 0; i < 150; i++) {
        OutboxMessage message = OutboxMessage.of(topic, "k" + i, "test.busy", bytes("{}"));
        stream.add(message);
        transactions.inTransaction(
            connection -> {
              writer.append(connection, message);
              return null;
            });
        Thread.sleep(2);
      }
      // A writer that skipped its notification while the relay polled and commits only after the
      // relay went back to waiting: the next sweep publishes it.
      OutboxMessage late = OutboxMessage.of(topic, "late", "test.late", bytes("{}"));
      assertTrue(activity.relayPolling(), "the relay polls under a steady stream");
      Connection slow = database.dataSource().getConnection();
      slow.setAutoCommit(false);
      writer.append(slow, late);
      await().atMost(Duration.ofSeconds(5)).until(() -> !activity.relayPolling());
      Thread.sleep(OutboxRelay.BUSY_WINDOW.toMillis());
      slow.commit();
      slow.close();
      await().atMost(Duration.ofSeconds(20)).until(() -> isPublished(late.messageId()));
      for (OutboxMessage message : stream) {
        assertTrue(isPublished(message.messageId()));
      }

      int notifications =
          java.util.Optional.ofNullable(
                  listener.unwrap(org.postgresql.PGConnection.class).getNotifications(500))
              .map(n -> n.length)
              .orElse(0);
      assertTrue(
          notifications < stream.size() / 2,
          "most writers skipped notifying while the relay polled: " + notifications);
    }
    List<ConsumerRecord<String, byte[]>> records =
        Fixtures.readUntil(topic, Duration.ofSeconds(5), r -> r.size() >= 151);
    assertEquals(151, records.size());
    assertEquals(151, messageIds(records).stream().distinct().count());
  }

  @Test
  void theWriterRefusesToRunOutsideATransaction() throws Exception {
    OutboxWriter writer = new OutboxWriter(Clock.systemUTC(), "outbox_refuse");
    try (Connection connection = database.dataSource().getConnection()) {
      connection.setAutoCommit(true);
      OutboxMessage message = OutboxMessage.of("t", "k", "test.refused", bytes("{}"));
      assertThrows(IllegalStateException.class, () -> writer.append(connection, message));
      assertFalse(exists(message.messageId()));
    }
  }

  /**
   * A write and its message in one auto-committed statement (the gateway's command): both rows
   * commit or neither, the notification wakes the relay unless it polls anyway, and only the
   * committed message is published.
   */
  @Test
  void aWriteAndItsMessageInOneAutoCommittedStatementCommitTogether() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("together");
    String topic = Fixtures.uniqueTopic("together");
    Fixtures.createWritesTable(database.dataSource());
    OutboxActivity activity = new OutboxActivity();
    OutboxWriter writer = new OutboxWriter(Clock.systemUTC(), settings.channel(), activity);
    String id = "w_" + System.nanoTime();
    OutboxMessage written = OutboxMessage.of(topic, "k", "test.together", bytes("{}"));
    OutboxMessage refused = OutboxMessage.of(topic, "k", "test.refused", bytes("{}"));
    OutboxMessage quiet = OutboxMessage.of(topic, "k", "test.quiet", bytes("{}"));
    try (Connection listener = database.dataSource().getConnection()) {
      listener.createStatement().execute("LISTEN " + settings.channel());
      org.postgresql.PGConnection notifications =
          listener.unwrap(org.postgresql.PGConnection.class);

      Fixtures.appendWithAutoCommitted(transactions, writer, Fixtures.insertWrite(id), written);
      assertTrue(exists(written.messageId()));
      assertEquals(1, count("SELECT count(*) FROM writes WHERE id = ?", id));
      assertEquals(1, received(notifications, 2000), "the relay is notified");

      // The same write again fails on its key: its message is not written either.
      assertThrows(
          ph.payments.platform.tx.TransactionFailedException.class,
          () ->
              Fixtures.appendWithAutoCommitted(
                  transactions, writer, Fixtures.insertWrite(id), refused));
      assertFalse(exists(refused.messageId()));

      // While the relay polls, no notification is sent.
      activity.relayPolling(true);
      Fixtures.appendWithAutoCommitted(transactions, writer, Fixtures.insertWrite(id + "q"), quiet);
      assertTrue(exists(quiet.messageId()));
      assertEquals(0, received(notifications, 500), "no notification while the relay polls");
    }

    assertRelayPublishesExactly(settings, topic, written, quiet);
  }

  /**
   * Several writes and a message in one statement ({@link OutboxWriter#appendWith(Connection, List,
   * OutboxMessage)}, how an owner's last writes go with its reply): run auto-committed, a failing
   * second write leaves the first unwritten too, and no message; only the message of the statement
   * that succeeded is published.
   */
  @Test
  void severalWritesAndTheirMessageAreWrittenTogetherOrNotAtAll() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("several");
    String topic = Fixtures.uniqueTopic("several");
    Fixtures.createWritesTable(database.dataSource());
    OutboxWriter writer = new OutboxWriter(Clock.systemUTC(), settings.channel());
    String id = "s_" + System.nanoTime();
    OutboxMessage written = OutboxMessage.of(topic, "k", "test.several", bytes("{}"));
    OutboxMessage refused = OutboxMessage.of(topic, "k", "test.refused", bytes("{}"));

    appendAllAutoCommitted(
        writer, List.of(Fixtures.insertWrite(id + "a"), Fixtures.insertWrite(id + "b")), written);
    assertTrue(exists(written.messageId()));
    assertEquals(2, count("SELECT count(*) FROM writes WHERE id IN (?, ?)", id + "a", id + "b"));

    // The second write fails on its key: the first, though auto-committed, is not written.
    assertThrows(
        ph.payments.platform.tx.TransactionFailedException.class,
        () ->
            appendAllAutoCommitted(
                writer,
                List.of(Fixtures.insertWrite(id + "c"), Fixtures.insertWrite(id + "a")),
                refused));
    assertEquals(0, count("SELECT count(*) FROM writes WHERE id = ?", id + "c"));
    assertFalse(exists(refused.messageId()));
    assertThrows(
        IllegalArgumentException.class, () -> appendAllAutoCommitted(writer, List.of(), refused));

    assertRelayPublishesExactly(settings, topic, written);
  }

  /**
   * Rows of one multi-row insert and several messages in one statement ({@link
   * OutboxWriter#appendAllWith}, how the gateway writes a group of commands): all of them commit
   * and are published in the order given, or, when one row fails, none is written.
   */
  @Test
  void rowsOfOneInsertAndSeveralMessagesAreWrittenTogetherAndPublishedInOrder() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("group");
    String topic = Fixtures.uniqueTopic("group");
    Fixtures.createWritesTable(database.dataSource());
    OutboxWriter writer = new OutboxWriter(Clock.systemUTC(), settings.channel());
    String id = "g_" + System.nanoTime();
    List<OutboxMessage> written = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      written.add(OutboxMessage.of(topic, "k", "test.group", bytes("{\"n\":" + i + "}")));
    }
    Fixtures.appendAllWithAutoCommitted(
        transactions, writer, List.of(id + "a", id + "b", id + "c"), written);
    assertEquals(
        3,
        count("SELECT count(*) FROM writes WHERE id IN (?, ?, ?)", id + "a", id + "b", id + "c"));

    // The second row fails on its key: the first row and both messages are not written.
    List<OutboxMessage> refused =
        List.of(
            OutboxMessage.of(topic, "k", "test.refused", bytes("{}")),
            OutboxMessage.of(topic, "k", "test.refused", bytes("{}")));
    assertThrows(
        ph.payments.platform.tx.TransactionFailedException.class,
        () ->
            Fixtures.appendAllWithAutoCommitted(
                transactions, writer, List.of(id + "d", id + "a"), refused));
    assertEquals(0, count("SELECT count(*) FROM writes WHERE id = ?", id + "d"));
    assertFalse(exists(refused.get(0).messageId()));
    assertFalse(exists(refused.get(1).messageId()));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            Fixtures.appendAllWithAutoCommitted(
                transactions, writer, List.of(id + "e"), List.of()));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            OutboxWriter.Insert.rows(
                List.of(
                    Fixtures.insertRow(id + "f"),
                    new OutboxWriter.Insert("other", "id", "?", (statement, first) -> first))));

    assertRelayPublishesExactly(settings, topic, written.toArray(OutboxMessage[]::new));
  }

  private static void appendAllAutoCommitted(
      OutboxWriter writer, List<OutboxWriter.Write> writes, OutboxMessage message) {
    transactions.autoCommitted(
        connection -> {
          writer.appendWith(connection, writes, message);
          return null;
        });
  }

  /**
   * A lead ({@link OutboxWriter#appendAllAfter}, how the gateway takes rate-limit decisions with
   * its commands) and the writes after it are one transaction in auto-commit mode: the lead's rows
   * are read; a write that fails undoes what the lead wrote; a lead that fails writes nothing after
   * it.
   */
  @Test
  void aLeadAndTheWritesAfterItCommitOrFailTogether() throws Exception {
    OutboxWriter writer = new OutboxWriter(Clock.systemUTC(), "outbox_lead");
    Fixtures.LeadMessages messages =
        Fixtures.appendAfterThreeWays(
            transactions, writer, Fixtures.uniqueTopic("lead"), database.dataSource());
    assertTrue(exists(messages.written().messageId()));
    assertFalse(exists(messages.undone().messageId()));
    assertFalse(exists(messages.unsent().messageId()));
  }

  /**
   * A guarded write ({@link OutboxWriter#appendGuarded}, how the gateway claims a new idempotency
   * key with its command): the row and the message are written, and the relay woken, only when the
   * guard wrote; a claim that exists writes neither, and nothing of it is published.
   */
  @Test
  void aGuardedWriteAndItsMessageAreWrittenOnlyWhenTheGuardWrites() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("guarded");
    String topic = Fixtures.uniqueTopic("guarded");
    Fixtures.createWritesTable(database.dataSource());
    OutboxActivity activity = new OutboxActivity();
    OutboxWriter writer = new OutboxWriter(Clock.systemUTC(), settings.channel(), activity);
    String claim = "claim_" + System.nanoTime();
    OutboxMessage admitted = OutboxMessage.of(topic, "k", "test.admitted", bytes("{}"));
    OutboxMessage declined = OutboxMessage.of(topic, "k", "test.declined", bytes("{}"));
    OutboxMessage quiet = OutboxMessage.of(topic, "k", "test.quiet", bytes("{}"));
    try (Connection listener = database.dataSource().getConnection()) {
      listener.createStatement().execute("LISTEN " + settings.channel());
      org.postgresql.PGConnection notifications =
          listener.unwrap(org.postgresql.PGConnection.class);

      assertTrue(
          Fixtures.appendGuardedAutoCommitted(
              transactions, writer, claim, claim + "-row", admitted));
      assertTrue(exists(admitted.messageId()));
      assertEquals(1, count("SELECT count(*) FROM writes WHERE id = ?", claim + "-row"));
      assertEquals(1, received(notifications, 2000), "the relay is notified");

      // The claim exists: no row, no message, no notification, and no error.
      assertFalse(
          Fixtures.appendGuardedAutoCommitted(
              transactions, writer, claim, claim + "-again", declined));
      assertFalse(exists(declined.messageId()));
      assertEquals(0, count("SELECT count(*) FROM writes WHERE id = ?", claim + "-again"));
      assertEquals(0, received(notifications, 500), "nothing to wake the relay for");

      // While the relay polls, an admitted write sends no notification.
      activity.relayPolling(true);
      assertTrue(
          Fixtures.appendGuardedAutoCommitted(
              transactions, writer, claim + "q", claim + "q-row", quiet));
      assertTrue(exists(quiet.messageId()));
      assertEquals(0, received(notifications, 500), "no notification while the relay polls");
    }

    assertRelayPublishesExactly(settings, topic, admitted, quiet);
  }

  /**
   * While the relay polls, a writer that skips its notification rings the relay once its
   * transaction committed, in each of the three ways a message is written; a rolled-back
   * transaction, a guard that wrote nothing and a writer that notified ring nothing, and nothing
   * rings before the outermost transaction has committed.
   */
  @Test
  void whileTheRelayPollsACommittedMessageRingsItAndNothingElseDoes() throws Exception {
    Fixtures.createWritesTable(database.dataSource());
    OutboxActivity activity = new OutboxActivity();
    OutboxWriter writer = new OutboxWriter(Clock.systemUTC(), "outbox_rings", activity);
    String topic = "rings";
    String id = "r_" + System.nanoTime();

    // Not polling: the writer notifies, and rings nothing.
    appendInTransaction(writer, OutboxMessage.of(topic, "k", "test.notified", bytes("{}")));
    assertFalse(rang(activity), "a notifying writer does not ring");

    activity.relayPolling(true);
    appendInTransaction(writer, OutboxMessage.of(topic, "k", "test.appended", bytes("{}")));
    assertTrue(rang(activity), "append rang after the commit");
    assertFalse(rang(activity), "one ring, taken once");

    // Two messages in one transaction ring once; an inner transaction's commit rings nothing
    // while the outer one is still open.
    transactions.inTransaction(
        outer -> {
          writer.append(outer, OutboxMessage.of(topic, "k", "test.first", bytes("{}")));
          writer.append(outer, OutboxMessage.of(topic, "k", "test.second", bytes("{}")));
          appendInTransaction(writer, OutboxMessage.of(topic, "k", "test.inner", bytes("{}")));
          assertFalse(rang(activity), "no ring before the outer commit");
          return null;
        });
    assertTrue(rang(activity), "the outer commit rang");

    Fixtures.appendAndRollBack(
        transactions, writer, OutboxMessage.of(topic, "k", "test.rolled-back", bytes("{}")));
    assertFalse(rang(activity), "a rolled-back transaction rings nothing");

    Fixtures.appendWithAutoCommitted(
        transactions,
        writer,
        Fixtures.insertWrite(id),
        OutboxMessage.of(topic, "k", "test.with", bytes("{}")));
    assertTrue(rang(activity), "appendWith rang after its statement");
    assertThrows(
        ph.payments.platform.tx.TransactionFailedException.class,
        () ->
            Fixtures.appendWithAutoCommitted(
                transactions,
                writer,
                Fixtures.insertWrite(id),
                OutboxMessage.of(topic, "k", "test.refused", bytes("{}"))));
    assertFalse(rang(activity), "a failed statement rings nothing");

    // The same claim twice: admitted, then declined.
    for (String row : List.of(id + "-row", id + "-again")) {
      boolean admitted =
          Fixtures.appendGuardedAutoCommitted(
              transactions,
              writer,
              id + "-claim",
              row,
              OutboxMessage.of(topic, "k", "test.guarded", bytes("{}")));
      assertEquals(row.endsWith("-row"), admitted);
      assertEquals(admitted, rang(activity), "a guarded write rings when the guard wrote");
    }
  }

  /** Whether a writer rang since the last look, without waiting. */
  private static boolean rang(OutboxActivity activity) {
    try {
      return activity.awaitRing(Duration.ZERO);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void appendInTransaction(OutboxWriter writer, OutboxMessage message) {
    transactions.inTransaction(
        connection -> {
          writer.append(connection, message);
          return null;
        });
  }

  /**
   * A pass that sent one row, what one client at a time makes, is not followed by the busy pause:
   * the next row rings the next pass at once. A row is marked published by the pass after the one
   * that sent it, so with a pause of 3 s after every pass that sent rows, as before, the second row
   * would be marked only when its pause ran out.
   */
  @Test
  void aPassThatSentOneRowDoesNotHoldTheNextForTheBusyPause() throws Exception {
    OutboxRelay.Settings settings =
        Fixtures.settings("single").withBusyPause(Duration.ofSeconds(3));
    String topic = Fixtures.uniqueTopic("single");
    OutboxActivity activity = new OutboxActivity();
    OutboxWriter writer = new OutboxWriter(Clock.systemUTC(), settings.channel(), activity);
    OutboxMessage first = OutboxMessage.of(topic, "a", "test.first", bytes("{}"));
    OutboxMessage second = OutboxMessage.of(topic, "b", "test.second", bytes("{}"));
    try (OutboxRelay relay = Fixtures.relay(database.dataSource(), settings, activity).start()) {
      await().atMost(Duration.ofSeconds(20)).until(relay::isLeader);
      appendInTransaction(writer, first);
      await().atMost(Duration.ofSeconds(20)).until(() -> isPublished(first.messageId()));

      appendInTransaction(writer, second);
      await().atMost(Duration.ofMillis(1500)).until(() -> isPublished(second.messageId()));
    }
    List<ConsumerRecord<String, byte[]>> records =
        Fixtures.readUntil(topic, Duration.ofSeconds(5), r -> r.size() >= 2);
    // Two keys may land in two partitions, which a reader sees in either order.
    assertEquals(Set.of(first.messageId(), second.messageId()), Set.copyOf(messageIds(records)));
    assertEquals(2, records.size());
  }

  /**
   * The relay dies after Kafka acknowledged a batch and before it marked the rows: the rows are
   * sent again, and the idempotent consumer applies each message once.
   */
  @Test
  void aRelayDyingBetweenSendAndMarkResendsAndTheConsumerAppliesOnce() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("crash");
    String topic = Fixtures.uniqueTopic("crash");
    List<OutboxMessage> messages =
        List.of(
            OutboxMessage.of(topic, "pay_a", "test.crash", bytes("{\"n\":1}")),
            OutboxMessage.of(topic, "pay_b", "test.crash", bytes("{\"n\":2}")),
            OutboxMessage.of(topic, "pay_a", "test.crash", bytes("{\"n\":3}")));
    for (OutboxMessage message : messages) {
      write(settings, message);
    }

    AtomicInteger crashes = new AtomicInteger();
    OutboxRelay.Probe crashOnce =
        new OutboxRelay.Probe() {
          @Override
          public void afterSend(List<Long> outboxIds) {
            if (crashes.getAndIncrement() == 0) {
              throw new IllegalStateException("simulated crash after send, before mark");
            }
          }
        };
    try (OutboxRelay relay = Fixtures.relay(database.dataSource(), settings, crashOnce).start()) {
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> messages.stream().allMatch(m -> isPublishedUnchecked(m.messageId())));
    }
    assertTrue(crashes.get() >= 2, "the relay sent the batch a second time");

    List<ConsumerRecord<String, byte[]>> records =
        Fixtures.readUntil(topic, Duration.ofSeconds(10), r -> r.size() >= 6);
    assertEquals(6, records.size(), "each message was delivered twice");

    createEffectsTable();
    IdempotentConsumer consumer = new IdempotentConsumer(Clock.systemUTC());
    int applied = 0;
    for (ConsumerRecord<String, byte[]> record : records) {
      Envelope envelope = KafkaEnvelopes.fromRecord(record);
      boolean ran =
          transactions.inTransaction(
              connection ->
                  consumer.apply(
                      connection,
                      "crash-test",
                      envelope.messageId(),
                      tx -> {
                        try (PreparedStatement insert =
                            tx.prepareStatement("INSERT INTO effects (message_id) VALUES (?)")) {
                          insert.setString(1, envelope.messageId());
                          return insert.executeUpdate();
                        }
                      }));
      applied += ran ? 1 : 0;
    }
    assertEquals(3, applied);
    assertEquals(3, count("SELECT count(*) FROM effects"));
  }

  /**
   * Under load a pass's mark waits for the next pass's read, which carries it. A relay stopped in
   * between (here: stopped while the probe holds the pass right after Kafka's acknowledgement)
   * still marks what Kafka acknowledged before it lets go, so the next leader does not send it
   * again.
   */
  @Test
  void aRelayStoppedRightAfterASendMarksWhatKafkaAcknowledged() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("stop");
    String topic = Fixtures.uniqueTopic("stop");
    OutboxMessage first = OutboxMessage.of(topic, "pay_s", "test.stop", bytes("{}"));
    OutboxMessage second = OutboxMessage.of(topic, "pay_s", "test.stop", bytes("{}"));

    java.util.concurrent.atomic.AtomicReference<OutboxRelay> running =
        new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.atomic.AtomicReference<Thread> stopper =
        new java.util.concurrent.atomic.AtomicReference<>();
    AtomicInteger sends = new AtomicInteger();
    OutboxRelay.Probe stopAfterTheSecondSend =
        new OutboxRelay.Probe() {
          @Override
          public void afterSend(List<Long> outboxIds) {
            // The first send goes through untouched (its pass also runs the relay's first purge,
            // which marks what is acknowledged); the second is the one stopped.
            if (outboxIds.isEmpty() || sends.incrementAndGet() != 2) {
              return;
            }
            // close() tells the relay to stop, then interrupts this wait: the pass goes on to its
            // end with the mark still to do, and the loop ends there.
            Thread closing = new Thread(() -> running.get().close());
            stopper.set(closing);
            closing.start();
            try {
              Thread.sleep(10_000);
            } catch (InterruptedException expected) {
              // close() interrupted the relay's thread
            }
          }
        };
    OutboxRelay relay = Fixtures.relay(database.dataSource(), settings, stopAfterTheSecondSend);
    running.set(relay);
    write(settings, first);
    relay.start();
    await().atMost(Duration.ofSeconds(20)).until(() -> isPublished(first.messageId()));
    write(settings, second);
    await().atMost(Duration.ofSeconds(20)).until(() -> stopper.get() != null);
    stopper.get().join(20_000);

    assertTrue(isPublished(second.messageId()), "marked before the relay let go");
    // A relay that leads next finds nothing to send.
    try (OutboxRelay next =
        Fixtures.relay(database.dataSource(), settings, OutboxRelay.Probe.NONE).start()) {
      await().atMost(Duration.ofSeconds(20)).until(next::isLeader);
      Thread.sleep(1_000);
    }
    List<ConsumerRecord<String, byte[]>> records =
        Fixtures.readUntil(topic, Duration.ofSeconds(2), r -> false);
    assertEquals(List.of(first.messageId(), second.messageId()), messageIds(records));
  }

  @Test
  void perKeyOrderHoldsAcrossAThousandRows() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("order").withBatchSize(97);
    String topic = Fixtures.uniqueTopic("order");
    OutboxWriter writer = new OutboxWriter(Clock.systemUTC(), settings.channel());

    try (OutboxRelay relay =
        Fixtures.relay(database.dataSource(), settings, OutboxRelay.Probe.NONE).start()) {
      // Written while the relay runs, in small transactions, interleaving ten keys.
      Fixtures.writeThousandInterleaved(transactions, writer, topic);
      Fixtures.assertThousandInOrderPerKey(topic);
    }
  }

  /**
   * Issue 20. A key's rows of one topic in one pass go out in one wave, one round trip to Kafka:
   * they share a partition, and the relay's producer keeps a wave's records of a partition in one
   * batch, which Kafka appends whole. (Before, a key's second row waited for a second wave: a
   * payment's two events of one {@code succeed} cost every pass two round trips.) A key whose rows
   * change topic goes on in the next wave, after Kafka acknowledged the rows before.
   */
  @Test
  void aKeysRowsOfOneTopicGoOutInOneWaveAndInOrder() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("waves");
    String topic = Fixtures.uniqueTopic("waves");
    String other = Fixtures.uniqueTopic("waves-other");
    List<OutboxMessage> messages = new ArrayList<>();
    for (int row = 0; row < 3; row++) {
      for (String key : List.of("pay_a", "pay_b", "pay_c", "pay_d", "pay_e")) {
        messages.add(OutboxMessage.of(topic, key, "test.wave", bytes(key + row)));
      }
    }
    // pay_z: two rows of one topic, one of another, one of the first again.
    List<OutboxMessage> changing =
        List.of(
            OutboxMessage.of(topic, "pay_z", "test.wave", bytes("z0")),
            OutboxMessage.of(topic, "pay_z", "test.wave", bytes("z1")),
            OutboxMessage.of(other, "pay_z", "test.wave", bytes("z2")),
            OutboxMessage.of(topic, "pay_z", "test.wave", bytes("z3")));
    messages.addAll(changing);

    assertEquals(
        3,
        wavesToPublish(settings, messages),
        "one wave, then pay_z's other topic, then its first again");
    List<ConsumerRecord<String, byte[]>> records =
        Fixtures.readUntil(topic, Duration.ofSeconds(10), r -> r.size() >= 18);
    for (String key : List.of("pay_a", "pay_b", "pay_c", "pay_d", "pay_e", "pay_z")) {
      assertEquals(
          messages.stream()
              .filter(m -> m.key().equals(key) && m.topic().equals(topic))
              .map(OutboxMessage::messageId)
              .toList(),
          messageIds(records.stream().filter(r -> r.key().equals(key)).toList()),
          key + "'s rows in order, each once");
    }
    assertEquals(18, records.size());
  }

  /**
   * A wave holds at most {@link KafkaSettings#RELAY_WAVE_BYTES} of records, so that none of its
   * batches fills (a full batch would leave before the rest of the wave and split a key's rows
   * between batches); a key's rows beyond it go in the next wave, in order.
   */
  @Test
  void aWaveStopsAtItsBytesAndTheKeyGoesOnInTheNext() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("wavebytes");
    String topic = Fixtures.uniqueTopic("wavebytes");
    byte[] large = new byte[KafkaSettings.RELAY_WAVE_BYTES * 2 / 5]; // two fit in a wave, not three
    java.util.Arrays.fill(large, (byte) 'x');
    List<OutboxMessage> messages = new ArrayList<>();
    for (int row = 0; row < 5; row++) {
      messages.add(OutboxMessage.of(topic, "pay_big", "test.wave", large));
    }

    assertEquals(3, wavesToPublish(settings, messages), "two, two and one");
    List<ConsumerRecord<String, byte[]>> records =
        Fixtures.readUntil(topic, Duration.ofSeconds(10), r -> r.size() >= 5);
    assertEquals(messages.stream().map(OutboxMessage::messageId).toList(), messageIds(records));
  }

  /**
   * Writes {@code messages}, all committed before the relay's first pass reads them, then runs a
   * relay whose producer counts its flushes (one a wave) until every one is published.
   *
   * @return how many waves that took
   */
  private int wavesToPublish(OutboxRelay.Settings settings, List<OutboxMessage> messages) {
    for (OutboxMessage message : messages) {
      write(settings, message);
    }
    AtomicInteger waves = new AtomicInteger();
    Map<String, Object> config =
        KafkaSettings.relayProducer(TestKafka.bootstrapServers(), settings.name());
    try (OutboxRelay relay =
        new OutboxRelay(
                database.dataSource(),
                () ->
                    new KafkaProducer<String, byte[]>(config) {
                      @Override
                      public void flush() {
                        waves.incrementAndGet();
                        super.flush();
                      }
                    },
                settings,
                Clock.systemUTC(),
                OutboxRelay.Probe.NONE)
            .start()) {
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> messages.stream().allMatch(m -> isPublishedUnchecked(m.messageId())));
      return waves.get();
    }
  }

  /**
   * Issue 14 item 9. The relay's producer refuses one message (larger than its {@code
   * max.request.size}: a failure of that record alone, while the records behind it go through). The
   * rows of its key behind it must not be sent ahead of it, the other key goes on, and once the
   * message can be sent the key's rows arrive in order, each once.
   */
  @Test
  void afterAFailedSendNothingOfItsKeyOvertakesItAndOtherKeysGoOn() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("keyorder");
    String topic = Fixtures.uniqueTopic("keyorder");
    byte[] large = new byte[4000];
    java.util.Arrays.fill(large, (byte) 'x');
    List<OutboxMessage> blocked =
        List.of(
            OutboxMessage.of(topic, "pay_a", "test.order", large),
            OutboxMessage.of(topic, "pay_a", "test.order", bytes("a2")),
            OutboxMessage.of(topic, "pay_a", "test.order", bytes("a3")));
    List<OutboxMessage> free =
        List.of(
            OutboxMessage.of(topic, "pay_b", "test.order", bytes("b1")),
            OutboxMessage.of(topic, "pay_b", "test.order", bytes("b2")),
            OutboxMessage.of(topic, "pay_b", "test.order", bytes("b3")));
    // Interleaved, one transaction each, as two aggregates would write them.
    for (int i = 0; i < 3; i++) {
      write(settings, blocked.get(i));
      write(settings, free.get(i));
    }

    try (OutboxRelay relay = refusingLargeRecords(settings, "keyorder")) {
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> free.stream().allMatch(m -> isPublishedUnchecked(m.messageId())));
      await().atMost(Duration.ofSeconds(20)).until(() -> attempts(blocked.get(0).messageId()) >= 2);
      for (OutboxMessage message : blocked) {
        assertFalse(isPublished(message.messageId()), "held behind the failed row");
      }
      assertEquals(
          0, attempts(blocked.get(1).messageId()), "never sent while the row before it fails");
    }
    List<ConsumerRecord<String, byte[]>> meanwhile =
        Fixtures.readUntil(topic, Duration.ofSeconds(5), r -> r.size() >= 3);
    assertEquals(
        free.stream().map(OutboxMessage::messageId).toList(),
        messageIds(meanwhile),
        "the other key went on, in order; nothing of the failing key reached Kafka");

    // The message can be sent now: the key's rows follow it, in order.
    try (OutboxRelay relay =
        Fixtures.relay(database.dataSource(), settings, OutboxRelay.Probe.NONE).start()) {
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> blocked.stream().allMatch(m -> isPublishedUnchecked(m.messageId())));
    }
    List<ConsumerRecord<String, byte[]>> records =
        Fixtures.readUntil(topic, Duration.ofSeconds(10), r -> r.size() >= 6);
    assertEquals(
        blocked.stream().map(OutboxMessage::messageId).toList(),
        messageIds(records.stream().filter(r -> r.key().equals("pay_a")).toList()),
        "the failing key's rows in order, each once");
    assertEquals(6, records.size());
  }

  @Test
  void onlyOneRelayLeadsAndAnotherTakesOverWhenItStops() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("leader");
    String topic = Fixtures.uniqueTopic("leader");
    OutboxRelay first =
        Fixtures.relay(database.dataSource(), settings, OutboxRelay.Probe.NONE).start();
    await().atMost(Duration.ofSeconds(10)).until(first::isLeader);
    try (OutboxRelay second =
        Fixtures.relay(database.dataSource(), settings, OutboxRelay.Probe.NONE).start()) {
      Thread.sleep(1000);
      assertFalse(second.isLeader(), "the lock keeps the second relay waiting");

      first.close();
      await().atMost(Duration.ofSeconds(10)).until(second::isLeader);
      OutboxMessage message = OutboxMessage.of(topic, "pay_l", "test.leader", bytes("{}"));
      write(settings, message);
      await().atMost(Duration.ofSeconds(10)).until(() -> isPublished(message.messageId()));
      assertEquals(1, second.publishedCount());
    }
  }

  @Test
  void failedSendsStayPendingWithAttemptsAndTheLastError() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("unreachable");
    OutboxMessage message = OutboxMessage.of("nowhere", "pay_u", "test.unreachable", bytes("{}"));
    write(settings, message);
    Map<String, Object> config = KafkaSettings.relayProducer("127.0.0.1:1", "unreachable");
    config.put("max.block.ms", 500);
    try (OutboxRelay relay =
        new OutboxRelay(
                database.dataSource(),
                () -> new KafkaProducer<>(config),
                settings,
                Clock.systemUTC(),
                OutboxRelay.Probe.NONE)
            .start()) {
      await().atMost(Duration.ofSeconds(20)).until(() -> attempts(message.messageId()) >= 2);
    }
    assertFalse(isPublished(message.messageId()));
    assertNotNull(lastError(message.messageId()));
  }

  @Test
  void publishedRowsArePurgedAfterTheRetention() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("purge").withPurgeAfter(Duration.ZERO);
    String topic = Fixtures.uniqueTopic("purge");
    OutboxMessage message = OutboxMessage.of(topic, "pay_p", "test.purge", bytes("{}"));
    OutboxMessage unpublishable = OutboxMessage.of(topic, "pay_p", "test.purge", bytes("{}"));
    write(settings, message);
    try (OutboxRelay relay =
        Fixtures.relay(database.dataSource(), settings, OutboxRelay.Probe.NONE).start()) {
      await().atMost(Duration.ofSeconds(20)).until(() -> !exists(message.messageId()));
    }
    List<ConsumerRecord<String, byte[]>> records =
        Fixtures.readUntil(topic, Duration.ofSeconds(10), r -> !r.isEmpty());
    assertEquals(List.of(message.messageId()), messageIds(records), "published before purged");

    // A pending row is never purged, however old.
    Map<String, Object> config = KafkaSettings.relayProducer("127.0.0.1:1", "purge-unreachable");
    config.put("max.block.ms", 200);
    write(settings, unpublishable);
    try (OutboxRelay relay =
        new OutboxRelay(
                database.dataSource(),
                () -> new KafkaProducer<>(config),
                settings,
                Clock.systemUTC(),
                OutboxRelay.Probe.NONE)
            .start()) {
      await().atMost(Duration.ofSeconds(20)).until(() -> attempts(unpublishable.messageId()) >= 1);
    }
    assertTrue(exists(unpublishable.messageId()));
  }

  /** A started relay whose producer refuses records over 2,000 bytes (they fail alone). */
  private OutboxRelay refusingLargeRecords(OutboxRelay.Settings settings, String clientId) {
    Map<String, Object> refusing =
        KafkaSettings.relayProducer(TestKafka.bootstrapServers(), clientId);
    refusing.put("max.request.size", 2000);
    return new OutboxRelay(
            database.dataSource(),
            () -> new KafkaProducer<>(refusing),
            settings,
            Clock.systemUTC(),
            OutboxRelay.Probe.NONE)
        .start();
  }

  /**
   * A row that cannot be sent stays pending at the start of the outbox; the published rows of other
   * keys written before and after it are purged all the same (the purge walks the outbox in id
   * order and keeps only pending rows and rows within the retention), and a row within the
   * retention is kept.
   */
  @Test
  void aRowThatCannotBeSentHoldsBackNoPurgeAndYoungRowsAreKept() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("purgepast").withPurgeAfter(Duration.ZERO);
    String topic = Fixtures.uniqueTopic("purgepast");
    byte[] large = new byte[4000];
    java.util.Arrays.fill(large, (byte) 'x');
    OutboxMessage before = OutboxMessage.of(topic, "pay_b", "test.purge", bytes("b1"));
    OutboxMessage stuck = OutboxMessage.of(topic, "pay_s", "test.purge", large);
    OutboxMessage after = OutboxMessage.of(topic, "pay_c", "test.purge", bytes("c1"));
    write(settings, before);
    write(settings, stuck);
    write(settings, after);

    try (OutboxRelay relay = refusingLargeRecords(settings, "purgepast")) {
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> !exists(before.messageId()) && !exists(after.messageId()));
      assertTrue(exists(stuck.messageId()), "a pending row is never purged");
      assertTrue(attempts(stuck.messageId()) >= 1);
    }

    // Within the retention (an hour), a published row stays.
    OutboxRelay.Settings keeping = settings.withPurgeAfter(Duration.ofHours(1));
    OutboxMessage young = OutboxMessage.of(topic, "pay_y", "test.purge", bytes("y1"));
    write(keeping, young);
    try (OutboxRelay relay =
        Fixtures.relay(database.dataSource(), keeping, OutboxRelay.Probe.NONE).start()) {
      await().atMost(Duration.ofSeconds(20)).until(() -> isPublishedUnchecked(young.messageId()));
      // The purge follows the mark in the same pass, on the relay's thread, a moment later.
      Thread.sleep(1_000);
    }
    assertTrue(exists(young.messageId()), "published within the retention: kept");
    assertTrue(exists(stuck.messageId()), "sent now, and within the retention too: kept");
  }

  /**
   * The relay keeps one connection while it leads, and the outbox grows under it from a few rows to
   * tens of thousands. A plan PostgreSQL cached for that connection while the table was small (a
   * sequential scan) is never replaced where nothing analyzes the table (autovacuum off): every
   * mark would then read the whole table, tens of milliseconds a pass once it is large.
   */
  @Test
  void marksStayIndexLookupsAfterTheOutboxGrowsUnderTheRelay() throws Exception {
    OutboxRelay.Settings settings = Fixtures.settings("growth");
    String topic = Fixtures.uniqueTopic("growth");
    OutboxWriter writer = new OutboxWriter(Clock.systemUTC(), settings.channel());
    try (OutboxRelay relay =
        Fixtures.relay(database.dataSource(), settings, OutboxRelay.Probe.NONE).start()) {
      // Passes of one to four rows while the table is small: enough executions for the connection
      // to prepare its statements and for PostgreSQL to settle on the plans it keeps.
      for (int pass = 0; pass < 20; pass++) {
        List<OutboxMessage> batch = new java.util.ArrayList<>();
        for (int i = 0; i <= pass % 4; i++) {
          batch.add(OutboxMessage.of(topic, "k" + i, "test.growth", bytes("{}")));
        }
        transactions.inTransaction(
            connection -> {
              for (OutboxMessage message : batch) {
                writer.append(connection, message);
              }
              return null;
            });
        for (OutboxMessage message : batch) {
          await().atMost(Duration.ofSeconds(20)).until(() -> isPublished(message.messageId()));
        }
      }
      // Hours of traffic before a purge: 40,000 published rows of 1 KB (about 6,000 pages).
      try (Connection connection = database.dataSource().getConnection()) {
        connection
            .createStatement()
            .execute(
                "INSERT INTO outbox (message_id, topic, message_key, message_type, payload,"
                    + " created_at, published_at) SELECT 'msg_bulk_' || g, 'bulk', 'k',"
                    + " 'test.bulk', convert_to(repeat('x', 1000), 'UTF8'), now(), now()"
                    + " FROM generate_series(1, 40000) g");
      }
      // Statistics reach the views when each backend flushes them (within about a second).
      await().atMost(Duration.ofSeconds(20)).until(() -> outboxStatistic("n_tup_ins") >= 40_000);
      long updatesBefore = outboxStatistic("n_tup_upd");
      long blocksBefore = outboxStatistic("heap_blks_read + heap_blks_hit");

      OutboxMessage message = OutboxMessage.of(topic, "k", "test.growth", bytes("{}"));
      write(settings, message);
      await().atMost(Duration.ofSeconds(20)).until(() -> isPublished(message.messageId()));
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> outboxStatistic("n_tup_upd") > updatesBefore);
      long blocks = outboxStatistic("heap_blks_read + heap_blks_hit") - blocksBefore;
      // The write, the relay's read and mark, and this test's checks touch a few blocks each; a
      // sequential scan reads all 6,000.
      assertTrue(blocks < 1_000, "heap blocks read to publish one row: " + blocks);
    }
  }

  /**
   * Runs a relay until the last of {@code messages} is published and checks that the topic holds
   * exactly them, in order.
   */
  private static void assertRelayPublishesExactly(
      OutboxRelay.Settings settings, String topic, OutboxMessage... messages) throws Exception {
    OutboxMessage last = messages[messages.length - 1];
    try (OutboxRelay relay =
        Fixtures.relay(database.dataSource(), settings, OutboxRelay.Probe.NONE).start()) {
      await().atMost(Duration.ofSeconds(20)).until(() -> isPublished(last.messageId()));
    }
    List<ConsumerRecord<String, byte[]>> records =
        Fixtures.readUntil(topic, Duration.ofSeconds(3), r -> r.size() >= messages.length);
    assertEquals(
        java.util.Arrays.stream(messages).map(OutboxMessage::messageId).toList(),
        messageIds(records));
  }

  private static long outboxStatistic(String expression) throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        ResultSet rs =
            connection
                .createStatement()
                .executeQuery(
                    "SELECT "
                        + expression
                        + " FROM pg_stat_user_tables JOIN pg_statio_user_tables USING (relid)"
                        + " WHERE pg_stat_user_tables.relname = 'outbox'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void write(OutboxRelay.Settings settings, OutboxMessage message) {
    OutboxWriter writer = new OutboxWriter(Clock.systemUTC(), settings.channel());
    transactions.inTransaction(
        connection -> {
          writer.append(connection, message);
          return null;
        });
  }

  private static int received(org.postgresql.PGConnection listener, int waitMillis)
      throws SQLException {
    org.postgresql.PGNotification[] notifications = listener.getNotifications(waitMillis);
    return notifications == null ? 0 : notifications.length;
  }

  private static boolean isPublished(String messageId) throws SQLException {
    return count(
            "SELECT count(*) FROM outbox WHERE published_at IS NOT NULL AND message_id = ?",
            messageId)
        == 1;
  }

  private static boolean isPublishedUnchecked(String messageId) {
    try {
      return isPublished(messageId);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean exists(String messageId) throws SQLException {
    return count("SELECT count(*) FROM outbox WHERE message_id = ?", messageId) == 1;
  }

  private static int attempts(String messageId) throws SQLException {
    return count("SELECT coalesce(max(attempts), 0) FROM outbox WHERE message_id = ?", messageId);
  }

  private static String lastError(String messageId) throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement select =
            connection.prepareStatement("SELECT last_error FROM outbox WHERE message_id = ?")) {
      select.setString(1, messageId);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private static int count(String sql, String... parameters) throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement select = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        select.setString(i + 1, parameters[i]);
      }
      try (ResultSet rs = select.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  private static void createEffectsTable() throws SQLException {
    try (Connection connection = database.dataSource().getConnection()) {
      connection.createStatement().execute("CREATE TABLE IF NOT EXISTS effects (message_id text)");
    }
  }

  private static List<String> messageIds(List<ConsumerRecord<String, byte[]>> records) {
    return records.stream().map(r -> KafkaEnvelopes.fromRecord(r).messageId()).toList();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
