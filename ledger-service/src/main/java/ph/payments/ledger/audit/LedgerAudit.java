package ph.payments.ledger.audit;

import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import ph.payments.ledger.holds.domain.PayoutHold;
import ph.payments.ledger.holds.persistence.JdbcHolds;
import ph.payments.platform.tx.Transactions;

/**
 * Recomputes every balance from the postings and compares it with the maintained one, on one
 * consistent snapshot of the ledger (a repeatable-read, read-only transaction), so concurrent
 * postings never show up as false differences.
 *
 * <p>Checks: each account's balance equals the sum of its postings and its last posting's {@code
 * balance_after}; each journal transaction sums to zero; all postings of an environment and
 * currency sum to zero; each merchant's payouts-in-flight balance equals the sum of its payouts
 * still held. Anomalies (events the ledger could not apply) and holds held for over an hour
 * (payouts waiting for a cut-off, or orphans payments-service's reconciler will release) are
 * reported beside.
 */
@Singleton
public class LedgerAudit {

  /** How many of the newest anomalies a report lists. */
  static final int RECENT_ANOMALIES = 20;

  /**
   * A hold still {@code held} after this long is listed as an old hold: a payout on the batch rail
   * may wait for its cut-off that long, but a hold whose payout was never created (an orphan) stays
   * held until payments-service's reconciler releases it, so the list is where an operator sees
   * both.
   */
  static final Duration OLD_HOLD_AGE = Duration.ofHours(1);

  /** How many of the oldest such holds a report lists. */
  static final int OLD_HOLDS = 20;

  private final Transactions transactions;
  private final JdbcAnomalies anomalies;
  private final JdbcHolds holds;
  private final Clock clock;

  public LedgerAudit(
      Transactions transactions, JdbcAnomalies anomalies, JdbcHolds holds, Clock clock) {
    this.transactions = transactions;
    this.anomalies = anomalies;
    this.holds = holds;
    this.clock = clock;
  }

  /** An account whose maintained balance is not what its postings say. */
  public record BalanceDifference(
      long accountId,
      String code,
      String merchantId,
      String environment,
      String currency,
      BigDecimal balance,
      BigDecimal sumOfPostings,
      BigDecimal lastBalanceAfter) {}

  /** A journal transaction whose postings do not sum to zero. */
  public record UnbalancedTransaction(
      long transactionId, String kind, String reference, BigDecimal sum) {}

  /** All postings of one environment and currency. */
  public record Total(
      String environment, String currency, BigDecimal sumOfPostings, long postings) {}

  /** A merchant whose payouts-in-flight balance is not the sum of its held payouts. */
  public record InFlightDifference(
      String merchantId,
      String environment,
      String currency,
      BigDecimal inFlightBalance,
      BigDecimal heldPayouts) {}

  /** The whole report. {@code consistent}: every check passed; {@code ok}: and no anomalies. */
  public record Report(
      Instant checkedAt,
      long accounts,
      long transactions,
      long postings,
      List<BalanceDifference> balanceDifferences,
      List<UnbalancedTransaction> unbalancedTransactions,
      List<Total> totals,
      List<InFlightDifference> inFlightDifferences,
      long anomalyCount,
      List<JdbcAnomalies.Anomaly> recentAnomalies,
      List<PayoutHold> oldHolds) {

    public boolean consistent() {
      return balanceDifferences.isEmpty()
          && unbalancedTransactions.isEmpty()
          && inFlightDifferences.isEmpty()
          && totals.stream().allMatch(t -> t.sumOfPostings().signum() == 0);
    }

    public boolean ok() {
      return consistent() && anomalyCount == 0;
    }
  }

  public Report run() {
    return transactions.inTransaction(
        c -> {
          try (Statement snapshot = c.createStatement()) {
            snapshot.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
          }
          return new Report(
              clock.instant(),
              count(c, "accounts"),
              count(c, "journal_transactions"),
              count(c, "postings"),
              balanceDifferences(c),
              unbalancedTransactions(c),
              totals(c),
              inFlightDifferences(c),
              anomalies.count(c),
              anomalies.recent(c, RECENT_ANOMALIES),
              holds.heldBefore(c, clock.instant().minus(OLD_HOLD_AGE), null, OLD_HOLDS));
        });
  }

  private static long count(Connection c, String table) throws SQLException {
    try (PreparedStatement select = c.prepareStatement("SELECT count(*) FROM " + table);
        ResultSet rs = select.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static List<BalanceDifference> balanceDifferences(Connection c) throws SQLException {
    List<BalanceDifference> differences = new ArrayList<>();
    try (PreparedStatement select =
            c.prepareStatement(
                "SELECT a.id, a.code, a.merchant_id, a.environment, a.currency, a.balance,"
                    + " COALESCE(p.total, 0), COALESCE(l.balance_after, 0)"
                    + " FROM accounts a"
                    + " LEFT JOIN (SELECT account_id, sum(amount) AS total FROM postings"
                    + "            GROUP BY account_id) p ON p.account_id = a.id"
                    + " LEFT JOIN (SELECT DISTINCT ON (account_id) account_id, balance_after"
                    + "            FROM postings ORDER BY account_id, id DESC) l"
                    + "   ON l.account_id = a.id"
                    + " WHERE a.balance <> COALESCE(p.total, 0)"
                    + "    OR a.balance <> COALESCE(l.balance_after, 0)"
                    + " ORDER BY a.id");
        ResultSet rs = select.executeQuery()) {
      while (rs.next()) {
        differences.add(
            new BalanceDifference(
                rs.getLong(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                rs.getBigDecimal(6),
                rs.getBigDecimal(7),
                rs.getBigDecimal(8)));
      }
    }
    return differences;
  }

  private static List<UnbalancedTransaction> unbalancedTransactions(Connection c)
      throws SQLException {
    List<UnbalancedTransaction> unbalanced = new ArrayList<>();
    try (PreparedStatement select =
            c.prepareStatement(
                "SELECT t.id, t.kind, t.reference, COALESCE(sum(p.amount), 0)"
                    + " FROM journal_transactions t LEFT JOIN postings p ON p.transaction_id = t.id"
                    + " GROUP BY t.id HAVING COALESCE(sum(p.amount), 0) <> 0 OR count(p.id) < 2"
                    + " ORDER BY t.id");
        ResultSet rs = select.executeQuery()) {
      while (rs.next()) {
        unbalanced.add(
            new UnbalancedTransaction(
                rs.getLong(1), rs.getString(2), rs.getString(3), rs.getBigDecimal(4)));
      }
    }
    return unbalanced;
  }

  private static List<Total> totals(Connection c) throws SQLException {
    List<Total> totals = new ArrayList<>();
    try (PreparedStatement select =
            c.prepareStatement(
                "SELECT a.environment, a.currency, sum(p.amount), count(*)"
                    + " FROM postings p JOIN accounts a ON a.id = p.account_id"
                    + " GROUP BY a.environment, a.currency ORDER BY a.environment, a.currency");
        ResultSet rs = select.executeQuery()) {
      while (rs.next()) {
        totals.add(new Total(rs.getString(1), rs.getString(2), rs.getBigDecimal(3), rs.getLong(4)));
      }
    }
    return totals;
  }

  private static List<InFlightDifference> inFlightDifferences(Connection c) throws SQLException {
    List<InFlightDifference> differences = new ArrayList<>();
    try (PreparedStatement select =
            c.prepareStatement(
                "SELECT COALESCE(a.merchant_id, h.merchant_id),"
                    + " COALESCE(a.environment, h.environment), COALESCE(a.currency, h.currency),"
                    + " COALESCE(a.balance, 0), COALESCE(h.held, 0)"
                    + " FROM (SELECT merchant_id, environment, currency, balance FROM accounts"
                    + "       WHERE code = 'merchant_payouts_in_flight') a"
                    + " FULL JOIN (SELECT merchant_id, environment, currency, sum(amount) AS held"
                    + "            FROM payout_holds WHERE status = 'held'"
                    + "            GROUP BY merchant_id, environment, currency) h"
                    + "   ON h.merchant_id = a.merchant_id AND h.environment = a.environment"
                    + "  AND h.currency = a.currency"
                    + " WHERE COALESCE(a.balance, 0) <> COALESCE(h.held, 0)"
                    + " ORDER BY 1, 2, 3");
        ResultSet rs = select.executeQuery()) {
      while (rs.next()) {
        differences.add(
            new InFlightDifference(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                rs.getBigDecimal(4),
                rs.getBigDecimal(5)));
      }
    }
    return differences;
  }
}
