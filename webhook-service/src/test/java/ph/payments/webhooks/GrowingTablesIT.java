package ph.payments.webhooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import ph.payments.platform.tx.SqlWork;
import ph.payments.testkit.TestDatabase;
import ph.payments.webhooks.deliveries.DeliveryScheduler;
import ph.payments.webhooks.deliveries.JdbcDeliveries;
import ph.payments.webhooks.deliveries.Reservations;
import ph.payments.webhooks.support.QueuedDeliveries;
import ph.payments.webhooks.support.WebhookServiceTest;

/**
 * A pooled connection lives for half an hour while the events and deliveries grow by hundreds of
 * rows a second. What it reads per batch must stay proportional to the batch, not to the tables: a
 * plan cached while the tables were small (a hash join of two sequential scans) is never replaced
 * where nothing analyzes them (autovacuum off).
 */
@MicronautTest(transactional = false)
class GrowingTablesIT extends WebhookServiceTest {

  @Inject JdbcDeliveries deliveries;
  @Inject DeliveryScheduler scheduler;

  // Each test starts from empty tables, as a new service does: that is when the plans are made.
  @BeforeEach
  void emptyTheQueue() throws SQLException {
    try (Connection connection = TestDatabase.forClass(getClass()).dataSource().getConnection()) {
      connection
          .createStatement()
          .execute("TRUNCATE webhook_attempts, webhook_deliveries, webhook_events");
    }
  }

  @Test
  void aBatchReadsOnlyItsOwnRowsAfterTheTablesGrewUnderTheConnection() throws Exception {
    TestDatabase database = TestDatabase.forClass(getClass());
    try (Connection connection = database.dataSource().getConnection()) {
      List<Long> batch = QueuedDeliveries.insert(connection, "small", 4, 1000, false);
      // Enough executions for the driver to prepare the read and PostgreSQL to settle on a plan.
      for (int i = 0; i < 12; i++) {
        assertEquals(4, measured(connection, c -> deliveries.works(c, batch)).result().size());
      }
      // 20,000 events of 1 KB and their deliveries: about 3,000 pages.
      QueuedDeliveries.insert(connection, "bulk", 20_000, 1000, false);

      Measured<?> read = measured(connection, c -> deliveries.works(c, batch));
      assertTrue(read.heapBlocks() < 200, "heap blocks read for a batch of four: " + read);
    }
  }

  /**
   * A receiver at its limit with thousands of deliveries due must not cost every claim a read of
   * them: claims run each time an attempt ends, hundreds of times a second under load.
   */
  @Test
  void aClaimPassesOverTheBacklogOfATargetAtItsLimitWithoutReadingIt() throws Exception {
    TestDatabase database = TestDatabase.forClass(getClass());
    try (Connection connection = database.dataSource().getConnection();
        Connection holder = database.dataSource().getConnection()) {
      QueuedDeliveries.insert(connection, "slow", 16, 2, true);
      QueuedDeliveries.insert(connection, "other", 1, 2, true);
      // Another transaction holds every due delivery locked: claims read them and lease none (nor
      // does the service's own scheduler).
      holder.setAutoCommit(false);
      lockDue(holder);
      List<String> busy = List.of("url:slow.example:443");
      for (int i = 0; i < 12; i++) {
        assertEquals(List.of(), measured(connection, c -> claim(c, busy)).result());
      }
      // 20,000 more due for the busy target: about 500 pages, read whole by a claim that passes
      // over them one by one; a handful of blocks by one that skips the target.
      QueuedDeliveries.insert(connection, "slow", 20_000, 2, true);
      lockDue(holder);

      Measured<?> claim = measured(connection, c -> claim(c, busy));
      assertEquals(List.of(), claim.result());
      assertTrue(claim.heapBlocks() < 100, "heap blocks read by a claim: " + claim);
      holder.rollback();
    }
  }

  /**
   * With a long queue due (a receiver that was down, now back), each claim leases a few rows of it;
   * the lease must find them by id, not read the queue. Nothing has analyzed the table, as where
   * autovacuum is off.
   */
  @Test
  void aLeaseReadsTheRowsItLeasesNotTheQueueDue() throws Exception {
    TestDatabase database = TestDatabase.forClass(getClass());
    try (Connection connection = database.dataSource().getConnection()) {
      // Four receivers, so that the claim fills all 64 slots (16 per receiver).
      for (int receiver = 1; receiver <= 4; receiver++) {
        QueuedDeliveries.insert(connection, "back" + receiver, 5_000, 2, true);
      }

      Measured<List<JdbcDeliveries.Claim>> claim = measured(connection, c -> claim(c, List.of()));
      assertEquals(64, claim.result().size());
      // Writing 64 new row versions (with their unique-index checks) costs about 400 block reads
      // and finding the 64 a hundred; reading the 20,000 due through the partial index adds about
      // 650 more, and 14 ms.
      assertTrue(claim.heapBlocks() < 700, "heap blocks read by a claim of 64: " + claim);
    }
  }

  /**
   * Claims in the caller's transaction as if a day had passed, giving back the slots it reserved:
   * the deliveries here are due in an hour, so the service's own scheduler leaves them alone.
   */
  private List<JdbcDeliveries.Claim> claim(Connection connection, List<String> busy)
      throws SQLException {
    Reservations slots = new Reservations(scheduler);
    try {
      return deliveries.claim(connection, Instant.now().plus(Duration.ofDays(1)), 64, busy, slots);
    } finally {
      slots.rolledBack();
    }
  }

  /** What a piece of work returned, and the heap blocks of both tables it read. */
  record Measured<T>(T result, long heapBlocks) {
    @Override
    public String toString() {
      return heapBlocks + " blocks";
    }
  }

  /**
   * Runs {@code work} in a transaction of its own on {@code connection}, rolled back, and counts
   * the heap blocks it read from both tables: this session's own counters, which no other session
   * adds to and which only reach the shared statistics when the session is idle (so the difference
   * within one transaction is the work's alone).
   */
  private static <T> Measured<T> measured(Connection connection, SqlWork<T> work)
      throws SQLException {
    connection.setAutoCommit(false);
    try {
      long before = heapBlocksFetched(connection);
      T result = work.run(connection);
      return new Measured<>(result, heapBlocksFetched(connection) - before);
    } finally {
      connection.rollback();
      connection.setAutoCommit(true);
    }
  }

  private static long heapBlocksFetched(Connection connection) throws SQLException {
    try (ResultSet rs =
        connection
            .createStatement()
            .executeQuery(
                "SELECT pg_stat_get_xact_blocks_fetched('webhook_events'::regclass)"
                    + " + pg_stat_get_xact_blocks_fetched('webhook_deliveries'::regclass)")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void lockDue(Connection holder) throws SQLException {
    holder
        .createStatement()
        .execute("SELECT id FROM webhook_deliveries WHERE status = 'pending' FOR UPDATE");
  }
}
