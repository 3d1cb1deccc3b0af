package ph.payments.platform.inbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import ph.payments.platform.tx.SqlWork;
import ph.payments.platform.tx.Transactions;

/**
 * Applies a message at most once per consumer: the message id goes into the inbox in the same
 * transaction as the handler's effect. A redelivered message finds its id there and changes
 * nothing; a handler that fails rolls back the inbox row with everything else, so the message is
 * applied when it is redelivered. Two concurrent deliveries of one message serialise on the inbox
 * primary key: the second waits for the first to commit, then sees the conflict.
 */
public final class IdempotentConsumer {

  private static final String RECORD =
      "INSERT INTO inbox (consumer, message_id, processed_at) VALUES (?, ?, ?)"
          + " ON CONFLICT (consumer, message_id) DO NOTHING";

  /**
   * Many ids in one statement, in id order: two transactions recording overlapping ids wait for
   * each other's rows in the same order, so they cannot deadlock.
   */
  private static final String RECORD_ALL =
      "INSERT INTO inbox (consumer, message_id, processed_at)"
          + " SELECT ?::text, m, ?::timestamptz FROM unnest(?::text[]) AS m ORDER BY m"
          + " ON CONFLICT (consumer, message_id) DO NOTHING RETURNING message_id";

  private final Clock clock;

  public IdempotentConsumer(Clock clock) {
    this.clock = clock;
  }

  /**
   * Runs {@code effect} unless {@code consumer} already applied {@code messageId}.
   *
   * @return true when the effect ran, false for a duplicate
   * @throws IllegalStateException when {@code connection} is not in a transaction
   */
  public boolean apply(Connection connection, String consumer, String messageId, SqlWork<?> effect)
      throws SQLException {
    Transactions.requireTransaction(connection);
    try (PreparedStatement insert = connection.prepareStatement(RECORD)) {
      insert.setString(1, consumer);
      insert.setString(2, messageId);
      insert.setTimestamp(3, Timestamp.from(clock.instant()));
      if (insert.executeUpdate() == 0) {
        return false;
      }
    }
    effect.run(connection);
    return true;
  }

  /**
   * Records the ids of a whole poll at once, for a consumer that applies its effects set-based: the
   * caller applies the effect of exactly the ids returned, in the same transaction. An id given
   * twice is returned once; an id {@code consumer} applied before is not returned. As with {@link
   * #apply}, a concurrent transaction recording the same id makes this one wait for its outcome.
   *
   * @return the ids not applied before: the ones whose effect the caller must apply now
   * @throws IllegalStateException when {@code connection} is not in a transaction
   */
  public Set<String> recordAll(
      Connection connection, String consumer, Collection<String> messageIds) throws SQLException {
    return recordAll(connection, consumer, messageIds, List.of());
  }

  /**
   * {@link #recordAll(Connection, String, Collection)}, with each of {@code readAheads}' SELECTs
   * sent after the inbox's statement in the same message to the database (one round trip for all of
   * them), their rows handed to each in order before this returns.
   */
  public Set<String> recordAll(
      Connection connection,
      String consumer,
      Collection<String> messageIds,
      List<ReadAhead> readAheads)
      throws SQLException {
    Transactions.requireTransaction(connection);
    Set<String> fresh = new HashSet<>();
    if (messageIds.isEmpty()) {
      return fresh;
    }
    StringBuilder sql = new StringBuilder(RECORD_ALL);
    for (ReadAhead readAhead : readAheads) {
      sql.append(";\n").append(readAhead.sql());
    }
    try (PreparedStatement insert = connection.prepareStatement(sql.toString())) {
      insert.setString(1, consumer);
      insert.setTimestamp(2, Timestamp.from(clock.instant()));
      insert.setArray(
          3, connection.createArrayOf("text", new TreeSet<>(messageIds).toArray(String[]::new)));
      int next = 4;
      for (ReadAhead readAhead : readAheads) {
        next += readAhead.bind(insert, next);
      }
      insert.execute();
      try (ResultSet rs = insert.getResultSet()) {
        while (rs.next()) {
          fresh.add(rs.getString(1));
        }
      }
      for (ReadAhead readAhead : readAheads) {
        if (!insert.getMoreResults()) {
          throw new SQLException("no rows came back for the read ahead: " + readAhead.sql());
        }
        try (ResultSet rows = insert.getResultSet()) {
          readAhead.read(rows);
        }
      }
    }
    return fresh;
  }
}
