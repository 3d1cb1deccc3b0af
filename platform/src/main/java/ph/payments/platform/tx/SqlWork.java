package ph.payments.platform.tx;

import java.sql.Connection;
import java.sql.SQLException;

/** Work done on the connection of the surrounding transaction. */
@FunctionalInterface
public interface SqlWork<T> {

  T run(Connection connection) throws SQLException;
}
