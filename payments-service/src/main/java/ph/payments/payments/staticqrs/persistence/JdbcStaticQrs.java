package ph.payments.payments.staticqrs.persistence;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.List;
import java.util.Optional;
import ph.payments.payments.persistence.PagedQuery;
import ph.payments.payments.staticqrs.domain.StaticQr;

/**
 * Static QR codes in PostgreSQL, read together with their link's slug. Every method runs on the
 * caller's connection (its transaction).
 */
@Singleton
public class JdbcStaticQrs {

  private static final String SELECT =
      "SELECT q.id, q.merchant_id, q.environment, q.name, q.reference, q.location,"
          + " q.payment_link_id, l.slug, q.default_method, q.currency, q.archived, q.archived_at,"
          + " q.created_at, q.updated_at"
          + " FROM static_qrs q JOIN payment_links l ON l.id = q.payment_link_id";

  /** Call after inserting its payment link, in the same transaction. */
  public void insert(Connection connection, StaticQr q) throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO static_qrs (id, merchant_id, environment, name, reference, location,"
                + " payment_link_id, default_method, currency, archived, archived_at, created_at,"
                + " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      int i = 1;
      insert.setString(i++, q.id());
      insert.setString(i++, q.merchantId());
      insert.setString(i++, q.environment());
      insert.setString(i++, q.name());
      insert.setString(i++, q.reference());
      insert.setString(i++, q.location());
      insert.setString(i++, q.paymentLinkId());
      insert.setString(i++, q.defaultMethod());
      insert.setString(i++, q.currency());
      insert.setBoolean(i++, q.archived());
      insert.setTimestamp(i++, PagedQuery.timestamp(q.archivedAt()));
      insert.setTimestamp(i++, Timestamp.from(q.createdAt()));
      insert.setTimestamp(i, Timestamp.from(q.updatedAt()));
      insert.executeUpdate();
    }
  }

  /** Writes every field an update or the archive may change. Call with the QR locked. */
  public void update(Connection connection, StaticQr q) throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE static_qrs SET name = ?, reference = ?, location = ?, default_method = ?,"
                + " currency = ?, archived = ?, archived_at = ?, updated_at = ? WHERE id = ?")) {
      int i = 1;
      update.setString(i++, q.name());
      update.setString(i++, q.reference());
      update.setString(i++, q.location());
      update.setString(i++, q.defaultMethod());
      update.setString(i++, q.currency());
      update.setBoolean(i++, q.archived());
      update.setTimestamp(i++, PagedQuery.timestamp(q.archivedAt()));
      update.setTimestamp(i++, Timestamp.from(q.updatedAt()));
      update.setString(i, q.id());
      if (update.executeUpdate() != 1) {
        throw new IllegalStateException("static QR " + q.id() + " vanished");
      }
    }
  }

  public Optional<StaticQr> find(Connection connection, String id) throws SQLException {
    return one(connection, SELECT + " WHERE q.id = ?", id);
  }

  /** The QR, locked for the rest of the transaction (its link is locked separately). */
  public Optional<StaticQr> lock(Connection connection, String id) throws SQLException {
    return one(connection, SELECT + " WHERE q.id = ? FOR UPDATE OF q", id);
  }

  /** A page of a merchant's QRs in one environment, ascending by id; {@code archived} optional. */
  public List<StaticQr> list(
      Connection connection,
      String merchantId,
      String environment,
      Boolean archived,
      String startingAfter,
      int limit)
      throws SQLException {
    return PagedQuery.from(SELECT, "q.id", merchantId, environment)
        .where("q.archived = ?", archived)
        .page(connection, startingAfter, limit, JdbcStaticQrs::read);
  }

  private static Optional<StaticQr> one(Connection connection, String sql, String id)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      select.setString(1, id);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  private static StaticQr read(ResultSet rs) throws SQLException {
    return new StaticQr(
        rs.getString("id"),
        rs.getString("merchant_id"),
        rs.getString("environment"),
        rs.getString("name"),
        rs.getString("reference"),
        rs.getString("location"),
        rs.getString("payment_link_id"),
        rs.getString("slug"),
        rs.getString("default_method"),
        rs.getString("currency"),
        rs.getBoolean("archived"),
        PagedQuery.instant(rs, "archived_at"),
        rs.getTimestamp("created_at").toInstant(),
        rs.getTimestamp("updated_at").toInstant());
  }
}
