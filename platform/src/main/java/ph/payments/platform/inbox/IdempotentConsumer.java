package ph.payments.platform.inbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
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
}
