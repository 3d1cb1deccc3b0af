package ph.payments.payments.payments.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import ph.payments.payments.payments.domain.FeeSchedule;

/**
 * The fee schedule of a merchant's method: its own row in {@code merchant_fees}, or the default.
 */
@Singleton
public class Fees {

  public FeeSchedule scheduleFor(Connection connection, String merchantId, String method)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT percent, fixed_amount FROM merchant_fees WHERE merchant_id = ? AND method = ?")) {
      select.setString(1, merchantId);
      select.setString(2, method);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next()
            ? new FeeSchedule(rs.getBigDecimal(1), rs.getBigDecimal(2))
            : FeeSchedule.defaultFor(method);
      }
    }
  }
}
