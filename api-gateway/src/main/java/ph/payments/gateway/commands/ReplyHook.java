package ph.payments.gateway.commands;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * Work that belongs in the transaction recording command replies in the command log, such as
 * completing the idempotency records that admitted the commands. It runs on the durable recorder
 * (one consumer group for all gateway instances), so it happens even when no request waits any
 * more.
 */
public interface ReplyHook {

  /** A reply as the command log stores it. */
  record Reply(String commandId, int status, String body) {

    /** The SQL of a set of replies: rows {@code (command_id, status, body)} of three arrays. */
    public static final String ROWS =
        "unnest(?::text[], ?::int4[], ?::text[]) AS r(command_id, status, body)";

    /**
     * Sets the three array parameters of {@link #ROWS} from {@code first}.
     *
     * @return the index after them
     */
    public static int setRows(PreparedStatement statement, int first, List<Reply> replies)
        throws SQLException {
      String[] commandIds = new String[replies.size()];
      Integer[] statuses = new Integer[replies.size()];
      String[] bodies = new String[replies.size()];
      for (int i = 0; i < commandIds.length; i++) {
        commandIds[i] = replies.get(i).commandId();
        statuses[i] = replies.get(i).status();
        bodies[i] = replies.get(i).body();
      }
      Connection connection = statement.getConnection();
      statement.setArray(first, connection.createArrayOf("text", commandIds));
      statement.setArray(first + 1, connection.createArrayOf("int4", statuses));
      statement.setArray(first + 2, connection.createArrayOf("text", bodies));
      return first + 3;
    }
  }

  /**
   * Called for the replies of one poll of the reply topic, at most one per command; must be
   * idempotent (a reply may come again, in a later poll or under a new message id), and should take
   * them in one statement: it runs once per poll, not once per reply.
   *
   * @param replies each body exactly as stored in the command log
   * @param at when they were recorded
   */
  void repliesRecorded(Connection connection, List<Reply> replies, Instant at) throws SQLException;
}
