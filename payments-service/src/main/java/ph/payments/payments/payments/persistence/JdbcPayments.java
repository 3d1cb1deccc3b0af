package ph.payments.payments.payments.persistence;

import com.fasterxml.jackson.databind.node.ObjectNode;
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
import ph.payments.payments.payments.domain.Customer;
import ph.payments.payments.payments.domain.Failure;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.domain.PaymentStatus;
import ph.payments.platform.json.Json;
import ph.payments.platform.money.Money;
import ph.payments.platform.outbox.OutboxWriter;

/** Payments in PostgreSQL. Every method runs on the caller's connection (its transaction). */
@Singleton
public class JdbcPayments {

  private static final String COLUMNS =
      "id, merchant_id, environment, status, amount, currency, method, provider, provider_ref,"
          + " checkout_url, qr_code, qr_code_url, app_link, return_url, webhook_url, description,"
          + " customer, metadata, customer_id, payment_link_id, fee_amount, net_amount,"
          + " refunded_amount, idempotency_key, failure_code, failure_message, expires_at,"
          + " succeeded_at, failed_at, created_at, updated_at, checkout_token";

  public void insert(Connection connection, Payment p) throws SQLException {
    insertion(p).execute(connection);
  }

  /** The insert of {@code p}, to make alone ({@link #insert}) or in a statement with others. */
  public OutboxWriter.Write insertion(Payment p) {
    return new OutboxWriter.Write(
        "INSERT INTO payments ("
            + COLUMNS
            + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::json, ?::json, ?, ?,"
            + " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (insert, first) -> {
          int i = first;
          insert.setString(i++, p.id());
          insert.setString(i++, p.merchantId());
          insert.setString(i++, p.environment());
          insert.setString(i++, p.status().wire());
          insert.setBigDecimal(i++, p.amount().amount());
          insert.setString(i++, p.currency());
          insert.setString(i++, p.method());
          insert.setString(i++, p.provider());
          insert.setString(i++, p.providerRef());
          insert.setString(i++, p.checkout().checkoutUrl());
          insert.setString(i++, p.checkout().qrCode());
          insert.setString(i++, p.checkout().qrCodeUrl());
          insert.setString(i++, p.checkout().appLink());
          insert.setString(i++, p.returnUrl());
          insert.setString(i++, p.webhookUrl());
          insert.setString(i++, p.description());
          insert.setString(i++, p.customer() == null ? null : Json.toText(p.customer()));
          insert.setString(i++, Json.toText(p.metadata()));
          insert.setString(i++, p.customerId());
          insert.setString(i++, p.paymentLinkId());
          insert.setBigDecimal(i++, p.fee().amount());
          insert.setBigDecimal(i++, p.net() == null ? null : p.net().amount());
          insert.setBigDecimal(i++, p.refunded().amount());
          insert.setString(i++, p.idempotencyKey());
          insert.setString(i++, p.failure() == null ? null : p.failure().code());
          insert.setString(i++, p.failure() == null ? null : p.failure().message());
          insert.setTimestamp(i++, timestamp(p.expiresAt()));
          insert.setTimestamp(i++, timestamp(p.succeededAt()));
          insert.setTimestamp(i++, timestamp(p.failedAt()));
          insert.setTimestamp(i++, timestamp(p.createdAt()));
          insert.setTimestamp(i++, timestamp(p.updatedAt()));
          insert.setString(i++, p.checkout().token());
          return i;
        });
  }

  /** Writes the fields a move changes, only if the stored status is still {@code from}. */
  public boolean updateState(Connection connection, Payment p, PaymentStatus from)
      throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE payments SET status = ?, net_amount = ?, refunded_amount = ?,"
                + " failure_code = ?, failure_message = ?, succeeded_at = ?, failed_at = ?,"
                + " updated_at = ? WHERE id = ? AND status = ?")) {
      update.setString(1, p.status().wire());
      update.setBigDecimal(2, p.net() == null ? null : p.net().amount());
      update.setBigDecimal(3, p.refunded().amount());
      update.setString(4, p.failure() == null ? null : p.failure().code());
      update.setString(5, p.failure() == null ? null : p.failure().message());
      update.setTimestamp(6, timestamp(p.succeededAt()));
      update.setTimestamp(7, timestamp(p.failedAt()));
      update.setTimestamp(8, timestamp(p.updatedAt()));
      update.setString(9, p.id());
      update.setString(10, from.wire());
      return update.executeUpdate() == 1;
    }
  }

  /** The payment, locked for the rest of the transaction (moves of one payment serialise here). */
  public Optional<Payment> lock(Connection connection, String id) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM payments WHERE id = ? FOR UPDATE", id);
  }

  public Optional<Payment> find(Connection connection, String id) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM payments WHERE id = ?", id);
  }

  /** The payment whose public checkout URLs carry {@code token}. */
  public Optional<Payment> findByCheckoutToken(Connection connection, String token)
      throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM payments WHERE checkout_token = ?", token);
  }

  public Optional<Payment> lockByProviderRef(Connection connection, String provider, String ref)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT "
                + COLUMNS
                + " FROM payments WHERE provider = ? AND provider_ref = ? FOR UPDATE")) {
      select.setString(1, provider);
      select.setString(2, ref);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  /** A page of a merchant's payments in one environment, ascending by id. */
  public List<Payment> list(
      Connection connection,
      String merchantId,
      String environment,
      PaymentStatus status,
      String customerId,
      String startingAfter,
      int limit)
      throws SQLException {
    String sql =
        "SELECT "
            + COLUMNS
            + " FROM payments WHERE merchant_id = ? AND environment = ?"
            + (status == null ? "" : " AND status = ?")
            + (customerId == null ? "" : " AND customer_id = ?")
            + (startingAfter == null ? "" : " AND id > ?")
            + " ORDER BY id LIMIT ?";
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      int i = 1;
      select.setString(i++, merchantId);
      select.setString(i++, environment);
      if (status != null) {
        select.setString(i++, status.wire());
      }
      if (customerId != null) {
        select.setString(i++, customerId);
      }
      if (startingAfter != null) {
        select.setString(i++, startingAfter);
      }
      select.setInt(i, limit);
      List<Payment> payments = new ArrayList<>();
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          payments.add(read(rs));
        }
      }
      return payments;
    }
  }

  /**
   * A customer's payments that bear a receipt (succeeded, refunded), newest first: what the
   * customer's receipt history lists.
   */
  public List<Payment> receiptsOf(
      Connection connection, String merchantId, String environment, String customerId, int limit)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT "
                + COLUMNS
                + " FROM payments WHERE merchant_id = ? AND environment = ? AND customer_id = ?"
                + " AND status IN ('succeeded', 'refunded') ORDER BY id DESC LIMIT ?")) {
      select.setString(1, merchantId);
      select.setString(2, environment);
      select.setString(3, customerId);
      select.setInt(4, limit);
      List<Payment> payments = new ArrayList<>();
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          payments.add(read(rs));
        }
      }
      return payments;
    }
  }

  /** Ids of pending payments whose checkout window has closed, oldest first. */
  public List<String> expiredPending(Connection connection, Instant now, int limit)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT id FROM payments WHERE status = 'pending' AND expires_at <= ?"
                + " ORDER BY expires_at LIMIT ?")) {
      select.setTimestamp(1, Timestamp.from(now));
      select.setInt(2, limit);
      List<String> ids = new ArrayList<>();
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getString(1));
        }
      }
      return ids;
    }
  }

  private static Optional<Payment> one(Connection connection, String sql, String id)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      select.setString(1, id);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  private static Payment read(ResultSet rs) throws SQLException {
    String currency = rs.getString("currency");
    String customer = rs.getString("customer");
    String failureCode = rs.getString("failure_code");
    BigDecimal net = rs.getBigDecimal("net_amount");
    return new Payment(
        rs.getString("id"),
        rs.getString("merchant_id"),
        rs.getString("environment"),
        PaymentStatus.fromWire(rs.getString("status")),
        Money.of(rs.getBigDecimal("amount"), currency),
        rs.getString("method"),
        rs.getString("provider"),
        rs.getString("provider_ref"),
        new Payment.Checkout(
            rs.getString("checkout_url"),
            rs.getString("qr_code"),
            rs.getString("qr_code_url"),
            rs.getString("app_link"),
            rs.getString("checkout_token")),
        rs.getString("return_url"),
        rs.getString("webhook_url"),
        rs.getString("description"),
        customer == null ? null : Json.mapper().convertValue(Json.tree(customer), Customer.class),
        (ObjectNode) Json.tree(rs.getString("metadata")),
        rs.getString("customer_id"),
        rs.getString("payment_link_id"),
        Money.of(rs.getBigDecimal("fee_amount"), currency),
        net == null ? null : Money.of(net, currency),
        Money.of(rs.getBigDecimal("refunded_amount"), currency),
        rs.getString("idempotency_key"),
        failureCode == null ? null : new Failure(failureCode, rs.getString("failure_message")),
        instant(rs.getTimestamp("expires_at")),
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
