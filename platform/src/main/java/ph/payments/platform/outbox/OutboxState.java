package ph.payments.platform.outbox;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import ph.payments.platform.json.Json;

/**
 * What an operator needs to see of a service's outbox (issue 19): how many rows wait, how old the
 * oldest is, per topic, and the oldest rows that failed to publish with their last error. Payloads
 * are not shown (they hold merchants' data); ids, types and keys are.
 */
public final class OutboxState {

  /** How many failing rows the report lists. */
  public static final int FAILING_ROWS = 20;

  public static ObjectNode report(Connection connection, String service, Instant now)
      throws SQLException {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("object", "outbox_state");
    json.put("service", service);
    long pending = 0;
    Instant oldest = null;
    ArrayNode topics = json.putArray("topics");
    try (PreparedStatement select =
            connection.prepareStatement(
                "SELECT topic, count(*), min(created_at), count(*) FILTER (WHERE attempts > 0)"
                    + " FROM outbox WHERE published_at IS NULL GROUP BY topic ORDER BY topic");
        ResultSet rs = select.executeQuery()) {
      while (rs.next()) {
        ObjectNode topic = topics.addObject();
        topic.put("topic", rs.getString(1));
        topic.put("pending", rs.getLong(2));
        Instant topicOldest = rs.getTimestamp(3).toInstant();
        topic.put("oldest_pending_created", topicOldest.getEpochSecond());
        topic.put("failing", rs.getLong(4));
        pending += rs.getLong(2);
        oldest = oldest == null || topicOldest.isBefore(oldest) ? topicOldest : oldest;
      }
    }
    json.put("pending", pending);
    if (oldest == null) {
      json.putNull("oldest_pending_age_seconds");
    } else {
      json.put(
          "oldest_pending_age_seconds", Math.max(0, Duration.between(oldest, now).toSeconds()));
    }
    try (PreparedStatement select =
            connection.prepareStatement(
                "SELECT count(*), max(published_at) FROM outbox WHERE published_at IS NOT NULL");
        ResultSet rs = select.executeQuery()) {
      rs.next();
      json.put("published_retained", rs.getLong(1));
      Timestamp last = rs.getTimestamp(2);
      if (last == null) {
        json.putNull("last_published");
      } else {
        json.put("last_published", last.toInstant().getEpochSecond());
      }
    }
    ArrayNode failing = json.putArray("failing");
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT message_id, topic, message_type, message_key, created_at, attempts,"
                + " last_error, last_attempt_at FROM outbox"
                + " WHERE published_at IS NULL AND attempts > 0 ORDER BY id LIMIT ?")) {
      select.setInt(1, FAILING_ROWS);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          ObjectNode row = failing.addObject();
          row.put("message_id", rs.getString(1));
          row.put("topic", rs.getString(2));
          row.put("message_type", rs.getString(3));
          row.put("message_key", rs.getString(4));
          row.put("created", rs.getTimestamp(5).toInstant().getEpochSecond());
          row.put("attempts", rs.getInt(6));
          row.put("last_error", rs.getString(7));
          Timestamp at = rs.getTimestamp(8);
          if (at == null) {
            row.putNull("last_attempt_at");
          } else {
            row.put("last_attempt_at", at.toInstant().getEpochSecond());
          }
        }
      }
    }
    return json;
  }

  private OutboxState() {}
}
