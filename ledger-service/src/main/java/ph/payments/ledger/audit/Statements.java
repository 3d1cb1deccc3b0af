package ph.payments.ledger.audit;

import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * A merchant's statement: every posting on the merchant's accounts of one environment (optionally
 * one currency) recorded in a period, as CSV, oldest first. Columns:
 *
 * <pre>
 * posted_at,effective_at,posting_id,transaction_id,kind,reference,event_id,account,currency,amount,balance_after
 * </pre>
 *
 * {@code posted_at} is when the ledger recorded the posting (the period filters on it, so a closed
 * period's statement never changes), {@code effective_at} when the fact happened; times are ISO
 * 8601 UTC. {@code amount} is signed (credit positive), {@code balance_after} the account's balance
 * right after the posting, so the first line of an account gives its opening balance ({@code
 * balance_after − amount}) and the last its closing balance.
 */
@Singleton
public class Statements {

  public static final String HEADER =
      "posted_at,effective_at,posting_id,transaction_id,kind,reference,event_id,account,currency,"
          + "amount,balance_after\n";

  /**
   * @param currency null for every currency
   * @param from inclusive
   * @param to exclusive
   */
  public String csv(
      Connection connection,
      String merchantId,
      String environment,
      String currency,
      Instant from,
      Instant to)
      throws SQLException {
    StringBuilder csv = new StringBuilder(HEADER);
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT p.recorded_at, t.effective_at, p.id, t.id, t.kind, t.reference, t.event_id,"
                + " a.code, a.currency, p.amount, p.balance_after"
                + " FROM accounts a"
                + " JOIN postings p ON p.account_id = a.id"
                + " JOIN journal_transactions t ON t.id = p.transaction_id"
                + " WHERE a.merchant_id = ? AND a.environment = ?"
                + " AND (?::text IS NULL OR a.currency = ?)"
                + " AND p.recorded_at >= ? AND p.recorded_at < ?"
                + " ORDER BY p.id")) {
      select.setFetchSize(1_000);
      select.setString(1, merchantId);
      select.setString(2, environment);
      select.setString(3, currency);
      select.setString(4, currency);
      select.setTimestamp(5, Timestamp.from(from));
      select.setTimestamp(6, Timestamp.from(to));
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          csv.append(time(rs.getTimestamp(1))).append(',');
          csv.append(time(rs.getTimestamp(2))).append(',');
          csv.append(rs.getLong(3)).append(',');
          csv.append(rs.getLong(4)).append(',');
          csv.append(field(rs.getString(5))).append(',');
          csv.append(field(rs.getString(6))).append(',');
          csv.append(field(rs.getString(7))).append(',');
          csv.append(field(rs.getString(8))).append(',');
          csv.append(field(rs.getString(9))).append(',');
          csv.append(plain(rs.getBigDecimal(10))).append(',');
          csv.append(plain(rs.getBigDecimal(11))).append('\n');
        }
      }
    }
    return csv.toString();
  }

  private static String time(Timestamp timestamp) {
    return timestamp.toInstant().truncatedTo(ChronoUnit.MILLIS).toString();
  }

  private static String plain(BigDecimal amount) {
    return amount.toPlainString();
  }

  /** RFC 4180 quoting, for the day a value contains a comma, quote or line break. */
  static String field(String value) {
    if (value == null) {
      return "";
    }
    if (value.indexOf(',') < 0
        && value.indexOf('"') < 0
        && value.indexOf('\n') < 0
        && value.indexOf('\r') < 0) {
      return value;
    }
    return '"' + value.replace("\"", "\"\"") + '"';
  }
}
