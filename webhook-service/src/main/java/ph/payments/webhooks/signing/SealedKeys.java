package ph.payments.webhooks.signing;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;

/** Reads the three secret columns every signing row has into {@link SigningKeys}. */
public final class SealedKeys {

  /**
   * @param row positioned on a row with columns {@code secret}, {@code previous_secret} and {@code
   *     previous_secret_expires_at}
   */
  public static SigningKeys open(SecretBox box, ResultSet row, String context) throws SQLException {
    String current = box.open(row.getBytes("secret"), context);
    byte[] previous = row.getBytes("previous_secret");
    Timestamp expires = row.getTimestamp("previous_secret_expires_at");
    return new SigningKeys(
        current,
        previous == null ? null : box.open(previous, context),
        expires == null ? null : expires.toInstant());
  }

  private SealedKeys() {}
}
