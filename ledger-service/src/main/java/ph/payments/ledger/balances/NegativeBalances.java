package ph.payments.ledger.balances;

import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Merchants whose available balance is below zero (docs/ledger.md, "Negative balances"): refunds
 * may take a balance below zero, payouts never do, and operators follow up on the debt from this
 * list.
 */
@Singleton
public class NegativeBalances {

  /**
   * One merchant's available balance in one environment and currency, below zero.
   *
   * @param since when the balance last went below zero (the first posting after its last
   *     non-negative one), i.e. how long it has been negative without a break
   */
  public record NegativeBalance(
      String merchantId, String environment, String currency, BigDecimal balance, Instant since) {}

  /**
   * @param environment {@code test}, {@code live}, or null for both
   */
  public List<NegativeBalance> list(Connection connection, String environment, int limit)
      throws SQLException {
    List<NegativeBalance> negative = new ArrayList<>();
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT a.merchant_id, a.environment, a.currency, a.balance,"
                + " (SELECT min(p.recorded_at) FROM postings p WHERE p.account_id = a.id"
                + "   AND p.id > COALESCE((SELECT max(q.id) FROM postings q"
                + "                         WHERE q.account_id = a.id AND q.balance_after >= 0),"
                + "                        0))"
                + " FROM accounts a"
                + " WHERE a.code = 'merchant_available' AND a.balance < 0"
                + "   AND (?::text IS NULL OR a.environment = ?::text)"
                + " ORDER BY a.balance, a.merchant_id, a.environment, a.currency LIMIT ?")) {
      select.setString(1, environment);
      select.setString(2, environment);
      select.setInt(3, limit);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          negative.add(
              new NegativeBalance(
                  rs.getString(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getBigDecimal(4),
                  rs.getTimestamp(5).toInstant()));
        }
      }
    }
    return negative;
  }
}
