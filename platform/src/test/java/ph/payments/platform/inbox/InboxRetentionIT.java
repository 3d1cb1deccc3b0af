package ph.payments.platform.inbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import ph.payments.platform.outbox.Fixtures;
import ph.payments.platform.tx.JdbcTransactions;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.TestDatabase;

class InboxRetentionIT {

  private static final Instant NOW = Instant.parse("2026-11-24T08:00:00Z");
  private static final Duration RETENTION = Duration.ofDays(30);

  private static TestDatabase database;
  private static Transactions transactions;

  @BeforeAll
  static void createDatabase() throws Exception {
    database = TestDatabase.create("inbox_retention");
    Fixtures.applyPlatformSchema(database.dataSource());
    transactions = new JdbcTransactions(database.dataSource());
  }

  @AfterAll
  static void dropDatabase() {
    database.close();
  }

  @Test
  void idsOlderThanTheRetentionAreForgottenAndNewerOnesStillStopARedelivery() throws Exception {
    record("old-1", NOW.minus(RETENTION).minusSeconds(1), "old-2", NOW.minus(Duration.ofDays(400)));
    record("edge", NOW.minus(RETENTION), "recent", NOW.minus(Duration.ofDays(29)));

    int deleted = transactions.inTransaction(c -> InboxRetention.purge(c, NOW.minus(RETENTION), 1));
    assertEquals(1, deleted, "one batch of one");
    transactions.inTransaction(c -> InboxRetention.purge(c, NOW.minus(RETENTION), 100));

    assertEquals(List.of("edge", "recent"), remaining());
    // A redelivery of a kept id is still recognised.
    IdempotentConsumer inbox = new IdempotentConsumer(Clock.fixed(NOW, ZoneOffset.UTC));
    boolean again = transactions.inTransaction(c -> inbox.apply(c, "test", "recent", tx -> null));
    assertFalse(again);
    boolean fresh = transactions.inTransaction(c -> inbox.apply(c, "test", "new", tx -> null));
    assertTrue(fresh);
  }

  @Test
  void aRetentionThatDoesNotOutlastTheTopicsIsRefused() {
    Duration week = Duration.ofDays(7);
    Duration day = Duration.ofDays(1);
    assertEquals(Duration.ofDays(15), InboxRetention.minimum(week, day));
    InboxRetention.check(Duration.ofDays(30), week, day);
    InboxRetention.check(Duration.ofDays(15), week, day);
    IllegalStateException refused =
        assertThrows(
            IllegalStateException.class,
            () -> InboxRetention.check(Duration.ofDays(14), week, day));
    assertTrue(refused.getMessage().contains("INBOX_RETENTION"), refused.getMessage());
    // Topics left at the broker's defaults (7 days, segments of 7 days) are covered by 30 days.
    InboxRetention.check(RETENTION, week, week);
  }

  private static void record(String id1, Instant at1, String id2, Instant at2) {
    transactions.inTransaction(
        c -> {
          try (PreparedStatement insert =
              c.prepareStatement(
                  "INSERT INTO inbox (consumer, message_id, processed_at) VALUES"
                      + " ('test', ?, ?), ('test', ?, ?)")) {
            insert.setString(1, id1);
            insert.setTimestamp(2, java.sql.Timestamp.from(at1));
            insert.setString(3, id2);
            insert.setTimestamp(4, java.sql.Timestamp.from(at2));
            return insert.executeUpdate();
          }
        });
  }

  private static List<String> remaining() {
    return transactions.inTransaction(
        c -> {
          List<String> ids = new ArrayList<>();
          try (PreparedStatement select =
                  c.prepareStatement(
                      "SELECT message_id FROM inbox WHERE consumer = 'test' AND message_id <> 'new'"
                          + " ORDER BY message_id");
              ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
              ids.add(rs.getString(1));
            }
          }
          return ids;
        });
  }
}
