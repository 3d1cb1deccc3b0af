package ph.payments.platform.tx;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.postgresql.PGStatement;

/**
 * Statements whose best plan depends on how large their tables are now.
 *
 * <p>The driver prepares a statement on its connection after a few executions, and PostgreSQL then
 * settles on a generic plan for it, one made without the parameters and kept for the connection's
 * life. A plan made while a table was nearly empty (a sequential scan, a hash join of two of them)
 * is only replaced when an {@code ANALYZE} of the table invalidates it; where none runs (autovacuum
 * off), it reads the whole table on every execution once the table has grown. Connections live for
 * half an hour in the pools and as long as an outbox relay leads, and the tables these statements
 * read grow by hundreds of rows a second.
 */
public final class Statements {

  private Statements() {}

  /**
   * A statement PostgreSQL plans at each execution, for its parameters and its tables as they are
   * then: the driver's unnamed statement, never prepared on the connection. Planning costs about a
   * tenth of a millisecond; keep this to statements that run once per batch of work, not per poll.
   */
  public static PreparedStatement plannedEachTime(Connection connection, String sql)
      throws SQLException {
    PreparedStatement statement = connection.prepareStatement(sql);
    statement.unwrap(PGStatement.class).setPrepareThreshold(0);
    return statement;
  }
}
