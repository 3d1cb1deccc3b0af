package ph.payments.payments.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.Topics;
import ph.payments.platform.ids.EventId;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.outbox.OutboxMessage;
import ph.payments.platform.outbox.OutboxWriter;
import ph.payments.platform.tx.Transactions;

/**
 * The canonical event log (SPEC part 6). An event is appended in the transaction of the state
 * change it announces, together with its outbox row, so it is published (and delivered by webhooks)
 * exactly as stored.
 *
 * <p><b>Gap-free reading.</b> Transactions commit in another order than they take sequence numbers:
 * a reader that listed event 51 while the transaction holding 50 was still open would skip 50
 * forever. So the log is ordered by (writing transaction id, sequence), and {@link #list} returns
 * only events whose transaction is older than the oldest transaction still in flight in this
 * database ({@link #HORIZON}). Every such transaction has ended, and any event written from now on
 * belongs to a transaction at or after that horizon: it sorts after everything listed. Event ids
 * encode (transaction, sequence), so they sort exactly in list order.
 *
 * <p><b>This database only.</b> {@code pg_snapshot_xmin} would be the server-wide horizon: a long
 * transaction in any other database of the server (a migration, a batch job) would freeze every
 * merchant's event list. Only backends connected to this database can write events, so the horizon
 * is the oldest of those that hold a transaction id (their {@code backend_xid} matched to the
 * 64-bit ids in flight), or the snapshot's {@code xmax} when none does. It is computed in a
 * statement of its own, before the statement that lists: a transaction that was in flight for the
 * first statement's snapshot but gone from {@code pg_stat_activity} when it was read has ended, so
 * the listing statement's newer snapshot (READ COMMITTED) sees its events. {@code backend_xid} is
 * shown to every role, so this holds whatever role the services use.
 */
@Singleton
public class EventLog {

  private static final String INSERT =
      "INSERT INTO events (txid, seq, type, merchant_id, environment, resource_type,"
          + " resource_id, created_at, body) VALUES (?::xid8, ?, ?, ?, ?, ?, ?, ?, ?)";

  /** The oldest transaction id still in flight in this database, or the next one to start. */
  static final String HORIZON =
      "SELECT least(pg_snapshot_xmax(s), (SELECT min(x) FROM pg_snapshot_xip(s) x"
          + " WHERE x::text::bigint % 4294967296 IN (SELECT backend_xid::text::bigint"
          + " FROM pg_stat_activity WHERE datname = current_database()"
          + " AND backend_xid IS NOT NULL)))::text FROM pg_current_snapshot() s";

  private final OutboxWriter outbox;
  private final Clock clock;

  public EventLog(OutboxWriter outbox, Clock clock) {
    this.outbox = outbox;
    this.clock = clock;
  }

  /**
   * Envelope attribute carrying a payment's {@code webhook_url} override to webhook-service, which
   * delivers the payment's events there too. Not part of the event body: the payment resource has
   * no such field (SPEC part 2).
   */
  public static final String ATTRIBUTE_WEBHOOK_URL = Envelope.ATTRIBUTE_WEBHOOK_URL;

  /**
   * Who the event belongs to and which resource changed.
   *
   * @param webhookUrl the resource's own webhook URL (a payment's {@code webhook_url}), or null
   */
  public record Subject(
      String merchantId,
      String environment,
      String resourceType,
      String resourceId,
      String key,
      String webhookUrl) {

    public Subject(
        String merchantId, String environment, String resourceType, String resourceId, String key) {
      this(merchantId, environment, resourceType, resourceId, key, null);
    }
  }

  /** One page of events, ascending. */
  public record Page(List<byte[]> events, boolean hasMore) {}

  /**
   * Appends {@code type} with {@code resource} as its {@code data.object}, and queues it for
   * publishing with the subject's key (the aggregate that orders it).
   *
   * @return the stored event body, as webhooks will deliver it
   */
  public byte[] append(Connection connection, Subject subject, String type, JsonNode resource)
      throws SQLException {
    Transactions.requireTransaction(connection);
    long txid;
    long seq;
    // pg_current_xact_id() gives this transaction its id now if it has none yet.
    try (PreparedStatement next =
            connection.prepareStatement(
                "SELECT pg_current_xact_id()::text::bigint, nextval('events_seq')");
        ResultSet rs = next.executeQuery()) {
      rs.next();
      txid = rs.getLong(1);
      seq = rs.getLong(2);
    }
    Instant now = clock.instant();
    String id = EventId.of(txid, seq).value();
    ObjectNode event = Json.mapper().createObjectNode();
    event.put("id", id);
    event.put("object", "event");
    event.put("type", type);
    event.put("environment", subject.environment());
    event.put("created", now.getEpochSecond());
    event.putObject("data").set("object", resource);
    byte[] body = Json.toBytes(event);

    Map<String, String> attributes = new HashMap<>();
    attributes.put(Envelope.ATTRIBUTE_MERCHANT_ID, subject.merchantId());
    if (subject.webhookUrl() != null) {
      attributes.put(ATTRIBUTE_WEBHOOK_URL, subject.webhookUrl());
    }
    // The event's row and its outbox message in one statement: one round trip, not two.
    outbox.appendWith(
        connection,
        new OutboxWriter.Write(
            INSERT,
            (insert, first) -> {
              insert.setString(first, Long.toString(txid));
              insert.setLong(first + 1, seq);
              insert.setString(first + 2, type);
              insert.setString(first + 3, subject.merchantId());
              insert.setString(first + 4, subject.environment());
              insert.setString(first + 5, subject.resourceType());
              insert.setString(first + 6, subject.resourceId());
              insert.setTimestamp(first + 7, Timestamp.from(now));
              insert.setBytes(first + 8, body);
              return first + 9;
            }),
        new OutboxMessage(id, Topics.EVENTS, subject.key(), type, body, attributes));
    return body;
  }

  /**
   * Events of a merchant's environment after {@code startingAfter} (an event id, or null), oldest
   * first, optionally of one type. Never returns an event that a still-open transaction could
   * precede.
   */
  public Page list(
      Connection connection,
      String merchantId,
      String environment,
      String type,
      String startingAfter,
      int limit)
      throws SQLException {
    long afterTxid = startingAfter == null ? -1 : IdType.eventTransaction(startingAfter);
    long afterSeq = startingAfter == null ? -1 : IdType.eventSequence(startingAfter);
    String horizon = horizon(connection);
    String sql =
        "SELECT body FROM events WHERE merchant_id = ? AND environment = ?"
            + " AND (txid, seq) > (?::text::xid8, ?)"
            + (type == null ? "" : " AND type = ?")
            + " AND txid < ?::text::xid8"
            + " ORDER BY txid, seq LIMIT ?";
    List<byte[]> events = new ArrayList<>();
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      int i = 1;
      select.setString(i++, merchantId);
      select.setString(i++, environment);
      select.setString(i++, Long.toString(Math.max(afterTxid, 0)));
      select.setLong(i++, afterTxid < 0 ? -1 : afterSeq);
      if (type != null) {
        select.setString(i++, type);
      }
      select.setString(i++, horizon);
      select.setInt(i, limit + 1);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          events.add(rs.getBytes(1));
        }
      }
    }
    boolean hasMore = events.size() > limit;
    return new Page(hasMore ? events.subList(0, limit) : events, hasMore);
  }

  private static String horizon(Connection connection) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(HORIZON);
        ResultSet rs = select.executeQuery()) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** An event as stored, with the environment it belongs to. */
  public record Stored(String environment, byte[] body) {}

  /**
   * The merchant's event with this id, in whichever environment it is: the caller tells "not found"
   * (404) from "the other environment" (401).
   */
  public Optional<Stored> find(Connection connection, String merchantId, String eventId)
      throws SQLException {
    if (!IdType.EVENT.matches(eventId)) {
      return Optional.empty();
    }
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT environment, body FROM events WHERE txid = ?::text::xid8 AND seq = ?"
                + " AND merchant_id = ?")) {
      select.setString(1, Long.toString(IdType.eventTransaction(eventId)));
      select.setLong(2, IdType.eventSequence(eventId));
      select.setString(3, merchantId);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next()
            ? Optional.of(new Stored(rs.getString(1), rs.getBytes(2)))
            : Optional.empty();
      }
    }
  }

  /** A resource's timeline, oldest first (for {@code expand=events}). */
  public List<byte[]> forResource(Connection connection, String resourceId) throws SQLException {
    List<byte[]> events = new ArrayList<>();
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT body FROM events WHERE resource_id = ? ORDER BY txid, seq")) {
      select.setString(1, resourceId);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          events.add(rs.getBytes(1));
        }
      }
    }
    return events;
  }
}
