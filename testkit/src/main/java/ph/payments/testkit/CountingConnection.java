package ph.payments.testkit;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A connection that counts the statements prepared or created on it, for tests that hold how many
 * statements a piece of work takes (a set-based consumer: as many for a poll of 200 as for one).
 */
public final class CountingConnection {

  /**
   * {@code connection}, adding one to {@code statements} for each {@code prepareStatement}, {@code
   * prepareCall} or {@code createStatement}; everything else goes straight through.
   */
  public static Connection wrap(Connection connection, AtomicInteger statements) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              if (method.getName().startsWith("prepare")
                  || method.getName().equals("createStatement")) {
                statements.incrementAndGet();
              }
              try {
                return method.invoke(connection, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private CountingConnection() {}
}
