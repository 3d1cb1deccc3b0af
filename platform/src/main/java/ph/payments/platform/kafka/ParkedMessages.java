package ph.payments.platform.kafka;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import ph.payments.contracts.Envelope;
import ph.payments.platform.ids.IdType;

/**
 * The records consumers gave up on ({@code parked_messages}, see {@link BatchApplier}): written in
 * the parking transaction, listed and resolved by operators. A service's table; every service that
 * consumes has one.
 */
public final class ParkedMessages {

  /** Prefix of parked message ids; the body sorts in parking order like every other id. */
  public static final String ID_PREFIX = "prk_";

  /** One parked record. */
  public record Parked(
      String id,
      String consumer,
      String topic,
      int partition,
      long offset,
      String key,
      String messageId,
      String messageType,
      byte[] payload,
      String lastError,
      int attempts,
      Instant firstFailedAt,
      Instant lastFailedAt,
      Instant parkedAt,
      boolean replySent,
      Instant resolvedAt,
      String resolution) {}

  /** Why and since when a record failed, as the applier counted it. */
  public record Failure(int attempts, Instant firstFailedAt, Instant lastFailedAt, String error) {}

  private static final String COLUMNS =
      "id, consumer, topic, partition_no, record_offset, message_key, message_id, message_type,"
          + " payload, last_error, attempts, first_failed_at, last_failed_at, parked_at,"
          + " reply_sent, resolved_at, resolution";

  private final Clock clock;

  public ParkedMessages(Clock clock) {
    this.clock = clock;
  }

  /**
   * Parks {@code record} in the caller's transaction.
   *
   * @return the new id, or empty when this record (same consumer and position) was parked before
   */
  public Optional<String> park(
      Connection connection,
      String consumer,
      ConsumerRecord<String, byte[]> record,
      Failure failure,
      boolean replySent)
      throws SQLException {
    // A MESSAGE id's body (time-ordered, 26 characters) under a prefix of our own: parked ids sort
    // in parking order across services, which lets the gateway merge every owner's list.
    String id =
        ID_PREFIX + IdType.MESSAGE.generate().substring(IdType.MESSAGE.prefix().length() + 1);
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO parked_messages ("
                + COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)"
                + " ON CONFLICT (consumer, topic, partition_no, record_offset) DO NOTHING")) {
      insert.setString(1, id);
      insert.setString(2, consumer);
      insert.setString(3, record.topic());
      insert.setInt(4, record.partition());
      insert.setLong(5, record.offset());
      insert.setString(6, record.key());
      insert.setString(7, header(record, Envelope.HEADER_MESSAGE_ID));
      insert.setString(8, header(record, Envelope.HEADER_TYPE));
      insert.setBytes(9, record.value());
      insert.setString(10, abbreviate(failure.error()));
      insert.setInt(11, failure.attempts());
      insert.setTimestamp(12, Timestamp.from(failure.firstFailedAt()));
      insert.setTimestamp(13, Timestamp.from(failure.lastFailedAt()));
      insert.setTimestamp(14, Timestamp.from(clock.instant()));
      insert.setBoolean(15, replySent);
      return insert.executeUpdate() == 1 ? Optional.of(id) : Optional.empty();
    }
  }

  /** A page in id (parking) order after {@code startingAfter}; {@code limit + 1} tells more. */
  public List<Parked> page(Connection connection, int limit, String startingAfter)
      throws SQLException {
    List<Parked> rows = new ArrayList<>();
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT "
                + COLUMNS
                + " FROM parked_messages WHERE (?::text IS NULL OR id > ?) ORDER BY id LIMIT ?")) {
      select.setString(1, startingAfter);
      select.setString(2, startingAfter);
      select.setInt(3, limit);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          rows.add(read(rs));
        }
      }
    }
    return rows;
  }

  public Optional<Parked> find(Connection connection, String id) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement("SELECT " + COLUMNS + " FROM parked_messages WHERE id = ?")) {
      select.setString(1, id);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  /** Records that an operator dealt with {@code id}; resolving twice keeps the first note. */
  public Optional<Parked> resolve(Connection connection, String id, String resolution)
      throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE parked_messages SET resolved_at = ?, resolution = ?"
                + " WHERE id = ? AND resolved_at IS NULL")) {
      update.setTimestamp(1, Timestamp.from(clock.instant()));
      update.setString(2, abbreviate(resolution));
      update.setString(3, id);
      update.executeUpdate();
    }
    return find(connection, id);
  }

  /** What monitoring polls: parked records no operator has resolved yet. */
  public long unresolved(Connection connection) throws SQLException {
    try (PreparedStatement select =
            connection.prepareStatement(
                "SELECT count(*) FROM parked_messages WHERE resolved_at IS NULL");
        ResultSet rs = select.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static Parked read(ResultSet rs) throws SQLException {
    Timestamp resolved = rs.getTimestamp("resolved_at");
    return new Parked(
        rs.getString("id"),
        rs.getString("consumer"),
        rs.getString("topic"),
        rs.getInt("partition_no"),
        rs.getLong("record_offset"),
        rs.getString("message_key"),
        rs.getString("message_id"),
        rs.getString("message_type"),
        rs.getBytes("payload"),
        rs.getString("last_error"),
        rs.getInt("attempts"),
        rs.getTimestamp("first_failed_at").toInstant(),
        rs.getTimestamp("last_failed_at").toInstant(),
        rs.getTimestamp("parked_at").toInstant(),
        rs.getBoolean("reply_sent"),
        resolved == null ? null : resolved.toInstant(),
        rs.getString("resolution"));
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null || header.value() == null
        ? null
        : new String(header.value(), StandardCharsets.UTF_8);
  }

  private static String abbreviate(String text) {
    if (text == null) {
      return "";
    }
    return text.length() <= 2000 ? text : text.substring(0, 2000);
  }
}
