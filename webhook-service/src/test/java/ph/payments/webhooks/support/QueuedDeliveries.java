package ph.payments.webhooks.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Deliveries written straight into the queue, without events through Kafka. */
public final class QueuedDeliveries {

  private QueuedDeliveries() {}

  /**
   * {@code count} events of {@code bodyBytes} bytes, each with one delivery to {@code host}:
   * pending and due in an hour, or succeeded.
   */
  public static List<Long> insert(
      Connection connection, String host, int count, int bodyBytes, boolean due)
      throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "WITH v AS (INSERT INTO webhook_events (id, merchant_id, environment, type, body,"
                + " received_at) SELECT 'evt_' || gen_random_uuid(), 'mer_growth', 'test',"
                + " 'payment.succeeded', convert_to(repeat('x', ?), 'UTF8'), now()"
                + " FROM generate_series(1, ?) RETURNING id)"
                + " INSERT INTO webhook_deliveries (merchant_id, environment, override_url, target,"
                + " event_id, event_type, status, next_attempt_at, created_at, completed_at)"
                + " SELECT 'mer_growth', 'test', 'https://' || ? || '.example/hook',"
                + " 'url:' || ? || '.example:443', v.id, 'payment.succeeded',"
                + " CASE WHEN ? THEN 'pending' ELSE 'succeeded' END,"
                + " CASE WHEN ? THEN now() + interval '1 hour' END, now(),"
                + " CASE WHEN ? THEN NULL ELSE now() END FROM v RETURNING id")) {
      insert.setInt(1, bodyBytes);
      insert.setInt(2, count);
      insert.setString(3, host);
      insert.setString(4, host);
      insert.setBoolean(5, due);
      insert.setBoolean(6, due);
      insert.setBoolean(7, due);
      List<Long> ids = new ArrayList<>();
      try (ResultSet rs = insert.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getLong(1));
        }
      }
      return ids;
    }
  }
}
