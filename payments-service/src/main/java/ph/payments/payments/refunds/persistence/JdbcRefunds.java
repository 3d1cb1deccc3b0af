package ph.payments.payments.refunds.persistence;

import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import ph.payments.payments.payments.domain.Failure;
import ph.payments.payments.refunds.domain.Refund;
import ph.payments.payments.refunds.domain.RefundStatus;
import ph.payments.platform.money.Money;

/** Refunds in PostgreSQL. Every method runs on the caller's connection (its transaction). */
@Singleton
public class JdbcRefunds {

  private static final String COLUMNS =
      "id, merchant_id, environment, payment_id, status, amount, currency, reason, provider,"
          + " provider_ref, failure_code, failure_message, succeeded_at, failed_at, created_at,"
          + " updated_at";

  public void insert(Connection connection, Refund r) throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO refunds ("
                + COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      int i = 1;
      insert.setString(i++, r.id());
      insert.setString(i++, r.merchantId());
      insert.setString(i++, r.environment());
      insert.setString(i++, r.paymentId());
      insert.setString(i++, r.status().wire());
      insert.setBigDecimal(i++, r.amount().amount());
      insert.setString(i++, r.currency());
      insert.setString(i++, r.reason());
      insert.setString(i++, r.provider());
      insert.setString(i++, r.providerRef());
      insert.setString(i++, r.failure() == null ? null : r.failure().code());
      insert.setString(i++, r.failure() == null ? null : r.failure().message());
      insert.setTimestamp(i++, timestamp(r.succeededAt()));
      insert.setTimestamp(i++, timestamp(r.failedAt()));
      insert.setTimestamp(i++, timestamp(r.createdAt()));
      insert.setTimestamp(i, timestamp(r.updatedAt()));
      insert.executeUpdate();
    }
  }

  /** Writes the fields a move changes, only if the stored status is still {@code from}. */
  public boolean updateState(Connection connection, Refund r, RefundStatus from)
      throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE refunds SET status = ?, failure_code = ?, failure_message = ?,"
                + " succeeded_at = ?, failed_at = ?, updated_at = ? WHERE id = ? AND status = ?")) {
      update.setString(1, r.status().wire());
      update.setString(2, r.failure() == null ? null : r.failure().code());
      update.setString(3, r.failure() == null ? null : r.failure().message());
      update.setTimestamp(4, timestamp(r.succeededAt()));
      update.setTimestamp(5, timestamp(r.failedAt()));
      update.setTimestamp(6, timestamp(r.updatedAt()));
      update.setString(7, r.id());
      update.setString(8, from.wire());
      return update.executeUpdate() == 1;
    }
  }

  /**
   * What the payment's refunds hold of its amount: the sum of those not failed. Call it with the
   * payment locked ({@code JdbcPayments.lock}); that lock is what keeps concurrent refunds from
   * reserving the same centavo twice.
   */
  public BigDecimal reservedFor(Connection connection, String paymentId) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT COALESCE(SUM(amount), 0) FROM refunds WHERE payment_id = ?"
                + " AND status <> 'failed'")) {
      select.setString(1, paymentId);
      try (ResultSet rs = select.executeQuery()) {
        rs.next();
        return rs.getBigDecimal(1);
      }
    }
  }

  /** The refund, locked for the rest of the transaction; lock its payment first. */
  public Optional<Refund> lock(Connection connection, String id) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM refunds WHERE id = ? FOR UPDATE", id);
  }

  public Optional<Refund> find(Connection connection, String id) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM refunds WHERE id = ?", id);
  }

  public Optional<Refund> findByProviderRef(Connection connection, String provider, String ref)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT " + COLUMNS + " FROM refunds WHERE provider = ? AND provider_ref = ?")) {
      select.setString(1, provider);
      select.setString(2, ref);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  /** A page of a merchant's refunds in one environment, ascending by id. */
  public List<Refund> list(
      Connection connection,
      String merchantId,
      String environment,
      RefundStatus status,
      String paymentId,
      String startingAfter,
      int limit)
      throws SQLException {
    String sql =
        "SELECT "
            + COLUMNS
            + " FROM refunds WHERE merchant_id = ? AND environment = ?"
            + (status == null ? "" : " AND status = ?")
            + (paymentId == null ? "" : " AND payment_id = ?")
            + (startingAfter == null ? "" : " AND id > ?")
            + " ORDER BY id LIMIT ?";
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      int i = 1;
      select.setString(i++, merchantId);
      select.setString(i++, environment);
      if (status != null) {
        select.setString(i++, status.wire());
      }
      if (paymentId != null) {
        select.setString(i++, paymentId);
      }
      if (startingAfter != null) {
        select.setString(i++, startingAfter);
      }
      select.setInt(i, limit);
      List<Refund> refunds = new ArrayList<>();
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          refunds.add(read(rs));
        }
      }
      return refunds;
    }
  }

  private static Optional<Refund> one(Connection connection, String sql, String id)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      select.setString(1, id);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  private static Refund read(ResultSet rs) throws SQLException {
    String failureCode = rs.getString("failure_code");
    return new Refund(
        rs.getString("id"),
        rs.getString("merchant_id"),
        rs.getString("environment"),
        rs.getString("payment_id"),
        RefundStatus.fromWire(rs.getString("status")),
        Money.of(rs.getBigDecimal("amount"), rs.getString("currency")),
        rs.getString("reason"),
        rs.getString("provider"),
        rs.getString("provider_ref"),
        failureCode == null ? null : new Failure(failureCode, rs.getString("failure_message")),
        instant(rs.getTimestamp("succeeded_at")),
        instant(rs.getTimestamp("failed_at")),
        instant(rs.getTimestamp("created_at")),
        instant(rs.getTimestamp("updated_at")));
  }

  private static Timestamp timestamp(Instant instant) {
    return instant == null ? null : Timestamp.from(instant);
  }

  private static Instant instant(Timestamp timestamp) {
    return timestamp == null ? null : timestamp.toInstant();
  }
}
