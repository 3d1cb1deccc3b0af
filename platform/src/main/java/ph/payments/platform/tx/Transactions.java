package ph.payments.platform.tx;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Runs work in one database transaction: committed when the work returns, rolled back when it
 * throws. Implemented over Micronaut's transaction manager in services (so repositories join the
 * same transaction) and over a plain {@code DataSource} in tests of this library.
 */
public interface Transactions {

  <T> T inTransaction(SqlWork<T> work);

  /**
   * Runs {@code work}, which issues a single statement, in auto-commit mode: the statement is its
   * own transaction, as atomic as any, and costs one round trip to the database where a transaction
   * around it costs two (the driver sends {@code BEGIN} with the statement, then the commit). This
   * default runs it in a transaction, which is equally correct.
   */
  default <T> T autoCommitted(SqlWork<T> work) {
    return inTransaction(work);
  }

  /**
   * Refuses to go on outside a transaction: the outbox and the inbox are only correct when their
   * rows commit together with the state change they belong to.
   *
   * @throws IllegalStateException when {@code connection} is in auto-commit mode
   */
  static void requireTransaction(Connection connection) throws SQLException {
    if (connection.getAutoCommit()) {
      throw new IllegalStateException(
          "must run inside the caller's transaction (connection is in auto-commit mode)");
    }
  }
}
