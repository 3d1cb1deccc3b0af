package ph.payments.platform.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import ph.payments.platform.json.Json;
import ph.payments.platform.tracing.MessageContext;
import ph.payments.platform.tx.AfterCommit;
import ph.payments.platform.tx.Transactions;

/**
 * Appends messages to the outbox inside the caller's transaction. It never opens a transaction of
 * its own: a message must commit or roll back together with the state change it announces.
 *
 * <p>Each append also queues a PostgreSQL notification on the relay's channel, unless the relay of
 * this process is polling already ({@link OutboxActivity}), in which case it rings that relay once
 * the transaction of our {@code Transactions} has committed ({@code AfterCommit}). PostgreSQL
 * delivers notifications only when (and if) the transaction commits, so the relay wakes right after
 * the commit, on whichever instance leads, and never sees a message of a rolled-back transaction.
 *
 * <p>The trace context and request id of the writing thread go with the row (attributes {@code
 * traceparent} and {@code request-id}), so the trace survives the outbox: the relay puts them on
 * the Kafka record and the consumer carries on from them.
 */
public final class OutboxWriter {

  private static final String COLUMNS =
      "message_id, topic, message_key, message_type, payload, created_at, attributes";
  private static final String VALUES = "?, ?, ?, ?, ?, ?, ?::json";
  private static final String INSERT =
      "INSERT INTO outbox (" + COLUMNS + ") VALUES (" + VALUES + ")";

  /** The message inserted only when the guard {@code g} wrote a row ({@link #appendGuarded}). */
  private static final String INSERT_GUARDED =
      "INSERT INTO outbox (" + COLUMNS + ") SELECT " + VALUES + " FROM g";

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
   * A data-modifying statement (an {@code INSERT}, {@code UPDATE} or {@code DELETE} without {@code
   * RETURNING}) to run in the same SQL statement as an outbox message: {@link #appendWith}. As the
   * guard of {@link #appendGuarded} it has a {@code RETURNING} clause.
   *
   * @param sql the statement, with {@code ?} parameters
   * @param parameters sets them, from the index it is given; returns the index after its last
   */
  public record Write(String sql, Parameters parameters) {

    /** Sets a {@link Write}'s parameters. */
    @FunctionalInterface
    public interface Parameters {
      int set(PreparedStatement statement, int first) throws SQLException;
    }

    /** Runs the write as a statement of its own, in the caller's transaction or auto-commit. */
    public int execute(Connection connection) throws SQLException {
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        parameters.set(statement, 1);
        return statement.executeUpdate();
      }
    }
  }

  /**
   * An insert of one row whose values are parameters: a {@link Write} of its own, or one that a
   * guard decides on ({@link #appendGuarded}).
   *
   * @param columns the column list, without parentheses
   * @param values the value list, without parentheses, with {@code ?} parameters (PostgreSQL infers
   *     their types from the columns in both forms)
   */
  public record Insert(String table, String columns, String values, Write.Parameters parameters) {

    /** {@code INSERT INTO table (columns) VALUES (values)}. */
    public Write write() {
      return new Write(
          "INSERT INTO " + table + " (" + columns + ") VALUES (" + values + ")", parameters);
    }

    /**
     * The rows of {@code inserts}, all into the same table and columns, in one {@code INSERT}:
     * {@code INSERT INTO table (columns) VALUES (…), (…)}, in list order.
     *
     * @param inserts at least one
     * @throws IllegalArgumentException when they differ in table or columns
     */
    public static Write rows(List<Insert> inserts) {
      if (inserts.isEmpty()) {
        throw new IllegalArgumentException("an insert needs a row");
      }
      Insert first = inserts.get(0);
      StringBuilder sql =
          new StringBuilder("INSERT INTO ")
              .append(first.table())
              .append(" (")
              .append(first.columns())
              .append(") VALUES ");
      for (int i = 0; i < inserts.size(); i++) {
        Insert insert = inserts.get(i);
        if (!insert.table().equals(first.table()) || !insert.columns().equals(first.columns())) {
          throw new IllegalArgumentException("rows of one insert go to one table's columns");
        }
        sql.append(i == 0 ? "(" : ", (").append(insert.values()).append(')');
      }
      List<Write.Parameters> parameters = inserts.stream().map(Insert::parameters).toList();
      return new Write(
          sql.toString(),
          (statement, next) -> {
            for (Write.Parameters row : parameters) {
              next = row.set(statement, next);
            }
            return next;
          });
    }

    /** The same row inserted once for each row of {@code relation}: not at all when it is empty. */
    String selectingFrom(String relation) {
      return "INSERT INTO " + table + " (" + columns + ") SELECT " + values + " FROM " + relation;
    }
  }

  /**
   * Runs {@code guard} and, only when it returned a row, inserts {@code insert} and appends {@code
   * message}, all in one SQL statement: one round trip, atomic by itself, so it may run in
   * auto-commit mode ({@link Transactions#autoCommitted}) as well as in the caller's transaction.
   * The idempotency claim of a new key is the guard of its command: {@code INSERT … ON CONFLICT DO
   * NOTHING RETURNING 1} returns a row only when it inserted one, so a key that exists writes
   * nothing at all.
   *
   * @param guard a data-modifying statement with {@code RETURNING} that returns at most one row
   * @return true when the guard returned a row, and the row and the message were written with it
   */
  public boolean appendGuarded(
      Connection connection, Write guard, Insert insert, OutboxMessage message)
      throws SQLException {
    // Every data-modifying WITH runs to completion whether or not it is read: the insert and the
    // message are made conditional by selecting from the guard's output, which is empty when the
    // guard wrote nothing.
    String written = "WITH g AS (" + guard.sql() + "), w AS (" + insert.selectingFrom("g") + ")";
    String sql =
        logical
            ? written + " SELECT pg_logical_emit_message(true, ?, ?) FROM g"
            : written
                + ", m AS ("
                + INSERT_GUARDED
                + ") SELECT CASE WHEN ? THEN pg_notify(?, '') END FROM g";
    boolean polling = false;
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      int next = guard.parameters().set(statement, 1);
      next = insert.parameters().set(statement, next);
      if (logical) {
        setEmitted(statement, next, message);
      } else {
        next = setMessage(statement, next, message);
        // CASE evaluates only the branch it takes: no notification while the relay polls anyway.
        polling = activity.relayPolling();
        statement.setBoolean(next, !polling);
        statement.setString(next + 1, channel);
      }
      try (ResultSet admitted = statement.executeQuery()) {
        boolean guarded = admitted.next();
        if (guarded && polling) {
          ringAfterCommit();
        }
        return guarded;
      }
    }
  }

  /**
   * Runs {@code write} and appends {@code message} in one SQL statement (the write as a
   * data-modifying {@code WITH}): one round trip to the database instead of two or three (the
   * write, the message, the relay's notification). Being one statement, it is atomic by itself, so
   * it may run in auto-commit mode ({@link Transactions#autoCommitted}) as well as in the caller's
   * transaction: the message commits exactly when the write does.
   */
  public void appendWith(Connection connection, Write write, OutboxMessage message)
      throws SQLException {
    appendWith(connection, List.of(write), message);
  }

  /**
   * Runs {@code writes} and appends {@code message} in one SQL statement, each write a
   * data-modifying {@code WITH} of its own: one round trip for all of them. They run on one
   * snapshot, so none sees another's rows, but constraints (foreign keys among them included) are
   * checked once the whole statement has run. A write that fails fails the statement: none of them,
   * and not the message, is written.
   *
   * @param writes at least one
   */
  public void appendWith(Connection connection, List<Write> writes, OutboxMessage message)
      throws SQLException {
    appendAllWith(connection, writes, List.of(message));
  }

  /**
   * Runs {@code writes} and appends {@code messages}, in list order, in one SQL statement: {@link
   * #appendWith(Connection, List, OutboxMessage)} for several messages, which take one multi-row
   * insert (or, for the logical outbox, one statement that emits them in order) and at most one
   * notification. Atomic by itself like that one: all of it commits, or nothing does.
   *
   * @param writes at least one
   * @param messages at least one
   */
  public void appendAllWith(Connection connection, List<Write> writes, List<OutboxMessage> messages)
      throws SQLException {
    appendAll(connection, null, writes, messages);
  }

  /**
   * A query that runs before the writes of {@link #appendAllAfter}, in their round trip and their
   * transaction, and what is made of its rows.
   *
   * @param sql one statement with {@code ?} parameters that returns rows
   * @param parameters sets them, from the index it is given; returns the index after its last
   */
  public record Lead<T>(String sql, Write.Parameters parameters, Reader<T> reader) {

    /** Makes the lead's result of its rows. */
    @FunctionalInterface
    public interface Reader<T> {
      T read(ResultSet rows) throws SQLException;
    }
  }

  /**
   * Runs {@code lead}, then {@code writes} and {@code messages} as {@link #appendAllWith} does: two
   * statements sent in one round trip, which PostgreSQL runs in one transaction, the caller's or,
   * in auto-commit mode, the round trip's own, committed at its end. When {@code lead} fails (a
   * function it calls raises), nothing after it runs and nothing of either commits; when a write
   * fails, what {@code lead} wrote is undone with it.
   *
   * @param writes at least one
   * @param messages at least one
   * @return what {@code lead}'s reader made of its rows
   */
  public <T> T appendAllAfter(
      Connection connection, Lead<T> lead, List<Write> writes, List<OutboxMessage> messages)
      throws SQLException {
    return appendAll(connection, lead, writes, messages);
  }

  private <T> T appendAll(
      Connection connection, Lead<T> lead, List<Write> writes, List<OutboxMessage> messages)
      throws SQLException {
    if (writes.isEmpty()) {
      throw new IllegalArgumentException("appendWith needs a write; append takes a message alone");
    }
    if (messages.isEmpty()) {
      throw new IllegalArgumentException("appendAllWith needs a message; a write alone needs none");
    }
    List<String> with = new ArrayList<>();
    for (int i = 0; i < writes.size(); i++) {
      with.add("w" + i + " AS (" + writes.get(i).sql() + ")");
    }
    String first = lead == null ? "" : lead.sql() + ";\n";
    if (logical) {
      String emitted =
          messages.size() == 1
              ? " SELECT pg_logical_emit_message(true, ?, ?)"
              : " SELECT pg_logical_emit_message(true, v.p, v.m) FROM (VALUES "
                  + String.join(", ", Collections.nCopies(messages.size(), "(?, ?::bytea)"))
                  + ") v(p, m)";
      try (PreparedStatement emit =
          connection.prepareStatement(first + "WITH " + String.join(", ", with) + emitted)) {
        int next = lead == null ? 1 : lead.parameters().set(emit, 1);
        next = setAll(emit, next, writes);
        for (OutboxMessage message : messages) {
          setEmitted(emit, next, message);
          next += 2;
        }
        emit.execute();
        return lead == null ? null : lead.reader().read(emit.getResultSet());
      }
    }
    // The notification's condition is a parameter: PostgreSQL evaluates a constant WHERE before
    // the select list, so pg_notify is not called at all when the relay is polling anyway.
    with.add(
        "m AS (INSERT INTO outbox ("
            + COLUMNS
            + ") VALUES "
            + String.join(", ", Collections.nCopies(messages.size(), "(" + VALUES + ")"))
            + ")");
    try (PreparedStatement insert =
        connection.prepareStatement(
            first + "WITH " + String.join(", ", with) + " SELECT pg_notify(?, '') WHERE ?")) {
      int next = lead == null ? 1 : lead.parameters().set(insert, 1);
      next = setAll(insert, next, writes);
      for (OutboxMessage message : messages) {
        next = setMessage(insert, next, message);
      }
      insert.setString(next, channel);
      boolean polling = activity.relayPolling();
      insert.setBoolean(next + 1, !polling);
      insert.execute();
      T led = lead == null ? null : lead.reader().read(insert.getResultSet());
      if (polling) {
        ringAfterCommit();
      }
      return led;
    }
  }

  /**
   * Sets the parameters of {@code writes}, in order, from {@code next}; returns the index after the
   * last.
   */
  private static int setAll(PreparedStatement statement, int next, List<Write> writes)
      throws SQLException {
    for (Write write : writes) {
      next = write.parameters().set(statement, next);
    }
    return next;
  }

  /**
   * @throws IllegalStateException when {@code connection} is not in a transaction
   */
  public void append(Connection connection, OutboxMessage message) throws SQLException {
    Transactions.requireTransaction(connection);
    if (logical) {
      try (PreparedStatement emit = connection.prepareStatement(EMIT)) {
        setEmitted(emit, 1, message);
        emit.execute();
      }
      return;
    }
    try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
      setMessage(insert, 1, message);
      insert.executeUpdate();
    }
    if (activity.relayPolling()) {
      ringAfterCommit();
      return;
    }
    // Identical notifications in one transaction are folded into one by PostgreSQL.
    try (PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, '')")) {
      notify.setString(1, channel);
      notify.execute();
    }
  }

  /**
   * The relay of this process polls, so no notification was queued: ring it once the transaction
   * commits instead, in case it waits between polls ({@link OutboxActivity#ring}).
   */
  private void ringAfterCommit() {
    AfterCommit.register(activity.doorbell());
  }

  /**
   * Sets the two parameters of {@code pg_logical_emit_message(true, ?, ?)} from {@code first}: the
   * prefix and the encoded message.
   */
  private void setEmitted(PreparedStatement emit, int first, OutboxMessage message)
      throws SQLException {
    emit.setString(first, LogicalMessages.PREFIX);
    emit.setBytes(
        first + 1,
        LogicalMessages.encode(
            message, clock.instant(), MessageContext.withCurrent(message.attributes())));
  }

  /** Sets the seven parameters of {@link #INSERT} from {@code first}; returns the index after. */
  private int setMessage(PreparedStatement insert, int first, OutboxMessage message)
      throws SQLException {
    insert.setString(first, message.messageId());
    insert.setString(first + 1, message.topic());
    insert.setString(first + 2, message.key());
    insert.setString(first + 3, message.type());
    insert.setBytes(first + 4, message.payload());
    insert.setTimestamp(first + 5, Timestamp.from(clock.instant()));
    Map<String, String> attributes = MessageContext.withCurrent(message.attributes());
    insert.setString(first + 6, attributes.isEmpty() ? null : Json.toText(attributes));
    return first + 7;
  }
}
