package ph.payments.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.Topics;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
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

  /** A stand-in id of the event id's length, which the insert overwrites with the event's own. */
  private static final String PLACEHOLDER = IdType.eventId(0, 0);

  /** Where the id starts in the body: the event's first field. */
  private static final int ID_OFFSET = "{\"id\":\"".length();

  private static final String INSERT =
      "INSERT INTO events (txid, seq, type, merchant_id, environment, resource_type,"
          + " resource_id, created_at, body)"
          + " SELECT p.txid, p.seq, ?, ?, ?, ?, ?, ?, overlay(?::bytea PLACING"
          + " convert_to(event_id(p.txid::text::bigint, p.seq), 'UTF8') FROM "
          + (ID_OFFSET + 1)
          + " FOR "
          + PLACEHOLDER.length()
          + ")"
          + " FROM (SELECT pg_current_xact_id() AS txid, nextval('events_seq') AS seq) p"
          + " RETURNING event_id(txid::text::bigint, seq) AS message_id, body AS payload";

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

    ObjectNode event = Json.mapper().createObjectNode();
    event.put("id", PLACEHOLDER);
    event.put("object", "event");
    event.put("type", "payment.succeeded");
    event.put("environment", "test");
    event.put("created", now.getEpochSecond());
    event.putObject("data").set("object", payment);
    byte[] body = Json.toBytes(event);

    return outbox
        .appendReturned(
            connection,
            new OutboxWriter.Write(
                INSERT,
                (insert, first) -> {
                  insert.setString(first, "payment.succeeded");
                  insert.setString(first + 1, merchantId);
                  insert.setString(first + 2, "test");
                  insert.setString(first + 3, "payment");
                  insert.setString(first + 4, paymentId);
                  insert.setTimestamp(first + 5, Timestamp.from(now));
                  insert.setBytes(first + 6, body);
                  return first + 7;
                }),
            new OutboxWriter.Header(
                Topics.EVENTS,
                paymentId,
                "payment.succeeded",
                Map.of(Envelope.ATTRIBUTE_MERCHANT_ID, merchantId)))
        .messageId();
  }
}
