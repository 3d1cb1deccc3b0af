package ph.payments.platform.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.Map;
import ph.payments.platform.json.Json;
import ph.payments.platform.tracing.MessageContext;
import ph.payments.platform.tx.Transactions;

/**
 * Appends messages to the outbox inside the caller's transaction. It never opens a transaction of
 * its own: a message must commit or roll back together with the state change it announces.
 *
 * <p>Each append also queues a PostgreSQL notification on the relay's channel, unless the relay of
 * this process is polling already ({@link OutboxActivity}). PostgreSQL delivers notifications only
 * when (and if) the transaction commits, so the relay wakes right after the commit, on whichever
 * instance leads, and never sees a message of a rolled-back transaction.
 *
 * <p>The trace context and request id of the writing thread go with the row (attributes {@code
 * traceparent} and {@code request-id}), so the trace survives the outbox: the relay puts them on
 * the Kafka record and the consumer carries on from them.
 */
public final class OutboxWriter {

  private static final String INSERT =
      "INSERT INTO outbox (message_id, topic, message_key, message_type, payload, created_at,"
          + " attributes) VALUES (?, ?, ?, ?, ?, ?, ?::json)";

  private static final String EMIT = "SELECT pg_logical_emit_message(true, ?, ?)";

  private final Clock clock;
  private final String channel;
  private final OutboxActivity activity;
  private final boolean logical;

  /**
   * A writer that always notifies.
   *
   * @param channel the notification channel the relay listens on ({@link OutboxRelay.Settings})
   */
  public OutboxWriter(Clock clock, String channel) {
    this(clock, channel, new OutboxActivity());
  }

  /**
   * @param activity shared with the relay of this process, which tells when notifying is useless
   */
  public OutboxWriter(Clock clock, String channel, OutboxActivity activity) {
    this(clock, channel, activity, false);
  }

  private OutboxWriter(Clock clock, String channel, OutboxActivity activity, boolean logical) {
    this.clock = clock;
    this.channel = channel;
    this.activity = activity;
    this.logical = logical;
  }

  /**
   * A writer that emits messages into the WAL for {@link LogicalOutboxRelay} (needs {@code
   * wal_level=logical} and the service's slot, which the relay creates at start-up).
   */
  public static OutboxWriter logical(Clock clock) {
    return new OutboxWriter(clock, "unused", new OutboxActivity(), true);
  }

  /** True for a writer that emits into the WAL instead of inserting rows. */
  public boolean isLogical() {
    return logical;
  }

  /**
   * @throws IllegalStateException when {@code connection} is not in a transaction
   */
  public void append(Connection connection, OutboxMessage message) throws SQLException {
    Transactions.requireTransaction(connection);
    if (logical) {
      try (PreparedStatement emit = connection.prepareStatement(EMIT)) {
        emit.setString(1, LogicalMessages.PREFIX);
        emit.setBytes(
            2,
            LogicalMessages.encode(
                message, clock.instant(), MessageContext.withCurrent(message.attributes())));
        emit.execute();
      }
      return;
    }
    try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
      insert.setString(1, message.messageId());
      insert.setString(2, message.topic());
      insert.setString(3, message.key());
      insert.setString(4, message.type());
      insert.setBytes(5, message.payload());
      insert.setTimestamp(6, Timestamp.from(clock.instant()));
      Map<String, String> attributes = MessageContext.withCurrent(message.attributes());
      insert.setString(7, attributes.isEmpty() ? null : Json.toText(attributes));
      insert.executeUpdate();
    }
    if (activity.relayPolling()) {
      return;
    }
    // Identical notifications in one transaction are folded into one by PostgreSQL.
    try (PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, '')")) {
      notify.setString(1, channel);
      notify.execute();
    }
  }
}
