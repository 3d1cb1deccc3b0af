package ph.payments.payments.customers.persistence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import ph.payments.payments.customers.domain.Address;
import ph.payments.payments.customers.domain.Customer;
import ph.payments.platform.json.Json;

/**
 * Customers in PostgreSQL. Every method runs on the caller's connection (its transaction). Writes
 * that would give a second customer of the merchant and environment the same email (compared
 * case-insensitively, by the unique index {@code customers_email_idx}) change nothing and answer
 * false; they run under a savepoint, so the caller's transaction stays usable for the rejection.
 */
@Singleton
public class JdbcCustomers {

  private static final String UNIQUE_VIOLATION = "23505";
  private static final String EMAIL_INDEX = "customers_email_idx";

  private static final String COLUMNS =
      "id, merchant_id, environment, name, email, phone, address, metadata, receipts_token,"
          + " created_at, updated_at";

  /**
   * @return false when the email is taken (nothing was written)
   */
  public boolean insert(Connection connection, Customer c) throws SQLException {
    return unlessEmailTaken(
        connection,
        () -> {
          try (PreparedStatement insert =
              connection.prepareStatement(
                  "INSERT INTO customers ("
                      + COLUMNS
                      + ") VALUES (?, ?, ?, ?, ?, ?, ?::json, ?::json, ?, ?, ?)")) {
            int i = 1;
            insert.setString(i++, c.id());
            insert.setString(i++, c.merchantId());
            insert.setString(i++, c.environment());
            insert.setString(i++, c.name());
            insert.setString(i++, c.email());
            insert.setString(i++, c.phone());
            insert.setString(i++, address(c.address()));
            insert.setString(i++, Json.toText(c.metadata()));
            insert.setString(i++, c.receiptsToken());
            insert.setTimestamp(i++, Timestamp.from(c.createdAt()));
            insert.setTimestamp(i, Timestamp.from(c.updatedAt()));
            insert.executeUpdate();
          }
        });
  }

  /**
   * Writes every field an update may change.
   *
   * @return false when the email is taken (nothing was written)
   */
  public boolean update(Connection connection, Customer c) throws SQLException {
    return unlessEmailTaken(
        connection,
        () -> {
          try (PreparedStatement update =
              connection.prepareStatement(
                  "UPDATE customers SET name = ?, email = ?, phone = ?, address = ?::json,"
                      + " metadata = ?::json, updated_at = ? WHERE id = ?")) {
            update.setString(1, c.name());
            update.setString(2, c.email());
            update.setString(3, c.phone());
            update.setString(4, address(c.address()));
            update.setString(5, Json.toText(c.metadata()));
            update.setTimestamp(6, Timestamp.from(c.updatedAt()));
            update.setString(7, c.id());
            update.executeUpdate();
          }
        });
  }

  public Optional<Customer> find(Connection connection, String id) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM customers WHERE id = ?", id);
  }

  /** The customer, locked for the rest of the transaction (updates of one customer serialise). */
  public Optional<Customer> lock(Connection connection, String id) throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM customers WHERE id = ? FOR UPDATE", id);
  }

  /** The customer whose public receipt-history URL carries {@code token}. */
  public Optional<Customer> findByReceiptsToken(Connection connection, String token)
      throws SQLException {
    return one(connection, "SELECT " + COLUMNS + " FROM customers WHERE receipts_token = ?", token);
  }

  /**
   * A page of a merchant's customers in one environment, ascending by id.
   *
   * @param email only the customer with this email (case-insensitively), or null for all
   * @param externalId only the customers whose {@code metadata.external_id} is this (a string, or a
   *     number written the same way), or null for all
   */
  public List<Customer> list(
      Connection connection,
      String merchantId,
      String environment,
      String email,
      String externalId,
      String startingAfter,
      int limit)
      throws SQLException {
    String sql =
        "SELECT "
            + COLUMNS
            + " FROM customers WHERE merchant_id = ? AND environment = ?"
            + (email == null ? "" : " AND lower(email) = lower(?)")
            + (externalId == null ? "" : " AND (metadata ->> 'external_id') = ?")
            + (startingAfter == null ? "" : " AND id > ?")
            + " ORDER BY id LIMIT ?";
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      int i = 1;
      select.setString(i++, merchantId);
      select.setString(i++, environment);
      if (email != null) {
        select.setString(i++, email);
      }
      if (externalId != null) {
        select.setString(i++, externalId);
      }
      if (startingAfter != null) {
        select.setString(i++, startingAfter);
      }
      select.setInt(i, limit);
      List<Customer> customers = new ArrayList<>();
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          customers.add(read(rs));
        }
      }
      return customers;
    }
  }

  @FunctionalInterface
  private interface Write {
    void run() throws SQLException;
  }

  private static boolean unlessEmailTaken(Connection connection, Write write) throws SQLException {
    Savepoint savepoint = connection.setSavepoint();
    try {
      write.run();
    } catch (SQLException e) {
      if (UNIQUE_VIOLATION.equals(e.getSQLState())
          && e.getMessage() != null
          && e.getMessage().contains(EMAIL_INDEX)) {
        connection.rollback(savepoint);
        return false;
      }
      throw e;
    }
    connection.releaseSavepoint(savepoint);
    return true;
  }

  private static Optional<Customer> one(Connection connection, String sql, String value)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      select.setString(1, value);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  private static String address(Address address) {
    if (address == null) {
      return null;
    }
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("line1", address.line1());
    json.put("line2", address.line2());
    json.put("city", address.city());
    json.put("region", address.region());
    json.put("postal_code", address.postalCode());
    json.put("country", address.country());
    return Json.toText(json);
  }

  private static Address address(String stored) {
    if (stored == null) {
      return null;
    }
    JsonNode json = Json.tree(stored);
    return new Address(
        text(json, "line1"),
        text(json, "line2"),
        text(json, "city"),
        text(json, "region"),
        text(json, "postal_code"),
        text(json, "country"));
  }

  private static String text(JsonNode json, String field) {
    JsonNode value = json.get(field);
    return value == null || value.isNull() ? null : value.asText();
  }

  private static Customer read(ResultSet rs) throws SQLException {
    return new Customer(
        rs.getString("id"),
        rs.getString("merchant_id"),
        rs.getString("environment"),
        rs.getString("name"),
        rs.getString("email"),
        rs.getString("phone"),
        address(rs.getString("address")),
        (ObjectNode) Json.tree(rs.getString("metadata")),
        rs.getString("receipts_token"),
        instant(rs.getTimestamp("created_at")),
        instant(rs.getTimestamp("updated_at")));
  }

  private static Instant instant(Timestamp timestamp) {
    return timestamp == null ? null : timestamp.toInstant();
  }
}
