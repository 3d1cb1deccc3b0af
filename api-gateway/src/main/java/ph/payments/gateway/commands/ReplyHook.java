package ph.payments.gateway.commands;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Work that belongs in the transaction recording a command's reply in the command log, such as
 * completing the idempotency record that admitted the command. It runs on the durable recorder (one
 * consumer group for all gateway instances), so it happens even when no request waits any more.
 */
public interface ReplyHook {

  /**
   * Called for every reply delivered to the recorder for the first time; must be idempotent (a
   * reply may come again under a new message id).
   *
   * @param body the reply body exactly as stored in the command log
   */
  void replyRecorded(Connection connection, String commandId, int status, String body, Instant at)
      throws SQLException;
}
