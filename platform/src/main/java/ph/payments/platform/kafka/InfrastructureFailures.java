package ph.payments.platform.kafka;

import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.Set;
import ph.payments.platform.errors.TransientFailure;

/**
 * Tells a failure of the infrastructure (the database away or overloaded, a serialization failure
 * or a deadlock, a service the handler depends on not answering ({@link TransientFailure}):
 * retrying later succeeds) from a failure of the record itself. Only the latter may count towards
 * parking a record: while the database refuses connections every record fails, and none of them is
 * to blame.
 */
public final class InfrastructureFailures {

  /**
   * SQLState classes about the server, never about one record: 08 connection exception, 28
   * authorization (a password rotated under us), 3D database missing, 53 insufficient resources
   * (too many connections), 55 object not in prerequisite state ("database is not currently
   * accepting connections", lock not available), 58 system error (I/O).
   */
  private static final Set<String> CLASSES = Set.of("08", "28", "3D", "53", "55", "58");

  /**
   * Single states: serialization failure and deadlock (retry succeeds), and the shutdown states of
   * class 57 (administrator, crash or cannot-connect-now). 57014 (a statement cancelled by its
   * timeout) is left out on purpose: a query that always times out is the record's problem.
   */
  private static final Set<String> STATES =
      Set.of("40001", "40P01", "57P01", "57P02", "57P03", "57P04", "57P05");

  /** True when something in the cause chain of {@code failure} says the infrastructure failed. */
  public static boolean isInfrastructure(Throwable failure) {
    Throwable cause = failure;
    for (int depth = 0; cause != null && depth < 32; depth++, cause = cause.getCause()) {
      if (cause instanceof TransientFailure) {
        return true; // a service the handler depends on did not answer
      }
      if (cause instanceof SQLTransientException || cause instanceof SQLRecoverableException) {
        return true; // includes a pool timing out waiting for a connection
      }
      if (cause instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        if (STATES.contains(state)
            || (state.length() == 5 && CLASSES.contains(state.substring(0, 2)))) {
          return true;
        }
      }
      if (cause instanceof SocketException || cause instanceof SocketTimeoutException) {
        return true;
      }
      // Micronaut's transaction manager names a connection it could not get without always
      // keeping an SQLState on the cause.
      if (cause.getClass().getSimpleName().startsWith("CannotGetJdbcConnection")
          || cause.getClass().getSimpleName().startsWith("CannotCreateTransaction")) {
        return true;
      }
    }
    return false;
  }

  private InfrastructureFailures() {}
}
