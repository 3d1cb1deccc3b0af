package ph.payments.ledger.audit;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import ph.payments.contracts.Envelope;

/**
 * Events the ledger consumed but could not apply, kept whole ({@code ledger_anomalies}). A message
 * that can never be applied is parked here instead of stalling its partition forever; the audit
 * reports every one, so it is visible, not lost.
 */
@Singleton
public class JdbcAnomalies {

  private final Clock clock;

  public JdbcAnomalies(Clock clock) {
    this.clock = clock;
  }

  /** One parked message. */
  public record Anomaly(
      long id,
      String messageId,
      String messageType,
      String messageKey,
      String merchantId,
      String reason,
      Instant recordedAt) {}

  public void record(Connection connection, Envelope envelope, String reason) throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO ledger_anomalies (message_id, message_type, message_key, merchant_id,"
                + " reason, payload, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
      insert.setString(1, envelope.messageId());
      insert.setString(2, envelope.type());
      insert.setString(3, envelope.key());
      insert.setString(4, envelope.attribute(Envelope.ATTRIBUTE_MERCHANT_ID));
      insert.setString(5, reason);
      insert.setBytes(6, envelope.payload());
      insert.setTimestamp(7, Timestamp.from(clock.instant()));
      insert.executeUpdate();
    }
  }

  public long count(Connection connection) throws SQLException {
    try (PreparedStatement select =
            connection.prepareStatement(
                "SELECT count(*) FROM ledger_anomalies WHERE resolved_at IS NULL");
        ResultSet rs = select.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The newest {@code limit} anomalies, newest first. */
  public List<Anomaly> recent(Connection connection, int limit) throws SQLException {
    List<Anomaly> anomalies = new ArrayList<>();
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT id, message_id, message_type, message_key, merchant_id, reason, recorded_at"
                + " FROM ledger_anomalies WHERE resolved_at IS NULL ORDER BY id DESC LIMIT ?")) {
      select.setInt(1, limit);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          anomalies.add(
              new Anomaly(
                  rs.getLong(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getString(5),
                  rs.getString(6),
                  rs.getTimestamp(7).toInstant()));
        }
      }
    }
    return anomalies;
  }
}
