package ph.payments.payments.payouts.persistence;

import com.fasterxml.jackson.databind.node.ObjectNode;
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
import ph.payments.payments.payments.domain.Failure;
import ph.payments.payments.payouts.domain.Payout;
import ph.payments.payments.payouts.domain.PayoutStatus;
import ph.payments.platform.json.Json;
import ph.payments.platform.money.Money;

/** Payouts in PostgreSQL. Every method runs on the caller's connection (its transaction). */
@Singleton
public class JdbcPayouts {

  private static final String COLUMNS =
      "id, merchant_id, environment, status, amount, currency, method, provider, provider_ref,"
          + " destination, description, metadata, fee_amount, failure_code, failure_message,"
          + " paid_at, failed_at, created_at, updated_at";

  public void insert(Connection connection, Payout p) throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO payouts ("
                + COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::json, ?, ?::json, ?, ?, ?, ?, ?, ?, ?)")) {
      int i = 1;
      insert.setString(i++, p.id());
      insert.setString(i++, p.merchantId());
      insert.setString(i++, p.environment());
      insert.setString(i++, p.status().wire());
      insert.setBigDecimal(i++, p.amount().amount());
      insert.setString(i++, p.currency());
      insert.setString(i++, p.method());
      insert.setString(i++, p.provider());
      insert.setString(i++, p.providerRef());
      insert.setString(i++, Json.toText(p.destination()));
      insert.setString(i++, p.description());
      insert.setString(i++, p.metadata() == null ? null : Json.toText(p.metadata()));
      insert.setBigDecimal(i++, p.fee().amount());
      insert.setString(i++, p.failure() == null ? null : p.failure().code());
      insert.setString(i++, p.failure() == null ? null : p.failure().message());
      insert.setTimestamp(i++, timestamp(p.paidAt()));
      insert.setTimestamp(i++, timestamp(p.failedAt()));
      insert.setTimestamp(i++, timestamp(p.createdAt()));
      insert.setTimestamp(i, timestamp(p.updatedAt()));
      insert.executeUpdate();
    }
  }

  /** Writes the fields a move changes, only if the stored status is still {@code from}. */
  public boolean updateState(Connection connection, Payout p, PayoutStatus from)
      throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE payouts SET status = ?, failure_code = ?, failure_message = ?, paid_at = ?,"
                + " failed_at = ?, updated_at = ? WHERE id = ? AND status = ?")) {
      update.setString(1, p.status().wire());
      update.setString(2, p.failure() == null ? null : p.failure().code());
      update.setString(3, p.failure() == null ? null : p.failure().message());
      update.setTimestamp(4, timestamp(p.paidAt()));
      update.setTimestamp(5, timestamp(p.failedAt()));
      update.setTimestamp(6, timestamp(p.updatedAt()));
      update.setString(7, p.id());
      update.setString(8, from.wire());
      return update.executeUpdate() == 1;
    }
  }

  /** The payout, locked for the rest of the transaction (moves of one payout serialise here). */
  public Optional<Payout> lock(Connection connection, String id) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM payouts WHERE id = ? FOR UPDATE", id);
  }

  public Optional<Payout> find(Connection connection, String id) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM payouts WHERE id = ?", id);
  }

  public Optional<Payout> lockByProviderRef(Connection connection, String provider, String ref)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT "
                + COLUMNS
                + " FROM payouts WHERE provider = ? AND provider_ref = ? FOR UPDATE")) {
      select.setString(1, provider);
      select.setString(2, ref);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  /** A page of a merchant's payouts in one environment, ascending by id. */
  public List<Payout> list(
      Connection connection,
      String merchantId,
      String environment,
      PayoutStatus status,
      String startingAfter,
      int limit)
      throws SQLException {
    String sql =
        "SELECT "
            + COLUMNS
            + " FROM payouts WHERE merchant_id = ? AND environment = ?"
            + (status == null ? "" : " AND status = ?")
            + (startingAfter == null ? "" : " AND id > ?")
            + " ORDER BY id LIMIT ?";
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      int i = 1;
      select.setString(i++, merchantId);
      select.setString(i++, environment);
      if (status != null) {
        select.setString(i++, status.wire());
      }
      if (startingAfter != null) {
        select.setString(i++, startingAfter);
      }
      select.setInt(i, limit);
      List<Payout> payouts = new ArrayList<>();
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          payouts.add(read(rs));
        }
      }
      return payouts;
    }
  }

  private static Optional<Payout> one(Connection connection, String sql, String id)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      select.setString(1, id);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  private static Payout read(ResultSet rs) throws SQLException {
    String currency = rs.getString("currency");
    String failureCode = rs.getString("failure_code");
    String metadata = rs.getString("metadata");
    return new Payout(
        rs.getString("id"),
        rs.getString("merchant_id"),
        rs.getString("environment"),
        PayoutStatus.fromWire(rs.getString("status")),
        Money.of(rs.getBigDecimal("amount"), currency),
        rs.getString("method"),
        rs.getString("provider"),
        rs.getString("provider_ref"),
        Json.tree(rs.getString("destination")),
        rs.getString("description"),
        metadata == null ? null : (ObjectNode) Json.tree(metadata),
        Money.of(rs.getBigDecimal("fee_amount"), currency),
        failureCode == null ? null : new Failure(failureCode, rs.getString("failure_message")),
        instant(rs.getTimestamp("paid_at")),
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
