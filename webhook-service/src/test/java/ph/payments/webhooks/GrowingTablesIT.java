package ph.payments.webhooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import ph.payments.testkit.TestDatabase;
import ph.payments.webhooks.deliveries.JdbcDeliveries;
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

  @Test
  void aBatchReadsOnlyItsOwnRowsAfterTheTablesGrewUnderTheConnection() throws Exception {
    TestDatabase database = TestDatabase.forClass(getClass());
    try (Connection connection = database.dataSource().getConnection()) {
      List<Long> batch = insert(connection, "small", 4);
      // Enough executions for the driver to prepare the read and PostgreSQL to settle on a plan.
      for (int i = 0; i < 12; i++) {
        assertEquals(4, deliveries.works(connection, batch).size());
      }
      // 20,000 events of 1 KB and their deliveries: about 3,000 pages.
      insert(connection, "bulk", 20_000);

      long before = heapBlocksRead(connection);
      assertEquals(4, deliveries.works(connection, batch).size());
      long blocks = heapBlocksRead(connection) - before;
      assertTrue(blocks < 200, "heap blocks read for a batch of four: " + blocks);
    }
  }

  private static List<Long> insert(Connection connection, String prefix, int count)
      throws SQLException {
    try (PreparedStatement events =
            connection.prepareStatement(
                "INSERT INTO webhook_events (id, merchant_id, environment, type, body, received_at)"
                    + " SELECT 'evt_' || ? || g, 'mer_growth', 'test', 'payment.succeeded',"
                    + " convert_to(repeat('x', 1000), 'UTF8'), now()"
                    + " FROM generate_series(1, ?) g");
        PreparedStatement deliveries =
            connection.prepareStatement(
                "INSERT INTO webhook_deliveries (merchant_id, environment, override_url, target,"
                    + " event_id, event_type, status, created_at, completed_at)"
                    + " SELECT 'mer_growth', 'test', 'https://example.com/hook',"
                    + " 'url:example.com:443', 'evt_' || ? || g, 'payment.succeeded',"
                    + " 'succeeded', now(), now() FROM generate_series(1, ?) g RETURNING id")) {
      events.setString(1, prefix);
      events.setInt(2, count);
      events.executeUpdate();
      deliveries.setString(1, prefix);
      deliveries.setInt(2, count);
      List<Long> ids = new ArrayList<>();
      try (ResultSet rs = deliveries.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getLong(1));
        }
      }
      return ids;
    }
  }

  /**
   * The heap blocks read from both tables so far, this connection's included: it flushes its
   * statistics first (they otherwise reach the views up to a second later).
   */
  private static long heapBlocksRead(Connection connection) throws SQLException {
    connection.createStatement().execute("SELECT pg_stat_force_next_flush()");
    try (ResultSet rs =
        connection
            .createStatement()
            .executeQuery(
                "SELECT sum(heap_blks_read + heap_blks_hit) FROM pg_statio_user_tables"
                    + " WHERE relname IN ('webhook_events', 'webhook_deliveries')")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
