package ph.payments.payments.payouts.persistence;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;
import ph.payments.payments.payouts.application.LedgerHolds;

/**
 * {@code payout_hold_requests} (V6): what payments-service asked the ledger to hold for each
 * payout, and the answer, over the caller's transaction.
 */
@Singleton
public class JdbcHoldRequests {

  /** What is known of one payout's hold. */
  public record HoldRequestRow(
      String payoutId,
      String outcome,
      String refusalCode,
      Instant lastAskedAt,
      Instant releasedAt) {

    public boolean released() {
      return releasedAt != null;
    }
  }

  /**
   * Records that the hold is about to be asked (now), unless it was released or the payout exists
   * already.
   *
   * @return false when it must not be asked: the payout exists, or its hold was released
   */
  public boolean asking(
      Connection connection, LedgerHolds.HoldRequest request, String commandId, Instant now)
      throws SQLException {
    if (payoutExists(connection, request.payoutId())) {
      return false;
    }
    try (PreparedStatement upsert =
        connection.prepareStatement(
            "INSERT INTO payout_hold_requests (payout_id, command_id, merchant_id, environment,"
                + " amount, currency, outcome, first_asked_at, last_asked_at)"
                + " VALUES (?, ?, ?, ?, ?, ?, 'asking', ?, ?)"
                + " ON CONFLICT (payout_id) DO UPDATE SET last_asked_at = EXCLUDED.last_asked_at,"
                + "   command_id = EXCLUDED.command_id"
                + " WHERE payout_hold_requests.released_at IS NULL")) {
      upsert.setString(1, request.payoutId());
      upsert.setString(2, commandId);
      upsert.setString(3, request.merchantId());
      upsert.setString(4, request.environment());
      upsert.setBigDecimal(5, request.amount().amount());
      upsert.setString(6, request.amount().currency());
      upsert.setTimestamp(7, Timestamp.from(now));
      upsert.setTimestamp(8, Timestamp.from(now));
      return upsert.executeUpdate() == 1;
    }
  }

  /** Records the ledger's answer (unless the hold was released meanwhile: that stays). */
  public void answered(Connection connection, String payoutId, String outcome, String refusalCode)
      throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE payout_hold_requests SET outcome = ?, refusal_code = ?"
                + " WHERE payout_id = ? AND released_at IS NULL")) {
      update.setString(1, outcome);
      update.setString(2, refusalCode);
      update.setString(3, payoutId);
      update.executeUpdate();
    }
  }

  /** The payout's row, locked until the end of the transaction. */
  public Optional<HoldRequestRow> lock(Connection connection, String payoutId) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT payout_id, outcome, refusal_code, last_asked_at, released_at"
                + " FROM payout_hold_requests WHERE payout_id = ? FOR UPDATE")) {
      select.setString(1, payoutId);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        Timestamp released = rs.getTimestamp(5);
        return Optional.of(
            new HoldRequestRow(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                rs.getTimestamp(4).toInstant(),
                released == null ? null : released.toInstant()));
      }
    }
  }

  /**
   * A row for a hold the ledger has and this table does not (asked before the table existed), as if
   * last asked when the ledger took it; nothing when the row exists.
   */
  public void adopt(Connection connection, LedgerHolds.OpenHold hold) throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO payout_hold_requests (payout_id, merchant_id, environment, amount,"
                + " currency, outcome, first_asked_at, last_asked_at)"
                + " VALUES (?, ?, ?, ?, ?, 'held', ?, ?) ON CONFLICT (payout_id) DO NOTHING")) {
      insert.setString(1, hold.payoutId());
      insert.setString(2, hold.merchantId());
      insert.setString(3, hold.environment());
      insert.setBigDecimal(4, hold.amount().amount());
      insert.setString(5, hold.amount().currency());
      insert.setTimestamp(6, Timestamp.from(hold.createdAt()));
      insert.setTimestamp(7, Timestamp.from(hold.createdAt()));
      insert.executeUpdate();
    }
  }

  /** Marks the hold released (final); the caller holds the row's lock. */
  public void release(Connection connection, String payoutId, Instant now) throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE payout_hold_requests SET released_at = ?"
                + " WHERE payout_id = ? AND released_at IS NULL")) {
      update.setTimestamp(1, Timestamp.from(now));
      update.setString(2, payoutId);
      update.executeUpdate();
    }
  }

  public boolean payoutExists(Connection connection, String payoutId) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement("SELECT 1 FROM payouts WHERE id = ?")) {
      select.setString(1, payoutId);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next();
      }
    }
  }
}
