package ph.payments.platform.tx;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** {@link Transactions} over a plain {@link DataSource}; one connection per transaction. */
public final class JdbcTransactions implements Transactions {

  private final DataSource dataSource;

  public JdbcTransactions(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public <T> T inTransaction(SqlWork<T> work) {
    return AfterCommit.around(() -> transaction(work));
  }

  private <T> T transaction(SqlWork<T> work) {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try {
        T result = work.run(connection);
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException | Error e) {
        connection.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new TransactionFailedException(e);
    }
  }

  @Override
  public <T> T autoCommitted(SqlWork<T> work) {
    return AfterCommit.around(() -> statement(work));
  }

  private <T> T statement(SqlWork<T> work) {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(true);
      return work.run(connection);
    } catch (SQLException e) {
      throw new TransactionFailedException(e);
    }
  }
}
