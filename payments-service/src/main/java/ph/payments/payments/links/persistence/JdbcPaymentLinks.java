package ph.payments.payments.links.persistence;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import ph.payments.payments.links.domain.LinkStatus;
import ph.payments.payments.links.domain.PaymentLink;
import ph.payments.payments.persistence.PagedQuery;

/** Payment links in PostgreSQL. Every method runs on the caller's connection (its transaction). */
@Singleton
public class JdbcPaymentLinks {

  private static final String COLUMNS =
      "id, merchant_id, environment, slug, description, amount, currency, method, image_url,"
          + " success_url, cancel_url, status, customer_id, usage_count, last_used_at, expires_at,"
          + " metadata, created_at, updated_at";

  /** PostgreSQL's unique_violation. */
  private static final String UNIQUE_VIOLATION = "23505";

  /**
   * What a payment link's page shows of the static QR that encodes it (none for a plain link). The
   * static QR feature owns the table; this read is the link's side of their one-to-one.
   */
  public record StaticQrFacet(
      String name, String location, String defaultMethod, boolean archived) {}

  /**
   * Inserts the link unless its slug is taken (by any link, also a concurrent insert): the unique
   * index decides, behind a savepoint, so the caller's transaction goes on and can draw another.
   *
   * @return false when the slug is taken; nothing was written then
   */
  public boolean insert(Connection connection, PaymentLink link) throws SQLException {
    Savepoint savepoint = connection.setSavepoint();
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO payment_links ("
                + COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)")) {
      int i = 1;
      insert.setString(i++, link.id());
      insert.setString(i++, link.merchantId());
      insert.setString(i++, link.environment());
      insert.setString(i++, link.slug());
      i = setFields(insert, i, link);
      insert.setString(i++, link.customerId());
      insert.setInt(i++, link.usageCount());
      insert.setTimestamp(i++, PagedQuery.timestamp(link.lastUsedAt()));
      insert.setTimestamp(i++, PagedQuery.timestamp(link.expiresAt()));
      insert.setString(i++, link.metadataJson());
      insert.setTimestamp(i++, Timestamp.from(link.createdAt()));
      insert.setTimestamp(i, Timestamp.from(link.updatedAt()));
      insert.executeUpdate();
    } catch (SQLException e) {
      if (UNIQUE_VIOLATION.equals(e.getSQLState())) {
        connection.rollback(savepoint);
        return false;
      }
      throw e;
    }
    connection.releaseSavepoint(savepoint);
    return true;
  }

  /**
   * Writes the fields an update may change (description, amount, currency, method, the three URLs,
   * status, metadata). Call with the link locked.
   */
  public void update(Connection connection, PaymentLink link) throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE payment_links SET description = ?, amount = ?, currency = ?, method = ?,"
                + " image_url = ?, success_url = ?, cancel_url = ?, status = ?,"
                + " metadata = ?::jsonb, updated_at = ? WHERE id = ?")) {
      int i = setFields(update, 1, link);
      update.setString(i++, link.metadataJson());
      update.setTimestamp(i++, Timestamp.from(link.updatedAt()));
      update.setString(i, link.id());
      if (update.executeUpdate() != 1) {
        throw new IllegalStateException("payment link " + link.id() + " vanished");
      }
    }
  }

  /**
   * Counts one succeeded payment: {@code usage_count} + 1 and {@code last_used_at}. The caller
   * calls it exactly once per payment, in the transaction of the payment's move to {@code
   * succeeded}.
   */
  public void recordUse(Connection connection, String id, Instant at) throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE payment_links SET usage_count = usage_count + 1, last_used_at = ?"
                + " WHERE id = ?")) {
      update.setTimestamp(1, Timestamp.from(at));
      update.setString(2, id);
      if (update.executeUpdate() != 1) {
        throw new IllegalStateException("payment link " + id + " vanished");
      }
    }
  }

  public Optional<PaymentLink> find(Connection connection, String id) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM payment_links WHERE id = ?", id);
  }

  /** The link, locked for the rest of the transaction. */
  public Optional<PaymentLink> lock(Connection connection, String id) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM payment_links WHERE id = ? FOR UPDATE", id);
  }

  /**
   * The link, share-locked for the rest of the transaction: a payment being made through it and a
   * change of its status (an update, a static QR's archive) do not interleave.
   */
  public Optional<PaymentLink> share(Connection connection, String id) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM payment_links WHERE id = ? FOR SHARE", id);
  }

  public Optional<PaymentLink> findBySlug(Connection connection, String slug) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM payment_links WHERE slug = ?", slug);
  }

  /** The static QR that encodes the link, if one does. */
  public Optional<StaticQrFacet> staticQrOf(Connection connection, String linkId)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT name, location, default_method, archived FROM static_qrs"
                + " WHERE payment_link_id = ?")) {
      select.setString(1, linkId);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next()
            ? Optional.of(
                new StaticQrFacet(
                    rs.getString("name"),
                    rs.getString("location"),
                    rs.getString("default_method"),
                    rs.getBoolean("archived")))
            : Optional.empty();
      }
    }
  }

  /** The id of the static QR that encodes the link, if one does. */
  public Optional<String> staticQrIdOf(Connection connection, String linkId) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement("SELECT id FROM static_qrs WHERE payment_link_id = ?")) {
      select.setString(1, linkId);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
      }
    }
  }

  /** A page of a merchant's links in one environment, ascending by id; {@code status} optional. */
  public List<PaymentLink> list(
      Connection connection,
      String merchantId,
      String environment,
      LinkStatus status,
      String startingAfter,
      int limit)
      throws SQLException {
    return PagedQuery.from(
            "SELECT " + COLUMNS + " FROM payment_links", "id", merchantId, environment)
        .where("status = ?", status == null ? null : status.wire())
        .page(connection, startingAfter, limit, JdbcPaymentLinks::read);
  }

  private static int setFields(PreparedStatement statement, int i, PaymentLink l)
      throws SQLException {
    statement.setString(i++, l.description());
    statement.setBigDecimal(i++, l.amount());
    statement.setString(i++, l.currency());
    statement.setString(i++, l.method());
    statement.setString(i++, l.imageUrl());
    statement.setString(i++, l.successUrl());
    statement.setString(i++, l.cancelUrl());
    statement.setString(i++, l.status().wire());
    return i;
  }

  private static Optional<PaymentLink> one(Connection connection, String sql, String arg)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      select.setString(1, arg);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  private static PaymentLink read(ResultSet rs) throws SQLException {
    return new PaymentLink(
        rs.getString("id"),
        rs.getString("merchant_id"),
        rs.getString("environment"),
        rs.getString("slug"),
        rs.getString("description"),
        rs.getBigDecimal("amount"),
        rs.getString("currency"),
        rs.getString("method"),
        rs.getString("image_url"),
        rs.getString("success_url"),
        rs.getString("cancel_url"),
        LinkStatus.fromWire(rs.getString("status")),
        rs.getString("customer_id"),
        rs.getInt("usage_count"),
        PagedQuery.instant(rs, "last_used_at"),
        PagedQuery.instant(rs, "expires_at"),
        rs.getString("metadata"),
        rs.getTimestamp("created_at").toInstant(),
        rs.getTimestamp("updated_at").toInstant());
  }
}
