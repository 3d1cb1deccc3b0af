package ph.payments.payments.products.persistence;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import ph.payments.payments.products.domain.Product;

/** Products in PostgreSQL. Every method runs on the caller's connection (its transaction). */
@Singleton
public class JdbcProducts {

  private static final String COLUMNS =
      "id, merchant_id, environment, name, description, price, currency, sku, barcode, image_url,"
          + " track_inventory, stock, low_stock_threshold, archived, category, metadata,"
          + " created_at, updated_at";

  /** PostgreSQL's unique_violation. */
  private static final String UNIQUE_VIOLATION = "23505";

  /** Filters of a list; null means "any". */
  public record Filter(
      Boolean archived, String category, Boolean inStock, Boolean lowStock, String query) {}

  /**
   * Inserts the product unless its sku or barcode is taken in its merchant and environment
   * (case-insensitively), also by a concurrent insert: the unique index decides, behind a
   * savepoint, so the caller's transaction goes on either way.
   *
   * @return false when the sku or barcode is taken
   */
  public boolean insert(Connection connection, Product p) throws SQLException {
    return unlessDuplicate(
        connection,
        () -> {
          try (PreparedStatement insert =
              connection.prepareStatement(
                  "INSERT INTO products ("
                      + COLUMNS
                      + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)")) {
            int i = 1;
            insert.setString(i++, p.id());
            insert.setString(i++, p.merchantId());
            insert.setString(i++, p.environment());
            i = setFields(insert, i, p);
            insert.setTimestamp(i++, Timestamp.from(p.createdAt()));
            insert.setTimestamp(i, Timestamp.from(p.updatedAt()));
            insert.executeUpdate();
          }
        });
  }

  /**
   * Writes every field of {@code p} (its id, merchant, environment and creation stay).
   *
   * @return false when the new sku or barcode is taken; nothing was written then
   */
  public boolean update(Connection connection, Product p) throws SQLException {
    return unlessDuplicate(
        connection,
        () -> {
          try (PreparedStatement update =
              connection.prepareStatement(
                  "UPDATE products SET name = ?, description = ?, price = ?, currency = ?,"
                      + " sku = ?, barcode = ?, image_url = ?, track_inventory = ?, stock = ?,"
                      + " low_stock_threshold = ?, archived = ?, category = ?,"
                      + " metadata = ?::jsonb, updated_at = ? WHERE id = ?")) {
            int i = setFields(update, 1, p);
            update.setTimestamp(i++, Timestamp.from(p.updatedAt()));
            update.setString(i, p.id());
            if (update.executeUpdate() != 1) {
              throw new IllegalStateException("product " + p.id() + " vanished");
            }
          }
        });
  }

  /** Sets stock only; call with the product locked. */
  public void updateStock(Connection connection, Product p) throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement("UPDATE products SET stock = ?, updated_at = ? WHERE id = ?")) {
      update.setInt(1, p.stock());
      update.setTimestamp(2, Timestamp.from(p.updatedAt()));
      update.setString(3, p.id());
      update.executeUpdate();
    }
  }

  /** True when a product of the merchant's environment has this sku (case-insensitively). */
  public boolean skuTaken(Connection connection, String merchantId, String environment, String sku)
      throws SQLException {
    return exists(
        connection,
        "SELECT 1 FROM products WHERE merchant_id = ? AND environment = ? AND lower(sku) = lower(?)",
        merchantId,
        environment,
        sku);
  }

  /** True when a product of the merchant's environment has this barcode (case-insensitively). */
  public boolean barcodeTaken(
      Connection connection, String merchantId, String environment, String barcode)
      throws SQLException {
    return exists(
        connection,
        "SELECT 1 FROM products WHERE merchant_id = ? AND environment = ?"
            + " AND lower(barcode) = lower(?)",
        merchantId,
        environment,
        barcode);
  }

  /** The next number of the merchant's auto-generated SKUs in the environment (1, 2, …). */
  public long nextSkuNumber(Connection connection, String merchantId, String environment)
      throws SQLException {
    try (PreparedStatement next =
        connection.prepareStatement(
            "INSERT INTO product_sku_sequences (merchant_id, environment, last_number)"
                + " VALUES (?, ?, 1) ON CONFLICT (merchant_id, environment)"
                + " DO UPDATE SET last_number = product_sku_sequences.last_number + 1"
                + " RETURNING last_number")) {
      next.setString(1, merchantId);
      next.setString(2, environment);
      try (ResultSet rs = next.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  public Optional<Product> find(Connection connection, String id) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM products WHERE id = ?", id);
  }

  /** The product, locked for the rest of the transaction. */
  public Optional<Product> lock(Connection connection, String id) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM products WHERE id = ? FOR UPDATE", id);
  }

  /** A page of a merchant's products in one environment, ascending by id. */
  public List<Product> list(
      Connection connection,
      String merchantId,
      String environment,
      Filter filter,
      String startingAfter,
      int limit)
      throws SQLException {
    StringBuilder sql =
        new StringBuilder("SELECT " + COLUMNS + " FROM products")
            .append(" WHERE merchant_id = ? AND environment = ?");
    List<Object> args = new ArrayList<>(List.of(merchantId, environment));
    if (filter.archived() != null) {
      sql.append(" AND archived = ?");
      args.add(filter.archived());
    }
    if (filter.category() != null) {
      sql.append(" AND category = ?");
      args.add(filter.category());
    }
    if (filter.inStock() != null) {
      sql.append(" AND (NOT track_inventory OR stock > 0) = ?");
      args.add(filter.inStock());
    }
    if (filter.lowStock() != null) {
      sql.append(
          " AND (track_inventory AND low_stock_threshold IS NOT NULL"
              + " AND stock <= low_stock_threshold) = ?");
      args.add(filter.lowStock());
    }
    if (filter.query() != null) {
      String like = "%" + escapeLike(filter.query().toLowerCase(java.util.Locale.ROOT)) + "%";
      sql.append(
          " AND (lower(name) LIKE ? ESCAPE '\\' OR lower(sku) LIKE ? ESCAPE '\\'"
              + " OR lower(barcode) LIKE ? ESCAPE '\\')");
      args.add(like);
      args.add(like);
      args.add(like);
    }
    if (startingAfter != null) {
      sql.append(" AND id > ?");
      args.add(startingAfter);
    }
    sql.append(" ORDER BY id LIMIT ?");
    args.add(limit);
    try (PreparedStatement select = connection.prepareStatement(sql.toString())) {
      for (int i = 0; i < args.size(); i++) {
        select.setObject(i + 1, args.get(i));
      }
      List<Product> products = new ArrayList<>();
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          products.add(read(rs));
        }
      }
      return products;
    }
  }

  static String escapeLike(String value) {
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
  }

  @FunctionalInterface
  private interface Write {
    void run() throws SQLException;
  }

  private static boolean unlessDuplicate(Connection connection, Write write) throws SQLException {
    Savepoint savepoint = connection.setSavepoint();
    try {
      write.run();
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

  private static int setFields(PreparedStatement statement, int i, Product p) throws SQLException {
    statement.setString(i++, p.name());
    statement.setString(i++, p.description());
    statement.setBigDecimal(i++, p.price());
    statement.setString(i++, p.currency());
    statement.setString(i++, p.sku());
    statement.setString(i++, p.barcode());
    statement.setString(i++, p.imageUrl());
    statement.setBoolean(i++, p.trackInventory());
    statement.setInt(i++, p.stock());
    if (p.lowStockThreshold() == null) {
      statement.setNull(i++, Types.INTEGER);
    } else {
      statement.setInt(i++, p.lowStockThreshold());
    }
    statement.setBoolean(i++, p.archived());
    statement.setString(i++, p.category());
    statement.setString(i++, p.metadataJson());
    return i;
  }

  private static boolean exists(Connection connection, String sql, String... args)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        select.setString(i + 1, args[i]);
      }
      try (ResultSet rs = select.executeQuery()) {
        return rs.next();
      }
    }
  }

  private static Optional<Product> one(Connection connection, String sql, String id)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      select.setString(1, id);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  private static Product read(ResultSet rs) throws SQLException {
    int threshold = rs.getInt("low_stock_threshold");
    Integer lowStockThreshold = rs.wasNull() ? null : threshold;
    return new Product(
        rs.getString("id"),
        rs.getString("merchant_id"),
        rs.getString("environment"),
        rs.getString("name"),
        rs.getString("description"),
        rs.getBigDecimal("price"),
        rs.getString("currency"),
        rs.getString("sku"),
        rs.getString("barcode"),
        rs.getString("image_url"),
        rs.getBoolean("track_inventory"),
        rs.getInt("stock"),
        lowStockThreshold,
        rs.getBoolean("archived"),
        rs.getString("category"),
        rs.getString("metadata"),
        rs.getTimestamp("created_at").toInstant(),
        rs.getTimestamp("updated_at").toInstant());
  }
}
