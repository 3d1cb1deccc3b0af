package ph.payments.webhooks.signing;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import ph.payments.webhooks.WebhookSettings;

/**
 * The account-level webhook secret of each merchant environment. It signs deliveries to a payment's
 * {@code webhook_url} override, which has no endpoint (and so no endpoint secret) of its own. The
 * operator API shows it when the merchant is created (test) or activated (live), and can rotate it;
 * during a rotation both secrets sign for {@link WebhookSettings#rotationOverlap()}.
 */
@Singleton
public class AccountSecrets {

  private final SecretBox box;
  private final Clock clock;
  private final WebhookSettings settings;

  public AccountSecrets(SecretBox box, Clock clock, WebhookSettings settings) {
    this.box = box;
    this.clock = clock;
    this.settings = settings;
  }

  /** A secret as shown to the operator. */
  public record Shown(String secret, Instant previousExpiresAt) {
    @Override
    public String toString() {
      return "Shown[…]";
    }
  }

  /** The environment's secret, created now if it has none. */
  public Shown createOrGet(Connection connection, String merchantId, String environment)
      throws SQLException {
    insertIfMissing(connection, merchantId, environment);
    SigningKeys keys = keys(connection, merchantId, environment).orElseThrow();
    return new Shown(keys.current(), keys.previousExpiresAt());
  }

  public Optional<SigningKeys> keys(Connection connection, String merchantId, String environment)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT secret, previous_secret, previous_secret_expires_at FROM account_secrets"
                + " WHERE merchant_id = ? AND environment = ?")) {
      select.setString(1, merchantId);
      select.setString(2, environment);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(SealedKeys.open(box, rs, context(merchantId, environment)));
      }
    }
  }

  /** A new current secret; the old one keeps signing for the overlap. */
  public Shown rotate(Connection connection, String merchantId, String environment)
      throws SQLException {
    insertIfMissing(connection, merchantId, environment);
    SigningKeys keys;
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT secret, previous_secret, previous_secret_expires_at FROM account_secrets"
                + " WHERE merchant_id = ? AND environment = ? FOR UPDATE")) {
      select.setString(1, merchantId);
      select.setString(2, environment);
      try (ResultSet rs = select.executeQuery()) {
        rs.next();
        keys = SealedKeys.open(box, rs, context(merchantId, environment));
      } catch (IllegalStateException unreadable) {
        keys = null; // sealed under another WEBHOOK_SECRET_KEY: rotating is the way out
      }
    }
    Instant now = clock.instant();
    String fresh = SigningSecrets.generate();
    Instant expires = now.plus(settings.rotationOverlap());
    String context = context(merchantId, environment);
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE account_secrets SET secret = ?, previous_secret = ?,"
                + " previous_secret_expires_at = ?, updated_at = ?"
                + " WHERE merchant_id = ? AND environment = ?")) {
      update.setBytes(1, box.seal(fresh, context));
      update.setBytes(2, keys == null ? null : box.seal(keys.current(), context));
      update.setTimestamp(3, keys == null ? null : Timestamp.from(expires));
      update.setTimestamp(4, Timestamp.from(now));
      update.setString(5, merchantId);
      update.setString(6, environment);
      update.executeUpdate();
    }
    return new Shown(fresh, keys == null ? null : expires);
  }

  /** Creates the environment's secret if it has none (nothing is decrypted). */
  public void ensure(Connection connection, String merchantId, String environment)
      throws SQLException {
    insertIfMissing(connection, merchantId, environment);
  }

  private void insertIfMissing(Connection connection, String merchantId, String environment)
      throws SQLException {
    Timestamp now = Timestamp.from(clock.instant());
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO account_secrets (merchant_id, environment, secret, created_at, updated_at)"
                + " VALUES (?, ?, ?, ?, ?) ON CONFLICT (merchant_id, environment) DO NOTHING")) {
      insert.setString(1, merchantId);
      insert.setString(2, environment);
      insert.setBytes(3, box.seal(SigningSecrets.generate(), context(merchantId, environment)));
      insert.setTimestamp(4, now);
      insert.setTimestamp(5, now);
      insert.executeUpdate();
    }
  }

  static String context(String merchantId, String environment) {
    return "account:" + merchantId + ":" + environment;
  }
}
