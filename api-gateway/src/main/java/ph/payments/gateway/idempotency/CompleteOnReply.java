package ph.payments.gateway.idempotency;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import ph.payments.gateway.commands.ReplyHook;

/**
 * Completes the idempotency record of a command in the transaction that records the command's
 * reply, so the outcome is kept even when no request waits for it any more (the request timed out,
 * or its gateway instance died): a retry with the same key then gets the result.
 */
@Singleton
class CompleteOnReply implements ReplyHook {

  @Override
  public void replyRecorded(
      Connection connection, String commandId, int status, String body, Instant at)
      throws SQLException {
    IdempotencyRecords.complete(connection, commandId, status, body, at);
  }
}
