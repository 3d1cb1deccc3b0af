package ph.payments.gateway.auth;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.connection.ConnectionOperations;
import jakarta.inject.Singleton;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;
import ph.payments.gateway.merchants.ApiKeyRow;
import ph.payments.gateway.merchants.MerchantRow;
import ph.payments.platform.tx.TransactionFailedException;

/**
 * Reads a key and its merchant for authentication in one statement (a join through the key's unique
 * hash, or its id), where the repositories took two, each through Micronaut Data's interceptors and
 * mappers: 7 % of the gateway's CPU samples went to these reloads in a creation benchmark with one
 * key per client (issue 20, sixth round).
 */
@Singleton
class KeyLookup {

  private static final String SELECT =
      "SELECT k.id, k.merchant_id, k.environment, k.secret_hash, k.secret_last4, k.scopes,"
          + " k.rate_limit_per_minute, k.created_at, k.revoked_at, m.name, m.email, m.status,"
          + " m.live, m.created_at AS merchant_created_at, m.updated_at AS merchant_updated_at"
          + " FROM api_keys k JOIN merchants m ON m.id = k.merchant_id";

  private final ConnectionOperations<Connection> connections;

  KeyLookup(ConnectionOperations<Connection> connections) {
    this.connections = connections;
  }

  /**
   * The key with this keyed hash and its merchant; with {@code keyIdHint}, the key with that id,
   * only when its hash is this one (compared in constant time).
   */
  Optional<AuthenticatedKeys.Found> find(@Nullable String keyIdHint, byte[] secretHash) {
    Optional<AuthenticatedKeys.Found> found =
        connections.executeRead(
            status -> {
              try {
                return keyIdHint == null
                    ? read(status.getConnection(), " WHERE k.secret_hash = ?", secretHash)
                    : read(status.getConnection(), " WHERE k.id = ?", keyIdHint);
              } catch (SQLException e) {
                throw new TransactionFailedException(e);
              }
            });
    return found.filter(both -> MessageDigest.isEqual(both.key().secretHash(), secretHash));
  }

  private static Optional<AuthenticatedKeys.Found> read(
      Connection connection, String where, Object parameter) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(SELECT + where)) {
      select.setObject(1, parameter);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        ApiKeyRow key =
            new ApiKeyRow(
                rs.getString("id"),
                rs.getString("merchant_id"),
                rs.getString("environment"),
                rs.getBytes("secret_hash"),
                rs.getString("secret_last4"),
                (String[]) rs.getArray("scopes").getArray(),
                (Integer) rs.getObject("rate_limit_per_minute"),
                instant(rs.getTimestamp("created_at")),
                instant(rs.getTimestamp("revoked_at")));
        MerchantRow merchant =
            new MerchantRow(
                rs.getString("merchant_id"),
                rs.getString("name"),
                rs.getString("email"),
                rs.getString("status"),
                rs.getBoolean("live"),
                instant(rs.getTimestamp("merchant_created_at")),
                instant(rs.getTimestamp("merchant_updated_at")));
        return Optional.of(new AuthenticatedKeys.Found(key, merchant));
      }
    }
  }

  private static Instant instant(@Nullable Timestamp timestamp) {
    return timestamp == null ? null : timestamp.toInstant();
  }
}
