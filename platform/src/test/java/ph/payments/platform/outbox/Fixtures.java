package ph.payments.platform.outbox;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.kafka.KafkaSettings;
import ph.payments.platform.tx.TransactionFailedException;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.TestKafka;

/** Shared set-up of the outbox and inbox tests: the platform schema, relays and a reader. */
public final class Fixtures {

  /** Runs the platform migration on a fresh test database. */
  public static void applyPlatformSchema(DataSource dataSource) throws SQLException, IOException {
    for (String migration : List.of("V0_1__outbox_and_inbox.sql", "V0_2__outbox_attributes.sql")) {
      String sql;
      try (InputStream in = Fixtures.class.getResourceAsStream("/db/platform/" + migration)) {
        sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      try (Connection connection = dataSource.getConnection();
          Statement statement = connection.createStatement()) {
        statement.execute(sql);
      }
    }
  }

  public static OutboxRelay.Settings settings(String name) {
    return OutboxRelay.Settings.defaults(name).withSweepInterval(Duration.ofMillis(200));
  }

  public static OutboxRelay relay(
      DataSource dataSource, OutboxRelay.Settings settings, OutboxRelay.Probe probe) {
    return relay(dataSource, settings, probe, new OutboxActivity());
  }

  /** A relay whose process's writers share {@code activity} (they ring it while it polls). */
  public static OutboxRelay relay(
      DataSource dataSource, OutboxRelay.Settings settings, OutboxActivity activity) {
    return relay(dataSource, settings, OutboxRelay.Probe.NONE, activity);
  }

  private static OutboxRelay relay(
      DataSource dataSource,
      OutboxRelay.Settings settings,
      OutboxRelay.Probe probe,
      OutboxActivity activity) {
    String bootstrap = TestKafka.bootstrapServers();
    return new OutboxRelay(
        dataSource,
        () -> new KafkaProducer<>(KafkaSettings.relayProducer(bootstrap, settings.name())),
        settings,
        Clock.systemUTC(),
        probe,
        activity);
  }

  public static String uniqueTopic(String hint) {
    String topic = hint + "-" + IdType.MESSAGE.generate().substring(4);
    TestKafka.createTopics(3, topic);
    return topic;
  }

  /** Reads a topic from the beginning, across all partitions, until {@code done} or timeout. */
  public static List<ConsumerRecord<String, byte[]>> readUntil(
      String topic, Duration timeout, Predicate<List<ConsumerRecord<String, byte[]>>> done) {
    Map<String, Object> config =
        KafkaSettings.consumer(TestKafka.bootstrapServers(), "reader-" + IdType.MESSAGE.generate());
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo info : consumer.partitionsFor(topic)) {
        partitions.add(new TopicPartition(topic, info.partition()));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline && !done.test(records)) {
        consumer.poll(Duration.ofMillis(100)).forEach(records::add);
      }
    }
    return records;
  }

  /**
   * Writes 1,000 messages numbered 0–999 to {@code topic} with {@code writer}, ten per transaction,
   * interleaving ten keys ({@code pay_0} … {@code pay_9}).
   */
  public static void writeThousandInterleaved(
      ph.payments.platform.tx.Transactions transactions, OutboxWriter writer, String topic) {
    for (int i = 0; i < 1000; i += 10) {
      int first = i;
      transactions.inTransaction(
          connection -> {
            for (int n = first; n < first + 10; n++) {
              writer.append(
                  connection,
                  OutboxMessage.of(
                      topic,
                      "pay_" + (n % 10),
                      "test.order",
                      Integer.toString(n).getBytes(StandardCharsets.UTF_8)));
            }
            return null;
          });
    }
  }

  /** Reads what {@link #writeThousandInterleaved} wrote and checks each key's numbers rise. */
  public static void assertThousandInOrderPerKey(String topic) {
    List<ConsumerRecord<String, byte[]>> records =
        readUntil(topic, Duration.ofSeconds(30), r -> r.size() >= 1000);
    org.junit.jupiter.api.Assertions.assertEquals(1000, records.size());
    Map<String, Integer> lastPerKey = new java.util.HashMap<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      int n = Integer.parseInt(new String(record.value(), StandardCharsets.UTF_8));
      Integer previous = lastPerKey.put(record.key(), n);
      if (previous != null) {
        org.junit.jupiter.api.Assertions.assertTrue(
            previous < n, record.key() + ": " + previous + " before " + n);
      }
    }
    org.junit.jupiter.api.Assertions.assertEquals(10, lastPerKey.size());
  }

  /** Appends {@code message} in a transaction whose state change then fails: it rolls back. */
  public static void appendAndRollBack(
      Transactions transactions, OutboxWriter writer, OutboxMessage message) {
    assertThrows(
        IllegalStateException.class,
        () ->
            transactions.inTransaction(
                connection -> {
                  writer.append(connection, message);
                  throw new IllegalStateException("the state change failed");
                }));
  }

  /**
   * A row of the test table {@code writes} (created by {@link #createWritesTable}), to write
   * together with a message: a second write of one id fails on the primary key.
   */
  public static OutboxWriter.Write insertWrite(String id) {
    return insertRow(id).write();
  }

  /**
   * A guard for {@link OutboxWriter#appendGuarded}: claims {@code id} in the test table {@code
   * writes} and returns a row only when the claim is new, as an idempotency claim does.
   */
  public static OutboxWriter.Write claimGuard(String id) {
    return new OutboxWriter.Write(
        "INSERT INTO writes (id) VALUES (?) ON CONFLICT (id) DO NOTHING RETURNING 1",
        (statement, first) -> {
          statement.setString(first, id);
          return first + 1;
        });
  }

  /** The messages of {@link #appendAfterThreeWays}. */
  public record LeadMessages(OutboxMessage written, OutboxMessage undone, OutboxMessage unsent) {}

  /**
   * {@link OutboxWriter#appendAllAfter} three ways, in auto-commit mode: a lead and a write that
   * commit; a lead whose write then fails (its row exists); a lead that fails once it claimed. Only
   * the first's claim and row are in {@code writes} afterwards; the caller checks the messages.
   */
  public static LeadMessages appendAfterThreeWays(
      Transactions transactions, OutboxWriter writer, String topic, DataSource dataSource)
      throws SQLException {
    createWritesTable(dataSource);
    String id = "lead_" + System.nanoTime();
    LeadMessages messages =
        new LeadMessages(
            OutboxMessage.of(topic, "k", "test.written", "{}".getBytes(StandardCharsets.UTF_8)),
            OutboxMessage.of(topic, "k", "test.undone", "{}".getBytes(StandardCharsets.UTF_8)),
            OutboxMessage.of(topic, "k", "test.unsent", "{}".getBytes(StandardCharsets.UTF_8)));
    org.junit.jupiter.api.Assertions.assertEquals(
        id + "-claim",
        appendAfterAutoCommitted(
            transactions,
            writer,
            claimLead(id + "-claim", 1),
            insertWrite(id + "-row"),
            messages.written()));
    assertThrows(
        TransactionFailedException.class,
        () ->
            appendAfterAutoCommitted(
                transactions,
                writer,
                claimLead(id + "-undone", 1),
                insertWrite(id + "-row"),
                messages.undone()));
    assertThrows(
        TransactionFailedException.class,
        () ->
            appendAfterAutoCommitted(
                transactions,
                writer,
                claimLead(id + "-failed", 0),
                insertWrite(id + "-2"),
                messages.unsent()));
    try (Connection connection = dataSource.getConnection();
        java.sql.PreparedStatement rows =
            connection.prepareStatement(
                "SELECT string_agg(id, ',' ORDER BY id) FROM writes WHERE id LIKE ?")) {
      rows.setString(1, id + "%");
      try (java.sql.ResultSet rs = rows.executeQuery()) {
        rs.next();
        org.junit.jupiter.api.Assertions.assertEquals(
            id + "-claim," + id + "-row",
            rs.getString(1),
            "the claim and the row of the statement that committed, nothing of the others");
      }
    }
    return messages;
  }

  /**
   * A lead for {@link OutboxWriter#appendAllAfter}: claims {@code id} in the test table {@code
   * writes} and returns it, after dividing by {@code divisor} (0 fails the lead once it claimed).
   */
  public static OutboxWriter.Lead<String> claimLead(String id, int divisor) {
    return new OutboxWriter.Lead<>(
        "INSERT INTO writes (id) VALUES (?) RETURNING id, 1 / ? AS one",
        (statement, first) -> {
          statement.setString(first, id);
          statement.setInt(first + 1, divisor);
          return first + 2;
        },
        rows -> {
          org.junit.jupiter.api.Assertions.assertTrue(rows.next());
          return rows.getString("id");
        });
  }

  /** {@link OutboxWriter#appendAllAfter} in auto-commit mode; what the lead returned. */
  public static String appendAfterAutoCommitted(
      Transactions transactions,
      OutboxWriter writer,
      OutboxWriter.Lead<String> lead,
      OutboxWriter.Write write,
      OutboxMessage message) {
    return transactions.autoCommitted(
        connection -> writer.appendAllAfter(connection, lead, List.of(write), List.of(message)));
  }

  /** The row {@code id} of {@code writes} as an {@link OutboxWriter.Insert}, to be guarded. */
  public static OutboxWriter.Insert insertRow(String id) {
    return new OutboxWriter.Insert(
        "writes",
        "id",
        "?",
        (statement, first) -> {
          statement.setString(first, id);
          return first + 1;
        });
  }

  /** {@link OutboxWriter#appendGuarded} in auto-commit mode; true when the guard admitted. */
  public static boolean appendGuardedAutoCommitted(
      Transactions transactions,
      OutboxWriter writer,
      String claim,
      String row,
      OutboxMessage message) {
    return transactions.autoCommitted(
        connection -> writer.appendGuarded(connection, claimGuard(claim), insertRow(row), message));
  }

  public static void createWritesTable(DataSource dataSource) throws SQLException {
    try (java.sql.Connection connection = dataSource.getConnection()) {
      connection
          .createStatement()
          .execute("CREATE TABLE IF NOT EXISTS writes (id text PRIMARY KEY)");
    }
  }

  /** Writes {@code write} and appends {@code message} in one auto-committed statement. */
  public static void appendWithAutoCommitted(
      Transactions transactions,
      OutboxWriter writer,
      OutboxWriter.Write write,
      OutboxMessage message) {
    transactions.autoCommitted(
        connection -> {
          writer.appendWith(connection, write, message);
          return null;
        });
  }

  /**
   * Inserts the rows {@code ids} of the test table {@code writes} in one multi-row insert and
   * appends {@code messages}, all in one auto-committed statement ({@link
   * OutboxWriter#appendAllWith}).
   */
  public static void appendAllWithAutoCommitted(
      Transactions transactions,
      OutboxWriter writer,
      List<String> ids,
      List<OutboxMessage> messages) {
    transactions.autoCommitted(
        connection -> {
          writer.appendAllWith(
              connection,
              List.of(OutboxWriter.Insert.rows(ids.stream().map(Fixtures::insertRow).toList())),
              messages);
          return null;
        });
  }

  private Fixtures() {}
}
