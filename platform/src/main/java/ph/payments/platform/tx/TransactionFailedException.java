package ph.payments.platform.tx;

import java.sql.SQLException;

/** The database refused or lost a transaction; nothing of it was committed. */
public final class TransactionFailedException extends RuntimeException {

  public TransactionFailedException(SQLException cause) {
    super(cause.getMessage(), cause);
  }

  /** The SQLSTATE of the failure, e.g. {@code 23505} for a unique violation. */
  public String sqlState() {
    return ((SQLException) getCause()).getSQLState();
  }

  /**
   * Whether a failure with this SQLSTATE is the database's own rather than something a statement or
   * its data caused: a connection failure (class 08), missing resources (53), an operator's
   * intervention such as a shutdown (57), a system error (58), or no SQLSTATE at all. Work that
   * failed so would only fail again if retried piece by piece.
   */
  public static boolean databaseAway(String sqlState) {
    return sqlState == null || sqlState.matches("08...|5[378]...");
  }
}
