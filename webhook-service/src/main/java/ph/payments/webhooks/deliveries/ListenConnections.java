package ph.payments.webhooks.deliveries;

import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Physical connections outside the pool, for LISTEN: a listening session must stay with its owner
 * and never go back into a pool.
 */
public final class ListenConnections {

  private final PGSimpleDataSource source = new PGSimpleDataSource();

  public ListenConnections(String url, String user, String password) {
    source.setURL(url);
    if (user != null && !user.isEmpty()) {
      source.setUser(user);
    }
    if (password != null && !password.isEmpty()) {
      source.setPassword(password);
    }
    source.setTcpKeepAlive(true);
    source.setApplicationName("webhook-scheduler");
  }

  public Connection open() throws SQLException {
    Connection connection = source.getConnection();
    connection.setAutoCommit(true);
    return connection;
  }
}
