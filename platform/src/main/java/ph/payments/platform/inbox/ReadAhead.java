package ph.payments.platform.inbox;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A read that applying a poll's messages makes once a message, made instead for all of them in the
 * round trip that records them in the inbox ({@link
 * IdempotentConsumer#recordAll(java.sql.Connection, String, java.util.Collection,
 * java.util.List)}): its SELECT goes to the database in the same message as the inbox's statement,
 * so a poll of n messages pays no round trip for it where it paid n. The commands' handlers make a
 * fresh one for each poll ({@code CommandHandler#readAhead}), which keeps the rows it read, and get
 * it back with each command they apply.
 *
 * <p>The SELECT runs in the poll's transaction before any command of the poll is applied, so it
 * must not read what an earlier command of the same poll may write: the handler reads nothing ahead
 * for a poll that holds such a command.
 */
public interface ReadAhead {

  /** One SELECT, without a terminating semicolon; its parameters are bound by {@link #bind}. */
  String sql();

  /**
   * Binds the SELECT's parameters, the first of them at index {@code first} of {@code statement}
   * (the inbox's parameters come before it).
   *
   * @return how many parameters it bound
   */
  int bind(PreparedStatement statement, int first) throws SQLException;

  /** Takes the SELECT's rows, all of them, before any command of the poll is applied. */
  void read(ResultSet rows) throws SQLException;
}
