package ph.payments.platform.micronaut;

import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.tx.Transactions;

/**
 * One row of numbers read by a query, for gauges: a scrape reads several gauges of one query, so
 * the row is kept for {@code maxAge} and read again only when older. While the database cannot be
 * read the gauges show NaN (Prometheus drops the sample) rather than a stale or made-up number.
 */
public final class SqlSnapshot {

  private static final Logger log = LoggerFactory.getLogger(SqlSnapshot.class);

  private final Transactions transactions;
  private final String sql;
  private final double[] values;
  private final long maxAgeNanos;
  private long readAt;
  private boolean read;

  /**
   * @param sql a query that returns one row of {@code columns} numeric columns
   */
  public SqlSnapshot(Transactions transactions, String sql, int columns, Duration maxAge) {
    this.transactions = transactions;
    this.sql = sql;
    this.values = new double[columns];
    this.maxAgeNanos = maxAge.toNanos();
  }

  /** Column {@code index} (0-based) of the row, read again when older than the maximum age. */
  public synchronized double value(int index) {
    long now = System.nanoTime();
    if (!read || now - readAt > maxAgeNanos) {
      refresh();
      readAt = now;
      read = true;
    }
    return values[index];
  }

  private void refresh() {
    try {
      double[] read =
          transactions.inTransaction(
              connection -> {
                try (Statement statement = connection.createStatement()) {
                  statement.setQueryTimeout(5);
                  try (ResultSet rs = statement.executeQuery(sql)) {
                    rs.next();
                    double[] row = new double[values.length];
                    for (int i = 0; i < row.length; i++) {
                      row[i] = rs.getDouble(i + 1);
                    }
                    return row;
                  }
                }
              });
      System.arraycopy(read, 0, values, 0, values.length);
    } catch (RuntimeException e) {
      log.debug("metrics query failed: {}", e.toString());
      Arrays.fill(values, Double.NaN);
    }
  }
}
