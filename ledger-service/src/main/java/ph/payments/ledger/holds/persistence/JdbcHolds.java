package ph.payments.ledger.holds.persistence;

import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import ph.payments.ledger.holds.domain.HoldStatus;
import ph.payments.ledger.holds.domain.PayoutHold;
import ph.payments.platform.money.Money;

/** Payout records ({@code payout_holds}) over the caller's transaction. */
@Singleton
public class JdbcHolds {

  private static final String COLUMNS =
      "payout_id, merchant_id, environment, currency, amount, status, balance_after, created_at,"
          + " updated_at";

  /** The payout's record, locked until the end of the transaction. */
  public Optional<PayoutHold> lock(Connection connection, String payoutId) throws SQLException {
    return select(connection, payoutId, " FOR UPDATE");
  }

  public Optional<PayoutHold> find(Connection connection, String payoutId) throws SQLException {
    return select(connection, payoutId, "");
  }

  private Optional<PayoutHold> select(Connection connection, String payoutId, String suffix)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT " + COLUMNS + " FROM payout_holds WHERE payout_id = ?" + suffix)) {
      select.setString(1, payoutId);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(row(rs));
      }
    }
  }

  /**
   * Holds still {@code held} that were taken before {@code createdBefore}, oldest first: the
   * candidates for an orphaned hold (a payout that was never created after its hold was taken),
   * which payments-service's reconciler checks against its payouts. Pages go on after {@code
   * startingAfter} (a payout id of the previous page), in the same order.
   */
  public List<PayoutHold> heldBefore(
      Connection connection, Instant createdBefore, @Nullable String startingAfter, int limit)
      throws SQLException {
    List<PayoutHold> held = new ArrayList<>();
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT "
                + COLUMNS
                + " FROM payout_holds WHERE status = 'held' AND created_at < ?"
                + " AND (?::text IS NULL OR (created_at, payout_id) >"
                + " (SELECT created_at, payout_id FROM payout_holds WHERE payout_id = ?))"
                + " ORDER BY created_at, payout_id LIMIT ?")) {
      select.setTimestamp(1, Timestamp.from(createdBefore));
      select.setString(2, startingAfter);
      select.setString(3, startingAfter);
      select.setInt(4, limit);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          held.add(row(rs));
        }
      }
    }
    return held;
  }

  private static PayoutHold row(ResultSet rs) throws SQLException {
    return new PayoutHold(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        Money.of(rs.getBigDecimal(5), rs.getString(4)),
        HoldStatus.fromWire(rs.getString(6)),
        rs.getBigDecimal(7),
        rs.getTimestamp(8).toInstant(),
        rs.getTimestamp(9).toInstant());
  }

  /**
   * Records a payout the ledger had no record of.
   *
   * @return false when a record with this payout id exists (possibly committed by a concurrent
   *     transaction just now); nothing was written
   */
  public boolean insert(Connection connection, PayoutHold hold) throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO payout_holds ("
                + COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (payout_id) DO NOTHING")) {
      insert.setString(1, hold.payoutId());
      insert.setString(2, hold.merchantId());
      insert.setString(3, hold.environment());
      insert.setString(4, hold.currency());
      insert.setBigDecimal(5, hold.amount().amount());
      insert.setString(6, hold.status().wire());
      insert.setBigDecimal(7, hold.balanceAfter());
      insert.setTimestamp(8, Timestamp.from(hold.createdAt()));
      insert.setTimestamp(9, Timestamp.from(hold.updatedAt()));
      return insert.executeUpdate() == 1;
    }
  }

  /** Moves a locked record to its next status. */
  public void updateStatus(Connection connection, PayoutHold hold) throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE payout_holds SET status = ?, updated_at = ? WHERE payout_id = ?")) {
      update.setString(1, hold.status().wire());
      update.setTimestamp(2, Timestamp.from(hold.updatedAt()));
      update.setString(3, hold.payoutId());
      if (update.executeUpdate() != 1) {
        throw new IllegalStateException("payout " + hold.payoutId() + " has no record to update");
      }
    }
  }
}
