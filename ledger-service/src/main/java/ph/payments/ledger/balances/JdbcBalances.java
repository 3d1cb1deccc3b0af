package ph.payments.ledger.balances;

import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import ph.payments.ledger.journal.domain.AccountCode;

/**
 * Reads of maintained balances: one indexed row per currency, never a sum over postings (the audit
 * proves the two agree).
 */
@Singleton
public class JdbcBalances {

  /** The merchant's available balance per currency with activity, by currency code. */
  public Map<String, BigDecimal> available(
      Connection connection, String merchantId, String environment) throws SQLException {
    Map<String, BigDecimal> balances = new TreeMap<>();
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT currency, balance FROM accounts"
                + " WHERE merchant_id = ? AND environment = ? AND code = ?")) {
      select.setString(1, merchantId);
      select.setString(2, environment);
      select.setString(3, AccountCode.MERCHANT_AVAILABLE.wire());
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          balances.put(rs.getString(1), rs.getBigDecimal(2));
        }
      }
    }
    return balances;
  }

  /** The balance of one account; empty when the merchant has no activity in the currency. */
  public Optional<BigDecimal> balance(
      Connection connection,
      AccountCode code,
      String merchantId,
      String environment,
      String currency)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT balance FROM accounts"
                + " WHERE merchant_id = ? AND environment = ? AND currency = ? AND code = ?")) {
      select.setString(1, merchantId);
      select.setString(2, environment);
      select.setString(3, currency);
      select.setString(4, code.wire());
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(rs.getBigDecimal(1)) : Optional.empty();
      }
    }
  }
}
