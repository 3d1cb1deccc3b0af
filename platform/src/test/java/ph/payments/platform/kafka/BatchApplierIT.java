package ph.payments.platform.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import ph.payments.platform.inbox.IdempotentConsumer;
import ph.payments.platform.outbox.Fixtures;
import ph.payments.platform.tx.JdbcTransactions;
import ph.payments.platform.tx.Transactions;
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
    }
  }

  @AfterAll
  static void dropDatabase() {
    database.close();
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
                try (PreparedStatement insert =
                    tx.prepareStatement(
                        "INSERT INTO applied (topic, partition_no, message_id) VALUES (?, ?, ?)")) {
                  insert.setString(1, record.topic());
                  insert.setInt(2, record.partition());
                  insert.setString(3, messageId);
                  insert.executeUpdate();
                }
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

  private static boolean committedUpTo(
      KafkaConsumer<String, byte[]> consumer, Map<TopicPartition, Long> ends) {
    Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(ends.keySet());
    return ends.entrySet().stream()
        .allMatch(
            end ->
                committed.get(end.getKey()) != null
                    && committed.get(end.getKey()).offset() == end.getValue());
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
