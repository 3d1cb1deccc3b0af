package ph.payments.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.Topics;
import ph.payments.platform.ids.EventId;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.outbox.OutboxMessage;
import ph.payments.platform.outbox.OutboxRelay;
import ph.payments.platform.outbox.OutboxWriter;

/**
 * Writes {@code payment.succeeded} events into payments-service's event log the way the service
 * does ({@code EventLog.append} in payments-service: the same statements, the same body, and the
 * service's own {@link OutboxWriter} with its relay's channel), so the relay publishes them and
 * ledger-service and webhook-service consume them as they would a real payment's. What it leaves
 * out is the state change itself (the payment row): the pipeline after the commit does not read it.
 * Every event is a new payment of the merchant, copied from a real payment resource.
 */
final class EventLogWriter {

  /** An event written: its id and when its transaction's commit returned. */
  record Written(String eventId, long committedNanos) {}

  private static final String NEXT =
      "SELECT pg_current_xact_id()::text::bigint, nextval('events_seq')";
  private static final String INSERT =
      "INSERT INTO events (txid, seq, type, merchant_id, environment, resource_type,"
          + " resource_id, created_at, body) VALUES (?::xid8, ?, ?, ?, ?, ?, ?, ?, ?)";

  private final String jdbcUrl;
  private final String merchantId;
  private final ObjectNode paymentTemplate;
  private final Clock clock = Clock.systemUTC();
  private final OutboxWriter outbox =
      new OutboxWriter(clock, OutboxRelay.Settings.defaults("payments-service").channel());

  /**
   * @param paymentTemplate a payment resource as the API returned it
   */
  EventLogWriter(String jdbcUrl, String merchantId, ObjectNode paymentTemplate) {
    this.jdbcUrl = jdbcUrl;
    this.merchantId = merchantId;
    this.paymentTemplate = paymentTemplate;
  }

  /** A connection for one writer thread (not in auto-commit mode). */
  Connection connect() throws SQLException {
    Connection connection = DriverManager.getConnection(jdbcUrl);
    connection.setAutoCommit(false);
    return connection;
  }

  /** Opens one connection per worker. */
  List<Connection> connect(int count) throws SQLException {
    List<Connection> connections = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      connections.add(connect());
    }
    return connections;
  }

  /** One event in its own transaction, as one state change writes it. */
  Written writeOne(Connection connection) throws SQLException {
    String id = append(connection);
    connection.commit();
    return new Written(id, System.nanoTime());
  }

  /** {@code count} events in one transaction (a quick way to build a backlog). */
  List<String> writeBatch(Connection connection, int count) throws SQLException {
    List<String> ids = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      ids.add(append(connection));
    }
    connection.commit();
    return ids;
  }

  private String append(Connection connection) throws SQLException {
    long txid;
    long seq;
    try (PreparedStatement next = connection.prepareStatement(NEXT);
        ResultSet rs = next.executeQuery()) {
      rs.next();
      txid = rs.getLong(1);
      seq = rs.getLong(2);
    }
    Instant now = clock.instant();
    String paymentId = IdType.PAYMENT.generate();
    ObjectNode payment = paymentTemplate.deepCopy();
    BigDecimal amount = payment.get("amount").decimalValue();
    BigDecimal fee = payment.get("fee_amount").decimalValue();
    payment.put("id", paymentId);
    payment.put("status", "succeeded");
    payment.put("net_amount", amount.subtract(fee));
    payment.put("succeeded_at", now.getEpochSecond());
    payment.put("created", now.getEpochSecond());

    String id = EventId.of(txid, seq).value();
    ObjectNode event = Json.mapper().createObjectNode();
    event.put("id", id);
    event.put("object", "event");
    event.put("type", "payment.succeeded");
    event.put("environment", "test");
    event.put("created", now.getEpochSecond());
    event.putObject("data").set("object", payment);
    byte[] body = Json.toBytes(event);

    outbox.appendWith(
        connection,
        new OutboxWriter.Write(
            INSERT,
            (insert, first) -> {
              insert.setString(first, Long.toString(txid));
              insert.setLong(first + 1, seq);
              insert.setString(first + 2, "payment.succeeded");
              insert.setString(first + 3, merchantId);
              insert.setString(first + 4, "test");
              insert.setString(first + 5, "payment");
              insert.setString(first + 6, paymentId);
              insert.setTimestamp(first + 7, Timestamp.from(now));
              insert.setBytes(first + 8, body);
              return first + 9;
            }),
        new OutboxMessage(
            id,
            Topics.EVENTS,
            paymentId,
            "payment.succeeded",
            body,
            Map.of(Envelope.ATTRIBUTE_MERCHANT_ID, merchantId)));
    return id;
  }
}
