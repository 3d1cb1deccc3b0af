package ph.payments.webhooks.endpoints;

import jakarta.inject.Singleton;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import ph.payments.webhooks.signing.SealedKeys;
import ph.payments.webhooks.signing.SecretBox;
import ph.payments.webhooks.signing.SigningKeys;
import ph.payments.webhooks.signing.SigningSecrets;

/**
 * Webhook endpoints in PostgreSQL, over the caller's connection. Deleted endpoints stay as rows
 * (their deliveries and attempts refer to them until the retention purge) but are invisible here.
 */
@Singleton
public class JdbcWebhookEndpoints {

  private static final String COLUMNS =
      "id, merchant_id, environment, url, events, description, enabled, created_at, updated_at";

  private final SecretBox box;

  public JdbcWebhookEndpoints(SecretBox box) {
    this.box = box;
  }

  /** Stores a new endpoint with its first signing secret (sealed). */
  public void insert(Connection connection, WebhookEndpoint endpoint, String secret)
      throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO webhook_endpoints (id, merchant_id, environment, url, events,"
                + " description, enabled, secret, created_at, updated_at)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      insert.setString(1, endpoint.id());
      insert.setString(2, endpoint.merchantId());
      insert.setString(3, endpoint.environment());
      insert.setString(4, endpoint.url());
      insert.setArray(5, textArray(connection, endpoint.events()));
      insert.setString(6, endpoint.description());
      insert.setBoolean(7, endpoint.enabled());
      insert.setBytes(8, box.seal(secret, context(endpoint.id())));
      insert.setTimestamp(9, Timestamp.from(endpoint.createdAt()));
      insert.setTimestamp(10, Timestamp.from(endpoint.updatedAt()));
      insert.executeUpdate();
    }
  }

  /**
   * The merchant environment's endpoint, not deleted.
   *
   * @param lock take the row lock (for a change)
   */
  public Optional<WebhookEndpoint> find(
      Connection connection, String id, String merchantId, String environment, boolean lock)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT "
                + COLUMNS
                + " FROM webhook_endpoints WHERE id = ? AND merchant_id = ? AND environment = ?"
                + " AND deleted_at IS NULL"
                + (lock ? " FOR UPDATE" : ""))) {
      select.setString(1, id);
      select.setString(2, merchantId);
      select.setString(3, environment);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(row(rs)) : Optional.empty();
      }
    }
  }

  /** The endpoint whatever its owner, deleted ones too (for deliveries). */
  public Optional<Stored> findAny(Connection connection, String id) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT " + COLUMNS + ", deleted_at FROM webhook_endpoints WHERE id = ?")) {
      select.setString(1, id);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next()
            ? Optional.of(new Stored(row(rs), rs.getTimestamp("deleted_at") != null))
            : Optional.empty();
      }
    }
  }

  /** An endpoint and whether it was deleted. */
  public record Stored(WebhookEndpoint endpoint, boolean deleted) {}

  /** Whether the merchant has this endpoint in the other environment (answered 401, not 404). */
  public boolean existsInOtherEnvironment(
      Connection connection, String id, String merchantId, String environment) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT 1 FROM webhook_endpoints WHERE id = ? AND merchant_id = ?"
                + " AND environment <> ? AND deleted_at IS NULL")) {
      select.setString(1, id);
      select.setString(2, merchantId);
      select.setString(3, environment);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** The merchant environment's endpoints, oldest first. */
  public List<WebhookEndpoint> list(Connection connection, String merchantId, String environment)
      throws SQLException {
    List<WebhookEndpoint> endpoints = new ArrayList<>();
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT "
                + COLUMNS
                + " FROM webhook_endpoints WHERE merchant_id = ? AND environment = ?"
                + " AND deleted_at IS NULL ORDER BY id")) {
      select.setString(1, merchantId);
      select.setString(2, environment);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          endpoints.add(row(rs));
        }
      }
    }
    return endpoints;
  }

  /** Enabled endpoints of the merchant environment that receive {@code type}. */
  public List<String> receiving(
      Connection connection, String merchantId, String environment, String type)
      throws SQLException {
    List<String> ids = new ArrayList<>();
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT id FROM webhook_endpoints WHERE merchant_id = ? AND environment = ?"
                + " AND deleted_at IS NULL AND enabled AND (? = ANY (events) OR '*' = ANY (events))"
                + " ORDER BY id")) {
      select.setString(1, merchantId);
      select.setString(2, environment);
      select.setString(3, type);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getString(1));
        }
      }
    }
    return ids;
  }

  public void update(Connection connection, WebhookEndpoint endpoint) throws SQLException {
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE webhook_endpoints SET url = ?, events = ?, description = ?, enabled = ?,"
                + " updated_at = ? WHERE id = ?")) {
      update.setString(1, endpoint.url());
      update.setArray(2, textArray(connection, endpoint.events()));
      update.setString(3, endpoint.description());
      update.setBoolean(4, endpoint.enabled());
      update.setTimestamp(5, Timestamp.from(endpoint.updatedAt()));
      update.setString(6, endpoint.id());
      update.executeUpdate();
    }
  }

  public void delete(Connection connection, String id, Instant now) throws SQLException {
    try (PreparedStatement delete =
        connection.prepareStatement(
            "UPDATE webhook_endpoints SET deleted_at = ?, updated_at = ?, enabled = false"
                + " WHERE id = ?")) {
      delete.setTimestamp(1, Timestamp.from(now));
      delete.setTimestamp(2, Timestamp.from(now));
      delete.setString(3, id);
      delete.executeUpdate();
    }
  }

  /** The endpoint's signing secrets, decrypted. */
  public SigningKeys keys(Connection connection, String id) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT secret, previous_secret, previous_secret_expires_at FROM webhook_endpoints"
                + " WHERE id = ?")) {
      select.setString(1, id);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("no endpoint " + id);
        }
        return SealedKeys.open(box, rs, context(id));
      }
    }
  }

  /**
   * Replaces the signing secret of a locked endpoint. The current secret becomes the previous one
   * and keeps signing until {@code previousExpiresAt}; a secret still in that role from an earlier
   * rotation stops signing now (two secrets at most).
   *
   * @return the new secret
   */
  public String rotate(Connection connection, String id, Instant now, Instant previousExpiresAt)
      throws SQLException {
    String current;
    try {
      current = keys(connection, id).current();
    } catch (IllegalStateException unreadable) {
      current = null; // sealed under another WEBHOOK_SECRET_KEY: rotating is the way out
    }
    String fresh = SigningSecrets.generate();
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE webhook_endpoints SET secret = ?, previous_secret = ?,"
                + " previous_secret_expires_at = ?, updated_at = ? WHERE id = ?")) {
      update.setBytes(1, box.seal(fresh, context(id)));
      update.setBytes(2, current == null ? null : box.seal(current, context(id)));
      update.setTimestamp(3, current == null ? null : Timestamp.from(previousExpiresAt));
      update.setTimestamp(4, Timestamp.from(now));
      update.setString(5, id);
      update.executeUpdate();
    }
    return fresh;
  }

  public int count(Connection connection, String merchantId, String environment)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT count(*) FROM webhook_endpoints WHERE merchant_id = ? AND environment = ?"
                + " AND deleted_at IS NULL")) {
      select.setString(1, merchantId);
      select.setString(2, environment);
      try (ResultSet rs = select.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  private static String context(String endpointId) {
    return "endpoint:" + endpointId;
  }

  private static Array textArray(Connection connection, List<String> values) throws SQLException {
    return connection.createArrayOf("text", values.toArray());
  }

  private static WebhookEndpoint row(ResultSet rs) throws SQLException {
    return new WebhookEndpoint(
        rs.getString("id"),
        rs.getString("merchant_id"),
        rs.getString("environment"),
        rs.getString("url"),
        Arrays.asList((String[]) rs.getArray("events").getArray()),
        rs.getString("description"),
        rs.getBoolean("enabled"),
        rs.getTimestamp("created_at").toInstant(),
        rs.getTimestamp("updated_at").toInstant());
  }
}
