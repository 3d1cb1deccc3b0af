package ph.payments.gateway.idempotency;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import ph.payments.gateway.commands.ReplyHook;
import ph.payments.platform.outbox.OutboxWriter;

/**
 * The {@code idempotency_keys} table. Every method runs on the caller's connection, inside its
 * transaction unless it says it may run auto-committed; {@link #claimIfNew} is a statement to run
 * with the command's own.
 *
 * <p>A record is in one of two states: {@code in_progress} (its command has no reply yet; {@code
 * locked_until} says until when a request is waiting for it) and {@code completed} (the response is
 * stored). It is ignored once older than {@link #WINDOW} and purged later.
 */
final class IdempotencyRecords {

  /** SPEC part 8: a duplicate within 24 hours returns the original response. */
  static final Duration WINDOW = Duration.ofHours(24);

  private static final String INSERT =
      "INSERT INTO idempotency_keys (merchant_id, environment, idempotency_key, route,"
          + " fingerprint, command_id, status, locked_until, created_at)"
          + " VALUES (?, ?, ?, ?, ?, ?, 'in_progress', ?, ?)"
          + " ON CONFLICT (merchant_id, environment, idempotency_key) DO NOTHING";

  /** {@link #INSERT} answering a row when it inserted one: the guard of a command's statement. */
  private static final String CLAIM_NEW = INSERT + " RETURNING 1";

  private static final String LOCK =
      "SELECT fingerprint, command_id, status, locked_until, response_status, response_body,"
          + " created_at FROM idempotency_keys"
          + " WHERE merchant_id = ? AND environment = ? AND idempotency_key = ? FOR UPDATE";
  private static final String REPLACE =
      "UPDATE idempotency_keys SET route = ?, fingerprint = ?, command_id = ?,"
          + " status = 'in_progress', locked_until = ?, response_status = NULL,"
          + " response_body = NULL, created_at = ?, completed_at = NULL"
          + " WHERE merchant_id = ? AND environment = ? AND idempotency_key = ?";
  private static final String RELOCK =
      "UPDATE idempotency_keys SET locked_until = ?"
          + " WHERE merchant_id = ? AND environment = ? AND idempotency_key = ?";
  private static final String COMPLETE =
      "UPDATE idempotency_keys SET status = 'completed', response_status = ?,"
          + " response_body = ?::json, completed_at = ?, locked_until = NULL"
          + " WHERE command_id = ? AND status = 'in_progress'";

  /** Completes the records of a poll's replies, inside the reply recorder's statement. */
  static final String COMPLETE_ON_REPLY =
      "UPDATE idempotency_keys k SET status = 'completed', response_status = replies.status,"
          + " response_body = replies.body::json, completed_at = recorded.at, locked_until = NULL"
          + " FROM "
          + ReplyHook.REPLIES
          + ", "
          + ReplyHook.RECORDED
          + " WHERE k.command_id = replies.command_id AND k.status = 'in_progress'";

  private static final String FIND_RESPONSE =
      "SELECT response_status, response_body FROM idempotency_keys"
          + " WHERE command_id = ? AND status = 'completed'";

  /**
   * {@link #COMPLETE} and the stored response in one statement: the row this statement completed,
   * or the one completed before it began.
   */
  private static final String COMPLETE_AND_FIND =
      "WITH done AS ("
          + COMPLETE
          + " RETURNING response_status, response_body)"
          + " SELECT response_status, response_body FROM done"
          + " UNION ALL SELECT response_status, response_body FROM idempotency_keys"
          + " WHERE command_id = ? AND status = 'completed'";

  private static final String PURGE =
      "DELETE FROM idempotency_keys WHERE ctid IN"
          + " (SELECT ctid FROM idempotency_keys WHERE created_at < ? LIMIT ?)";

  /**
   * Who may use a key: a merchant in one environment. Keys of different merchants, or of one
   * merchant's test and live keys, never meet.
   */
  record Owner(String merchantId, String environment, IdempotencyKey key) {}

  /**
   * The claim of a key nobody used: inserts the record {@link #claim} would insert and returns a
   * row only when it did, so it can guard the command's own statement ({@link
   * ph.payments.gateway.commands.CommandBus#acceptGuarded}). It inserts nothing when a record of
   * the key exists, in whatever state and of whatever age; {@link #claim} then says what it means.
   * Against a concurrent claim of the same key it behaves as {@link #claim}'s insert: it waits for
   * the other transaction and inserts only if that one rolled back.
   */
  static OutboxWriter.Write claimIfNew(
      Owner owner,
      String route,
      String fingerprint,
      String commandId,
      Instant now,
      Instant lockedUntil) {
    return insertion(CLAIM_NEW, owner, route, fingerprint, commandId, now, lockedUntil);
  }

  /**
   * Claims {@code owner}'s key for a request with {@code fingerprint} whose command would be {@code
   * commandId}. Concurrent claims of one key serialise on its primary key: exactly one is {@link
   * Claim.Admitted}, and the others see its record once it commits. This relies on READ COMMITTED
   * (PostgreSQL's default): the insert that found a conflict waits for the other transaction, and
   * the locking read that follows sees its committed row.
   *
   * @param lockedUntil until when the claiming request will wait for its reply
   */
  static Claim claim(
      Connection connection,
      Owner owner,
      String route,
      String fingerprint,
      String commandId,
      Instant now,
      Instant lockedUntil)
      throws SQLException {
    // A record purged between the insert and the lock leaves nothing to lock; insert again.
    for (int attempt = 0; attempt < 3; attempt++) {
      if (insert(connection, owner, route, fingerprint, commandId, now, lockedUntil)) {
        return new Claim.Admitted();
      }
      try (PreparedStatement select = connection.prepareStatement(LOCK)) {
        bindOwner(select, 1, owner);
        try (ResultSet row = select.executeQuery()) {
          if (!row.next()) {
            continue;
          }
          Instant createdAt = row.getTimestamp("created_at").toInstant();
          if (!createdAt.isAfter(now.minus(WINDOW))) {
            // Outside the window the old record does not count: the key starts afresh.
            replace(connection, owner, route, fingerprint, commandId, now, lockedUntil);
            return new Claim.Admitted();
          }
          if (!row.getString("fingerprint").equals(fingerprint)) {
            return new Claim.Mismatch();
          }
          if ("completed".equals(row.getString("status"))) {
            return new Claim.Completed(
                row.getString("command_id"),
                row.getInt("response_status"),
                row.getString("response_body"));
          }
          Timestamp locked = row.getTimestamp("locked_until");
          if (locked != null && locked.toInstant().isAfter(now)) {
            return new Claim.Busy(
                row.getString("command_id"), Duration.between(now, locked.toInstant()));
          }
          String existingCommand = row.getString("command_id");
          relock(connection, owner, lockedUntil);
          return new Claim.TakenOver(existingCommand);
        }
      }
    }
    throw new IllegalStateException("idempotency record keeps vanishing for " + owner);
  }

  /**
   * Stores the response to {@code commandId} on the record that admitted it, unless one is stored
   * already (the first stored response is the one every replay returns).
   */
  static void complete(Connection connection, String commandId, int status, String body, Instant at)
      throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(COMPLETE)) {
      bindCompletion(update, commandId, status, body, at);
      update.executeUpdate();
    }
  }

  /**
   * {@link #complete} and then the stored response to {@code commandId}, in one statement (it may
   * run auto-committed): the response this call stored, or the one stored before. Empty when the
   * record was completed by a transaction that committed while this statement ran (it sees the
   * database as it was when it began), or when there is no record.
   */
  static Optional<Claim.Completed> completeAndFind(
      Connection connection, String commandId, int status, String body, Instant at)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(COMPLETE_AND_FIND)) {
      int next = bindCompletion(select, commandId, status, body, at);
      select.setString(next, commandId);
      return completed(commandId, select);
    }
  }

  /** Sets the four parameters of {@link #COMPLETE}; returns the index after them. */
  private static int bindCompletion(
      PreparedStatement statement, String commandId, int status, String body, Instant at)
      throws SQLException {
    statement.setInt(1, status);
    statement.setString(2, body);
    statement.setTimestamp(3, Timestamp.from(at));
    statement.setString(4, commandId);
    return 5;
  }

  /** The stored response to {@code commandId}, if its record is completed. */
  static Optional<Claim.Completed> findResponse(Connection connection, String commandId)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(FIND_RESPONSE)) {
      select.setString(1, commandId);
      return completed(commandId, select);
    }
  }

  private static Optional<Claim.Completed> completed(String commandId, PreparedStatement select)
      throws SQLException {
    try (ResultSet row = select.executeQuery()) {
      if (!row.next()) {
        return Optional.empty();
      }
      return Optional.of(
          new Claim.Completed(
              commandId, row.getInt("response_status"), row.getString("response_body")));
    }
  }

  /**
   * Deletes up to {@code limit} records created before {@code cutoff}.
   *
   * @return how many were deleted
   */
  static int purge(Connection connection, Instant cutoff, int limit) throws SQLException {
    try (PreparedStatement delete = connection.prepareStatement(PURGE)) {
      delete.setTimestamp(1, Timestamp.from(cutoff));
      delete.setInt(2, limit);
      return delete.executeUpdate();
    }
  }

  private static boolean insert(
      Connection connection,
      Owner owner,
      String route,
      String fingerprint,
      String commandId,
      Instant now,
      Instant lockedUntil)
      throws SQLException {
    return insertion(INSERT, owner, route, fingerprint, commandId, now, lockedUntil)
            .execute(connection)
        == 1;
  }

  /** {@code sql} ({@link #INSERT} or {@link #CLAIM_NEW}) with a new record's values bound. */
  private static OutboxWriter.Write insertion(
      String sql,
      Owner owner,
      String route,
      String fingerprint,
      String commandId,
      Instant now,
      Instant lockedUntil) {
    return new OutboxWriter.Write(
        sql,
        (insert, first) -> {
          bindOwner(insert, first, owner);
          insert.setString(first + 3, route);
          insert.setString(first + 4, fingerprint);
          insert.setString(first + 5, commandId);
          insert.setTimestamp(first + 6, Timestamp.from(lockedUntil));
          insert.setTimestamp(first + 7, Timestamp.from(now));
          return first + 8;
        });
  }

  private static void replace(
      Connection connection,
      Owner owner,
      String route,
      String fingerprint,
      String commandId,
      Instant now,
      Instant lockedUntil)
      throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(REPLACE)) {
      update.setString(1, route);
      update.setString(2, fingerprint);
      update.setString(3, commandId);
      update.setTimestamp(4, Timestamp.from(lockedUntil));
      update.setTimestamp(5, Timestamp.from(now));
      bindOwner(update, 6, owner);
      update.executeUpdate();
    }
  }

  private static void relock(Connection connection, Owner owner, Instant lockedUntil)
      throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(RELOCK)) {
      update.setTimestamp(1, Timestamp.from(lockedUntil));
      bindOwner(update, 2, owner);
      update.executeUpdate();
    }
  }

  private static void bindOwner(PreparedStatement statement, int first, Owner owner)
      throws SQLException {
    statement.setString(first, owner.merchantId());
    statement.setString(first + 1, owner.environment());
    statement.setString(first + 2, owner.key().value());
  }

  private IdempotencyRecords() {}
}
