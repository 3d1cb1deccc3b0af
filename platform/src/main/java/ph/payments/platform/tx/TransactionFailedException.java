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
}
