package ph.payments.gateway.idempotency;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import ph.payments.gateway.commands.ReplyHook;

/**
 * Completes the idempotency records of commands in the transaction that records their replies, so
 * an outcome is kept even when no request waits for it any more (the request timed out, or its
 * gateway instance died): a retry with the same key then gets the result.
 */
@Singleton
class CompleteOnReply implements ReplyHook {

  @Override
  public void repliesRecorded(Connection connection, List<Reply> replies, Instant at)
      throws SQLException {
    IdempotencyRecords.completeAll(connection, replies, at);
  }
}
