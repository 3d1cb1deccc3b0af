package ph.payments.gateway.commands;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * Work that belongs with the recording of command replies in the command log, such as completing
 * the idempotency records that admitted the commands. It runs on the durable recorder (one consumer
 * group for all gateway instances), so it happens even when no request waits any more, and in the
 * recorder's own statement: a poll's replies, in the log and in every hook's table, commit together
 * in one round trip to the database.
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
   * The relation a hook's statement reads a poll's replies from: {@code replies.command_id}, {@code
   * replies.status}, {@code replies.body} (as the command log stores it), at most one row per
   * command.
   */
  String REPLIES = "replies";

  /** The one-row relation holding when the replies are recorded: {@code recorded.at}. */
  String RECORDED = "recorded";

  /**
   * A data-modifying statement ({@code UPDATE}, {@code INSERT} or {@code DELETE}, no parameters)
   * that runs inside the statement recording one poll of the reply topic, reading the poll's
   * replies from {@value #REPLIES} and the time from {@value #RECORDED}. It sees the tables as they
   * were before that statement, so not the replies it records in the command log. It must be
   * idempotent (a reply may come again, in a later poll or under a new message id), and set-based:
   * it runs once per poll, not once per reply.
   */
  String statement();
}
