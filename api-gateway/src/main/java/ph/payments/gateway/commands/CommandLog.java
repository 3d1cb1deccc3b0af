package ph.payments.gateway.commands;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.json.Json;
import ph.payments.platform.outbox.OutboxWriter;
import ph.payments.platform.tx.Statements;

/** The gateway's command table: what was accepted and, once known, what the owner answered. */
final class CommandLog {

  static void insert(Connection connection, Command command, String topic) throws SQLException {
    insertion(command, topic).write().execute(connection);
  }

  /** The insert of {@code command}'s row, to run alone or in one statement with its outbox row. */
  static OutboxWriter.Insert insertion(Command command, String topic) {
    return new OutboxWriter.Insert(
        "commands",
        "command_id, command_type, topic, merchant_id, environment, resource_id, request,"
            + " created_at",
        "?, ?, ?, ?, ?, ?, ?::json, ?",
        (insert, first) -> {
          insert.setString(first, command.commandId());
          insert.setString(first + 1, command.type());
          insert.setString(first + 2, topic);
          insert.setString(first + 3, command.merchantId());
          insert.setString(first + 4, command.environment());
          insert.setString(first + 5, command.resourceId());
          insert.setString(first + 6, Json.toText(command.body()));
          insert.setTimestamp(first + 7, Timestamp.from(command.issuedAt()));
          return first + 8;
        });
  }

  /** Records the first reply for a command; a repeated reply changes nothing. */
  static void recordReply(
      Connection connection, String commandId, int status, String body, Instant at)
      throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE commands SET reply_status = ?, reply_body = ?::json, replied_at = ?"
                + " WHERE command_id = ? AND replied_at IS NULL")) {
      update.setInt(1, status);
      update.setString(2, body);
      update.setTimestamp(3, Timestamp.from(at));
      update.setString(4, commandId);
      update.executeUpdate();
    }
  }

  /**
   * The statement that records one poll's replies: in the command log the first reply of each
   * command (a command that has its reply keeps it), and each hook's statement over the same
   * replies. One statement, so it may run auto-committed and still commits all of it or nothing;
   * its parameters are the replies' three arrays ({@link ReplyHook.Reply#ROWS}), then the time.
   */
  static String replyRecording(List<ReplyHook> hooks) {
    StringBuilder sql =
        new StringBuilder("WITH ")
            .append(ReplyHook.REPLIES)
            .append(" AS MATERIALIZED (SELECT * FROM ")
            .append(ReplyHook.Reply.ROWS)
            .append("), ")
            .append(ReplyHook.RECORDED)
            .append(" AS (SELECT ?::timestamptz AS at), logged AS (UPDATE commands c SET")
            .append(" reply_status = replies.status, reply_body = replies.body::json,")
            .append(" replied_at = recorded.at FROM replies, recorded")
            .append(" WHERE c.command_id = replies.command_id AND c.replied_at IS NULL)");
    for (int i = 0; i < hooks.size(); i++) {
      sql.append(", hook_")
          .append(i + 1)
          .append(" AS (")
          .append(hooks.get(i).statement())
          .append(')');
    }
    // Every part of a WITH runs whether or not the query reads it.
    return sql.append(" SELECT count(*) FROM ").append(ReplyHook.REPLIES).toString();
  }

  /**
   * Records the first reply for each of many commands with {@code recording} ({@link
   * #replyRecording}), in one statement.
   *
   * @param replies at most one per command
   */
  static void recordReplies(
      Connection connection, String recording, List<ReplyHook.Reply> replies, Instant at)
      throws SQLException {
    // Planned at each execution: a plan kept from when the tables were small joins by reading all
    // of them (Statements).
    try (PreparedStatement record = Statements.plannedEachTime(connection, recording)) {
      int next = ReplyHook.Reply.setRows(record, 1, replies);
      record.setTimestamp(next, Timestamp.from(at));
      record.execute();
    }
  }

  static Optional<CommandReply> findReply(Connection connection, String commandId)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT reply_status, reply_body FROM commands"
                + " WHERE command_id = ? AND replied_at IS NOT NULL")) {
      select.setString(1, commandId);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new CommandReply(
                commandId, rs.getInt("reply_status"), Json.tree(rs.getString("reply_body"))));
      }
    }
  }

  /**
   * Deletes up to {@code limit} commands answered before {@code cutoff}. A command without a reply
   * is never deleted (its reply may still come and be waited for), nor one an idempotency record
   * still refers to (that record is purged first, by its own job).
   *
   * @return how many were deleted
   */
  static int purgeAnswered(Connection connection, Instant cutoff, int limit) throws SQLException {
    try (PreparedStatement delete =
        connection.prepareStatement(
            // By creation time, which a reply does not change (commands_created_idx, migration
            // V12): a command answered before the cutoff was created before it.
            "DELETE FROM commands WHERE command_id IN (SELECT c.command_id FROM commands c"
                + " WHERE c.created_at < ? AND c.replied_at < ? AND NOT EXISTS"
                + " (SELECT 1 FROM idempotency_keys k WHERE k.command_id = c.command_id)"
                + " LIMIT ?)")) {
      delete.setTimestamp(1, Timestamp.from(cutoff));
      delete.setTimestamp(2, Timestamp.from(cutoff));
      delete.setInt(3, limit);
      return delete.executeUpdate();
    }
  }

  static Optional<Command> find(Connection connection, String commandId) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT command_type, merchant_id, environment, resource_id, request, created_at"
                + " FROM commands WHERE command_id = ?")) {
      select.setString(1, commandId);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new Command(
                commandId,
                rs.getString("command_type"),
                rs.getString("merchant_id"),
                rs.getString("environment"),
                rs.getString("resource_id"),
                Json.tree(rs.getString("request")),
                rs.getTimestamp("created_at").toInstant()));
      }
    }
  }

  /** The creating command of {@code resourceId}, only when it belongs to this merchant. */
  static Optional<CommandBus.Creation> findCreation(
      Connection connection,
      String commandType,
      String resourceId,
      String merchantId,
      String environment)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT command_id, reply_status, reply_body, replied_at FROM commands"
                + " WHERE resource_id = ? AND command_type = ? AND merchant_id = ?"
                + " AND environment = ?")) {
      select.setString(1, resourceId);
      select.setString(2, commandType);
      select.setString(3, merchantId);
      select.setString(4, environment);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        String commandId = rs.getString("command_id");
        Optional<CommandReply> reply =
            rs.getTimestamp("replied_at") == null
                ? Optional.empty()
                : Optional.of(
                    new CommandReply(
                        commandId,
                        rs.getInt("reply_status"),
                        Json.tree(rs.getString("reply_body"))));
        return Optional.of(new CommandBus.Creation(commandId, reply));
      }
    }
  }

  private CommandLog() {}
}
