package ph.payments.platform.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.Envelope;
import ph.payments.platform.errors.TransientFailure;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.inbox.IdempotentConsumer;
import ph.payments.platform.outbox.Fixtures;
import ph.payments.platform.tx.JdbcTransactions;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.MovableClock;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * A real broker and database: a poll applies in one transaction, a record that fails is retried
 * until it applies (never skipped), records after it in its partition wait for it, other partitions
 * go on, and every record's effect lands exactly once.
 */
class BatchApplierIT {

  private static TestDatabase database;
  private static Transactions transactions;
  private final IdempotentConsumer inbox = new IdempotentConsumer(Clock.systemUTC());

  @BeforeAll
  static void createDatabase() throws Exception {
    database = TestDatabase.create("batch");
    Fixtures.applyPlatformSchema(database.dataSource());
    transactions = new JdbcTransactions(database.dataSource());
    try (Connection connection = database.dataSource().getConnection()) {
      connection
          .createStatement()
          .execute(
              "CREATE TABLE applied (seq bigserial PRIMARY KEY, topic text, partition_no int,"
                  + " message_id text)");
      try (java.io.InputStream ddl =
          BatchApplierIT.class.getResourceAsStream("/db/parked/parked_messages.sql")) {
        connection
            .createStatement()
            .execute(new String(ddl.readAllBytes(), StandardCharsets.UTF_8));
      }
    }
  }

  @AfterAll
  static void dropDatabase() {
    database.close();
  }

  /**
   * Work that takes a poll at once ({@link BatchApplier.BatchWork}) gets the whole poll in one
   * call; when that transaction fails, each record alone, and all of them apply exactly once, in
   * order.
   */
  @Test
  void batchWorkGetsThePollAtOnceAndEachRecordAloneAfterAFailure() throws Exception {
    String topic = Fixtures.uniqueTopic("batchwork");
    sendNumbered(topic, "b-", 10);
    List<Integer> callSizes = new ArrayList<>();
    AtomicInteger poisonAttempts = new AtomicInteger();
    BatchApplier applier = new BatchApplier("it", transactions, Duration.ofMillis(50));
    BatchApplier.BatchWork work =
        (connection, records) -> {
          callSizes.add(records.size());
          for (ConsumerRecord<String, byte[]> record : records) {
            String messageId = new String(record.value(), StandardCharsets.UTF_8);
            insertApplied(connection, record, messageId);
            if (messageId.equals("b-4") && poisonAttempts.incrementAndGet() == 1) {
              throw new IllegalStateException("the batch's statement failed");
            }
          }
        };

    applyAllUntil(topic, 10, applier, work);

    List<String> ids = applied(topic).stream().map(row -> row[1]).toList();
    assertEquals(
        List.of("b-0", "b-1", "b-2", "b-3", "b-4", "b-5", "b-6", "b-7", "b-8", "b-9"),
        ids,
        "each record applied exactly once, in order");
    assertTrue(callSizes.get(0) > 1, "the first poll went to the work at once: " + callSizes);
    assertTrue(callSizes.contains(1), "after the failure, records went one by one: " + callSizes);
    assertEquals(2, poisonAttempts.get(), "the failing record applied alone on its second try");
  }

  /**
   * Work in one statement ({@link BatchApplier.OneStatementWork}) runs auto-committed, a poll at
   * once and each record alone after a failure, and every record applies exactly once.
   */
  @Test
  void oneStatementWorkRunsAutoCommitted() throws Exception {
    String topic = Fixtures.uniqueTopic("onestatement");
    sendNumbered(topic, "s-", 6);
    List<Boolean> autoCommit = new ArrayList<>();
    AtomicBoolean failed = new AtomicBoolean();
    BatchApplier applier = new BatchApplier("it", transactions, Duration.ofMillis(50));
    BatchApplier.OneStatementWork work =
        (connection, records) -> {
          autoCommit.add(connection.getAutoCommit());
          if (records.size() > 1 && failed.compareAndSet(false, true)) {
            throw new IllegalStateException("the batch could not be read");
          }
          try (PreparedStatement insert =
              connection.prepareStatement(
                  "INSERT INTO applied (topic, partition_no, message_id)"
                      + " SELECT ?, 0, unnest(?::text[])")) {
            insert.setString(1, topic);
            insert.setArray(
                2,
                connection.createArrayOf(
                    "text",
                    records.stream()
                        .map(r -> new String(r.value(), StandardCharsets.UTF_8))
                        .toArray()));
            insert.executeUpdate();
          }
        };

    applyAllUntil(topic, 6, applier, work);

    assertEquals(
        List.of("s-0", "s-1", "s-2", "s-3", "s-4", "s-5"),
        applied(topic).stream().map(row -> row[1]).toList(),
        "each record applied exactly once, in order");
    assertTrue(failed.get(), "a poll of several records came at once and failed");
    assertFalse(autoCommit.contains(false), "every call ran auto-committed: " + autoCommit);
  }

  @Test
  void aFailingRecordIsRetriedUntilItAppliesAndNothingIsLostOrDoubled() throws Exception {
    String topic = Fixtures.uniqueTopic("batch");
    TestKafka.createTopics(2, topic);
    // 40 records per partition, each message sent twice (a relay's redelivery); m-0-7 fails twice.
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(KafkaSettings.producer(TestKafka.bootstrapServers(), "batch-it"))) {
      for (int partition = 0; partition < 2; partition++) {
        for (int i = 0; i < 40; i++) {
          byte[] id = ("m-" + partition + "-" + i).getBytes(StandardCharsets.UTF_8);
          producer.send(new ProducerRecord<>(topic, partition, "k", id));
          producer.send(new ProducerRecord<>(topic, partition, "k", id));
        }
      }
      producer.flush();
    }

    AtomicInteger poisonAttempts = new AtomicInteger();
    BatchApplier applier = new BatchApplier("it", transactions, Duration.ofMillis(50));
    BatchApplier.RecordWork work =
        (connection, record) -> {
          String messageId = new String(record.value(), StandardCharsets.UTF_8);
          inbox.apply(
              connection,
              "it",
              messageId,
              tx -> {
                insertApplied(tx, record, messageId);
                if (messageId.equals("m-0-7") && poisonAttempts.incrementAndGet() <= 2) {
                  throw new IllegalStateException("a handler failure after its insert");
                }
                return null;
              });
        };

    Map<String, Object> config = KafkaSettings.consumer(TestKafka.bootstrapServers(), topic);
    config.put("max.poll.records", 25);
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (applied(topic).size() < 80 && System.nanoTime() < deadline) {
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        applier.apply(records, consumer, work);
      }
      Map<TopicPartition, Long> ends =
          consumer.endOffsets(Set.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1)));
      // Drain what is left (the duplicates behind the last applied record) and check the commits.
      long drainUntil = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (!committedUpTo(consumer, ends) && System.nanoTime() < drainUntil) {
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        applier.apply(records, consumer, work);
      }
      assertTrue(committedUpTo(consumer, ends), "offsets committed to the end of both partitions");
    }

    List<String[]> rows = applied(topic);
    assertEquals(80, rows.size(), "each message applied exactly once");
    assertEquals(3, poisonAttempts.get(), "the failing record was retried until it applied");
    Map<Integer, Integer> next = new HashMap<>(Map.of(0, 0, 1, 0));
    for (String[] row : rows) {
      int partition = Integer.parseInt(row[0]);
      assertEquals("m-" + partition + "-" + next.get(partition), row[1], "order within partition");
      next.merge(partition, 1, Integer::sum);
    }
  }

  /**
   * Issue 14 item 5: a record whose handler throws every time is parked after max-attempts; the
   * records behind it in its partition apply; its inbox entry makes a redelivery do nothing.
   */
  @Test
  void aRecordThatAlwaysFailsIsParkedAndTheRecordsBehindItApply() throws Exception {
    String topic = Fixtures.uniqueTopic("poison");
    TestKafka.createTopics(1, topic);
    List<Envelope> envelopes = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      envelopes.add(
          new Envelope(
              IdType.MESSAGE.generate(),
              "test.poison",
              "k",
              java.time.Instant.now(),
              bytes("n" + i)));
    }
    String poison = envelopes.get(2).messageId();
    send(topic, envelopes);

    AtomicInteger poisonAttempts = new AtomicInteger();
    ParkedMessages parked = new ParkedMessages(Clock.systemUTC());
    BatchApplier applier =
        new BatchApplier(
            "poison-it",
            transactions,
            new BatchApplier.Settings(Duration.ofMillis(50), 3),
            parked,
            Parkers.inbox(inbox, "poison-it"),
            Clock.systemUTC());
    BatchApplier.RecordWork work = recording("poison-it", poison, poisonAttempts);

    try (KafkaConsumer<String, byte[]> consumer = consumer(topic)) {
      pollUntil(consumer, applier, work, () -> applied(topic).size() >= 7, Duration.ofSeconds(30));
      assertEquals(
          envelopes.stream().map(Envelope::messageId).filter(id -> !id.equals(poison)).toList(),
          applied(topic).stream().map(row -> row[1]).toList(),
          "everything behind the poison applied, in order");
      // Counted are its own tries; each poll's batch attempt, failing with it, runs it too.
      int tries = poisonAttempts.get();
      assertTrue(tries >= 3 && tries <= 6, "tried max-attempts times, then parked: " + tries);
      List<ParkedMessages.Parked> rows = inTx(c -> parked.page(c, 10, null));
      assertEquals(1, rows.size());
      assertEquals(poison, rows.get(0).messageId());
      assertEquals(3, rows.get(0).attempts());
      assertTrue(rows.get(0).lastError().contains("always fails"), rows.get(0).lastError());
      assertEquals(1L, (long) inTx(parked::unresolved));

      // Redelivered (a relay resending it): the inbox drops it; nothing is tried or parked again.
      send(topic, List.of(envelopes.get(2)));
      long end = 9;
      pollUntil(
          consumer,
          applier,
          work,
          () -> committed(consumer, new TopicPartition(topic, 0)) >= end,
          Duration.ofSeconds(20));
      assertEquals(tries, poisonAttempts.get(), "a redelivery does not run the handler again");
      assertEquals(7, applied(topic).size());
      assertEquals(1, inTx(c -> parked.page(c, 10, null)).size());
    }
  }

  /**
   * Issue 14 item 5: while the database refuses connections every record fails, and none of them is
   * to blame: nothing is parked, everything applies once the database is back.
   */
  @Test
  void aDatabaseRefusingConnectionsParksNothing() throws Exception {
    String topic = Fixtures.uniqueTopic("outage");
    TestKafka.createTopics(1, topic);
    List<Envelope> envelopes = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      envelopes.add(
          new Envelope(
              IdType.MESSAGE.generate(),
              "test.outage",
              "k",
              java.time.Instant.now(),
              bytes("n" + i)));
    }
    ParkedMessages parked = new ParkedMessages(Clock.systemUTC());
    BatchApplier applier =
        new BatchApplier(
            "outage-it",
            transactions,
            new BatchApplier.Settings(Duration.ofMillis(50), 2),
            parked,
            Parkers.inbox(inbox, "outage-it"),
            Clock.systemUTC());
    BatchApplier.RecordWork work = recording("outage-it", null, new AtomicInteger());
    long parkedBefore = inTx(parked::unresolved);

    try (KafkaConsumer<String, byte[]> consumer = consumer(topic)) {
      consumer.poll(Duration.ofMillis(500)); // joins the group before the outage
      refuseConnections(true);
      try {
        send(topic, envelopes);
        long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        while (System.nanoTime() < until) {
          List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
          consumer.poll(Duration.ofMillis(100)).forEach(records::add);
          applier.apply(records, consumer, work); // fails, over and over: many more than 2 tries
        }
      } finally {
        refuseConnections(false);
      }
      pollUntil(consumer, applier, work, () -> applied(topic).size() >= 5, Duration.ofSeconds(30));
    }
    assertEquals(5, applied(topic).size(), "everything applied once the database was back");
    assertEquals(parkedBefore, (long) inTx(parked::unresolved), "nothing parked");
  }

  /**
   * The database ends the record's session (57P01, as a restart or an operator does) more often
   * than max-attempts while parking itself would succeed: such failures are not the record's and
   * never count, so it applies once the trouble stops instead of being parked.
   */
  @Test
  void sessionsEndedUnderARecordNeverCountTowardsParkingIt() throws Exception {
    String topic = Fixtures.uniqueTopic("ended");
    TestKafka.createTopics(1, topic);
    Envelope envelope =
        new Envelope(
            IdType.MESSAGE.generate(), "test.ended", "k", java.time.Instant.now(), bytes("e"));
    send(topic, List.of(envelope));
    ParkedMessages parked = new ParkedMessages(Clock.systemUTC());
    BatchApplier applier =
        new BatchApplier(
            "ended-it",
            transactions,
            new BatchApplier.Settings(Duration.ofMillis(20), 2),
            parked,
            Parkers.inbox(inbox, "ended-it"),
            Clock.systemUTC());
    AtomicInteger ended = new AtomicInteger();
    BatchApplier.RecordWork recording = recording("ended-it", null, new AtomicInteger());
    BatchApplier.RecordWork work =
        (connection, record) -> {
          if (ended.incrementAndGet() <= 8) {
            connection.createStatement().execute("SELECT pg_terminate_backend(pg_backend_pid())");
          }
          recording.apply(connection, record);
        };
    long parkedBefore = inTx(parked::unresolved);
    try (KafkaConsumer<String, byte[]> consumer = consumer(topic)) {
      pollUntil(consumer, applier, work, () -> applied(topic).size() >= 1, Duration.ofSeconds(30));
    }
    assertTrue(ended.get() > 8, "the session was ended under the record " + ended.get() + " times");
    assertEquals(1, applied(topic).size(), "applied once the sessions lived");
    assertEquals(parkedBefore, (long) inTx(parked::unresolved), "nothing parked");
  }

  /**
   * A consumer that commits its own positions ({@link BatchApplier.OffsetCommits#BY_THE_CONSUMER},
   * {@code enable.auto.commit}): while a record fails, no commit of its partition passes it,
   * however many intervals go by; once it applied, the commits reach the end with no poll of new
   * records (an idle consumer's lag goes to zero); and a second consumer of the group, started from
   * those commits, is given nothing again that applied.
   */
  @Test
  void aConsumerCommittingItsOwnPositionsNeverCommitsPastARecordThatHasNotApplied()
      throws Exception {
    String topic = Fixtures.uniqueTopic("autocommit");
    List<Envelope> envelopes = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      envelopes.add(
          new Envelope(
              IdType.MESSAGE.generate(),
              "test.auto",
              "k",
              java.time.Instant.now(),
              bytes("a" + i)));
    }
    String poison = envelopes.get(3).messageId();
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(KafkaSettings.producer(TestKafka.bootstrapServers(), "auto-it"))) {
      for (Envelope envelope : envelopes) {
        ProducerRecord<String, byte[]> record = KafkaEnvelopes.toRecord(topic, envelope);
        producer.send(
            new ProducerRecord<>(topic, 0, record.key(), record.value(), record.headers()));
      }
      producer.flush();
    }
    TopicPartition p0 = new TopicPartition(topic, 0);

    AtomicInteger poisonAttempts = new AtomicInteger();
    AtomicBoolean healed = new AtomicBoolean();
    BatchApplier.RecordWork recording = recording("auto-it", null, new AtomicInteger());
    BatchApplier.RecordWork work =
        (connection, record) -> {
          if (KafkaEnvelopes.fromRecord(record).messageId().equals(poison) && !healed.get()) {
            poisonAttempts.incrementAndGet();
            throw new IllegalStateException("fails until healed");
          }
          recording.apply(connection, record);
        };
    BatchApplier applier =
        new BatchApplier(
            "auto-it",
            transactions,
            new BatchApplier.Settings(Duration.ofMillis(20), 0).committedByTheConsumer(),
            null,
            null,
            Clock.systemUTC());

    Map<String, Object> config = KafkaSettings.consumer(TestKafka.bootstrapServers(), topic);
    config.put("enable.auto.commit", true);
    config.put("auto.commit.interval.ms", 100);
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      consumer.subscribe(List.of(topic));
      pollUntil(consumer, applier, work, () -> poisonAttempts.get() >= 10, Duration.ofSeconds(30));
      pollUntil(consumer, applier, work, () -> false, Duration.ofMillis(600)); // 6 intervals more
      assertEquals(3, applied(topic).size(), "the records before the failing one applied");
      assertEquals(3, committed(consumer, p0), "committed up to the failing record, not past it");

      healed.set(true);
      pollUntil(consumer, applier, work, () -> applied(topic).size() >= 6, Duration.ofSeconds(30));
      pollUntil(
          consumer, applier, work, () -> committed(consumer, p0) == 6, Duration.ofSeconds(10));
      assertEquals(6, committed(consumer, p0), "the idle consumer's next polls commit the rest");
    }
    try (KafkaConsumer<String, byte[]> next = new KafkaConsumer<>(config)) {
      next.subscribe(List.of(topic));
      int given = 0;
      long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
      while (System.nanoTime() < until) {
        given += next.poll(Duration.ofMillis(200)).count();
      }
      assertEquals(0, given, "the group resumes after everything that applied");
    }
    assertEquals(
        envelopes.stream().map(Envelope::messageId).toList(),
        applied(topic).stream().map(row -> row[1]).toList(),
        "each applied once, in order");
  }

  /** An applier whose consumer commits its own positions sends no offset commit of its own. */
  @Test
  void anApplierWhoseConsumerCommitsSendsNoCommit() throws Exception {
    String topic = Fixtures.uniqueTopic("nocommit");
    TopicPartition p0 = new TopicPartition(topic, 0);
    List<ConsumerRecord<String, byte[]>> records =
        List.of(
            new ConsumerRecord<>(topic, 0, 0, "k", bytes("x")),
            new ConsumerRecord<>(topic, 0, 1, "k", bytes("y")));
    BatchApplier.RecordWork work =
        (connection, record) ->
            insertApplied(connection, record, new String(record.value(), StandardCharsets.UTF_8));
    for (BatchApplier.OffsetCommits commits : BatchApplier.OffsetCommits.values()) {
      BatchApplier applier =
          new BatchApplier(
              "nocommit-it",
              transactions,
              new BatchApplier.Settings(Duration.ofMillis(1), 0, commits),
              null,
              null,
              Clock.systemUTC());
      try (org.apache.kafka.clients.consumer.MockConsumer<String, byte[]> consumer =
          new org.apache.kafka.clients.consumer.MockConsumer<>(
              org.apache.kafka.clients.consumer.OffsetResetStrategy.EARLIEST)) {
        consumer.assign(List.of(p0));
        consumer.updateBeginningOffsets(Map.of(p0, 0L));
        assertEquals(2, applier.apply(records, consumer, work));
        OffsetAndMetadata committed = consumer.committed(Set.of(p0)).get(p0);
        if (commits == BatchApplier.OffsetCommits.BY_THE_CONSUMER) {
          assertEquals(null, committed, "nothing committed by the applier");
        } else {
          assertEquals(2, committed.offset(), "the applier committed after its transaction");
        }
      }
    }
  }

  /**
   * An applier at intervals commits a poll that comes after a quiet interval at once, holds the
   * offsets of the polls after it until the interval has passed since that commit, never commits
   * past a failing record, and commits what it holds when asked to (a revocation).
   */
  @Test
  void anApplierAtIntervalsCommitsAtMostOnceAnInterval() {
    String topic = Fixtures.uniqueTopic("intervals");
    TopicPartition p0 = new TopicPartition(topic, 0);
    TopicPartition p1 = new TopicPartition(topic, 1);
    MovableClock clock = new MovableClock();
    BatchApplier applier =
        new BatchApplier(
            "intervals-it",
            transactions,
            new BatchApplier.Settings(Duration.ZERO, 0).committedAtIntervals(Duration.ofSeconds(1)),
            null,
            null,
            clock);
    BatchApplier.RecordWork work =
        (connection, record) -> {
          String value = new String(record.value(), StandardCharsets.UTF_8);
          if (value.equals("fails")) {
            throw new IllegalStateException("this record always fails");
          }
          insertApplied(connection, record, value);
        };
    try (MockConsumer<String, byte[]> consumer = new MockConsumer<>(OffsetResetStrategy.EARLIEST)) {
      consumer.assign(List.of(p0, p1));
      consumer.updateBeginningOffsets(Map.of(p0, 0L, p1, 0L));
      Function<TopicPartition, Long> committed =
          partition -> {
            OffsetAndMetadata offset = consumer.committed(Set.of(partition)).get(partition);
            return offset == null ? null : offset.offset();
          };

      applier.apply(List.of(record(topic, 0, 0, "a")), consumer, work);
      assertEquals(1L, committed.apply(p0), "the first poll commits at once");

      clock.advance(Duration.ofMillis(400));
      applier.apply(List.of(record(topic, 0, 1, "b"), record(topic, 1, 0, "c")), consumer, work);
      clock.advance(Duration.ofMillis(400));
      applier.apply(List.of(record(topic, 0, 2, "d")), consumer, work);
      assertEquals(1L, committed.apply(p0), "held within the interval");
      assertEquals(null, committed.apply(p1), "held within the interval");

      clock.advance(Duration.ofMillis(200));
      applier.apply(
          List.of(record(topic, 0, 3, "e"), record(topic, 0, 4, "fails"), record(topic, 0, 5, "f")),
          consumer,
          work);
      assertEquals(4L, committed.apply(p0), "the interval passed: up to the failing record");
      assertEquals(1L, committed.apply(p1), "and what the held polls applied");

      clock.advance(Duration.ofMillis(10));
      applier.apply(List.of(record(topic, 1, 1, "g")), consumer, work);
      assertEquals(1L, committed.apply(p1), "held again, a new interval");
      applier.commitPending(consumer);
      assertEquals(2L, committed.apply(p1), "committed when asked");
      assertEquals(4L, committed.apply(p0), "never past the failing record");
    }
  }

  private static ConsumerRecord<String, byte[]> record(
      String topic, int partition, long offset, String value) {
    return new ConsumerRecord<>(topic, partition, offset, "k", bytes(value));
  }

  /** What a handler throws when a service it depends on (the ledger, say) does not answer. */
  private static final class DependencyDown extends RuntimeException implements TransientFailure {
    DependencyDown() {
      super("the ledger did not answer");
    }
  }

  /**
   * A handler whose dependency is down (a {@link TransientFailure}) fails more often than
   * max-attempts: that is an outage, not the record's fault, so the record waits and applies once
   * the dependency is back; nothing is parked (parking would answer the merchant "not applied" for
   * a payout that only had to wait for ledger-service to restart).
   */
  @Test
  void aDependencyThatIsDownNeverCountsTowardsParking() throws Exception {
    String topic = Fixtures.uniqueTopic("dependency");
    TestKafka.createTopics(1, topic);
    Envelope envelope =
        new Envelope(
            IdType.MESSAGE.generate(), "test.dependency", "k", java.time.Instant.now(), bytes("d"));
    send(topic, List.of(envelope));
    ParkedMessages parked = new ParkedMessages(Clock.systemUTC());
    BatchApplier applier =
        new BatchApplier(
            "dependency-it",
            transactions,
            new BatchApplier.Settings(Duration.ofMillis(20), 2),
            parked,
            Parkers.inbox(inbox, "dependency-it"),
            Clock.systemUTC());
    AtomicInteger tries = new AtomicInteger();
    BatchApplier.RecordWork recording = recording("dependency-it", null, new AtomicInteger());
    BatchApplier.RecordWork work =
        (connection, record) -> {
          if (tries.incrementAndGet() <= 8) {
            throw new DependencyDown();
          }
          recording.apply(connection, record);
        };
    long parkedBefore = inTx(parked::unresolved);
    try (KafkaConsumer<String, byte[]> consumer = consumer(topic)) {
      pollUntil(consumer, applier, work, () -> applied(topic).size() >= 1, Duration.ofSeconds(30));
    }
    assertTrue(tries.get() > 8, "tried while the dependency was down: " + tries.get());
    assertEquals(1, applied(topic).size(), "applied once the dependency answered");
    assertEquals(parkedBefore, (long) inTx(parked::unresolved), "nothing parked");
  }

  private BatchApplier.RecordWork recording(
      String consumerName, String poison, AtomicInteger poisonAttempts) {
    return (connection, record) -> {
      Envelope envelope = KafkaEnvelopes.fromRecord(record);
      inbox.apply(
          connection,
          consumerName,
          envelope.messageId(),
          tx -> {
            insertApplied(tx, record, envelope.messageId());
            if (envelope.messageId().equals(poison)) {
              poisonAttempts.incrementAndGet();
              throw new IllegalStateException("this handler always fails");
            }
            return null;
          });
    };
  }

  /**
   * The committed hook hears of each record once its transaction committed (its effect is visible
   * to another session then), and never of a record whose transaction rolled back: a batch that
   * fails is not told, the records applied one by one are told one each, the failing one is not.
   */
  @Test
  void onlyCommittedRecordsAreToldAndOnlyAfterTheirCommit() throws Exception {
    String topic = Fixtures.uniqueTopic("committed");
    TopicPartition p0 = new TopicPartition(topic, 0);
    TopicPartition p1 = new TopicPartition(topic, 1);
    ConsumerRecord<String, byte[]> a = new ConsumerRecord<>(topic, 0, 0, "k", bytes("a"));
    ConsumerRecord<String, byte[]> poison = new ConsumerRecord<>(topic, 0, 1, "k", bytes("b"));
    ConsumerRecord<String, byte[]> c = new ConsumerRecord<>(topic, 0, 2, "k", bytes("c"));
    ConsumerRecord<String, byte[]> d = new ConsumerRecord<>(topic, 1, 0, "k", bytes("d"));
    AtomicInteger poisonAttempts = new AtomicInteger();
    BatchApplier.RecordWork work =
        (connection, record) -> {
          String id = new String(record.value(), StandardCharsets.UTF_8);
          insertApplied(connection, record, id);
          if (id.equals("b") && poisonAttempts.incrementAndGet() <= 2) {
            throw new IllegalStateException("fails in the batch and once on its own");
          }
        };
    List<List<String>> told = new ArrayList<>();
    BatchApplier.Committed committed =
        records -> {
          List<String> ids =
              records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
          try {
            List<String> visible = applied(topic).stream().map(row -> row[1]).toList();
            assertTrue(visible.containsAll(ids), ids + " committed before told: " + visible);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          told.add(ids);
        };
    BatchApplier applier = new BatchApplier("committed-it", transactions, Duration.ofMillis(1));
    try (org.apache.kafka.clients.consumer.MockConsumer<String, byte[]> consumer =
        new org.apache.kafka.clients.consumer.MockConsumer<>(
            org.apache.kafka.clients.consumer.OffsetResetStrategy.EARLIEST)) {
      consumer.assign(List.of(p0, p1));
      consumer.updateBeginningOffsets(Map.of(p0, 0L, p1, 0L));

      assertEquals(2, applier.apply(List.of(a, poison, c, d), consumer, work, committed));
      assertEquals(List.of(List.of("a"), List.of("d")), told, "the failed batch is not told");

      told.clear();
      assertEquals(2, applier.apply(List.of(poison, c), consumer, work, committed));
      assertEquals(List.of(List.of("b", "c")), told, "a batch that commits is told once");
    }
    assertEquals(3, poisonAttempts.get());
    assertEquals(List.of("a", "d", "b", "c"), applied(topic).stream().map(row -> row[1]).toList());
  }

  /** {@code count} records to partition 0 of {@code topic}, valued {@code prefix} and 0, 1, …. */
  private static void sendNumbered(String topic, String prefix, int count) {
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(KafkaSettings.producer(TestKafka.bootstrapServers(), "numbered-it"))) {
      for (int i = 0; i < count; i++) {
        producer.send(
            new ProducerRecord<>(topic, 0, "k", (prefix + i).getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
  }

  /** Polls {@code topic} and applies each poll at once until {@code count} records applied. */
  private static void applyAllUntil(
      String topic, int count, BatchApplier applier, BatchApplier.BatchWork work) throws Exception {
    Map<String, Object> config = KafkaSettings.consumer(TestKafka.bootstrapServers(), topic);
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (applied(topic).size() < count && System.nanoTime() < deadline) {
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        applier.applyAll(records, consumer, work);
      }
    }
  }

  private static void send(String topic, List<Envelope> envelopes) {
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(KafkaSettings.producer(TestKafka.bootstrapServers(), "batch-it"))) {
      for (Envelope envelope : envelopes) {
        producer.send(KafkaEnvelopes.toRecord(topic, envelope));
      }
      producer.flush();
    }
  }

  private static KafkaConsumer<String, byte[]> consumer(String topic) {
    Map<String, Object> config = KafkaSettings.consumer(TestKafka.bootstrapServers(), topic);
    KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config);
    consumer.subscribe(List.of(topic));
    return consumer;
  }

  private static void pollUntil(
      KafkaConsumer<String, byte[]> consumer,
      BatchApplier applier,
      BatchApplier.RecordWork work,
      java.util.concurrent.Callable<Boolean> done,
      Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.call() && System.nanoTime() < deadline) {
      List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
      consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      applier.apply(records, consumer, work);
    }
  }

  private static long committed(KafkaConsumer<String, byte[]> consumer, TopicPartition partition) {
    OffsetAndMetadata committed = consumer.committed(Set.of(partition)).get(partition);
    return committed == null ? -1 : committed.offset();
  }

  /** As the fault-injection suite does: refuse new sessions and end the open ones. */
  private static void refuseConnections(boolean refuse) throws Exception {
    String url = database.jdbcUrl().replace("/" + database.name(), "/postgres");
    try (Connection admin =
            java.sql.DriverManager.getConnection(url, database.user(), database.password());
        java.sql.Statement statement = admin.createStatement()) {
      statement.execute("ALTER DATABASE " + database.name() + " WITH ALLOW_CONNECTIONS " + !refuse);
      if (refuse) {
        statement.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
                + database.name()
                + "'");
      }
    }
  }

  private static <T> T inTx(ph.payments.platform.tx.SqlWork<T> work) {
    return transactions.inTransaction(work);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static boolean committedUpTo(
      KafkaConsumer<String, byte[]> consumer, Map<TopicPartition, Long> ends) {
    Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(ends.keySet());
    return ends.entrySet().stream()
        .allMatch(
            end ->
                committed.get(end.getKey()) != null
                    && committed.get(end.getKey()).offset() == end.getValue());
  }

  private static void insertApplied(
      Connection connection, ConsumerRecord<String, byte[]> record, String messageId)
      throws java.sql.SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO applied (topic, partition_no, message_id) VALUES (?, ?, ?)")) {
      insert.setString(1, record.topic());
      insert.setInt(2, record.partition());
      insert.setString(3, messageId);
      insert.executeUpdate();
    }
  }

  private static List<String[]> applied(String topic) throws Exception {
    List<String[]> rows = new ArrayList<>();
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement select =
            connection.prepareStatement(
                "SELECT partition_no, message_id FROM applied WHERE topic = ? ORDER BY seq")) {
      select.setString(1, topic);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          rows.add(new String[] {Integer.toString(rs.getInt(1)), rs.getString(2)});
        }
      }
    }
    return rows;
  }
}
