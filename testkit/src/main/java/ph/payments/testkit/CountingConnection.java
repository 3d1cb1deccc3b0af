package ph.payments.testkit;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A connection that counts the statements prepared or created on it, for tests that hold how many
 * statements a piece of work takes (a set-based consumer: as many for a poll of 200 as for one), or
 * records their SQL, for tests that hold which statement reads what.
 */
public final class CountingConnection {

  /**
   * {@code connection}, adding one to {@code statements} for each {@code prepareStatement}, {@code
   * prepareCall} or {@code createStatement}; everything else goes straight through.
   */
  public static Connection wrap(Connection connection, AtomicInteger statements) {
    return watching(connection, sql -> statements.incrementAndGet());
  }

  /**
   * {@code connection}, adding to {@code statements} the SQL of each statement prepared on it, in
   * order ({@code createStatement}: an empty string); everything else goes straight through.
   */
  public static Connection recording(Connection connection, List<String> statements) {
    return watching(connection, statements::add);
  }

  private static Connection watching(Connection connection, Consumer<String> statement) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              if (method.getName().startsWith("prepare")) {
                statement.accept((String) args[0]);
              } else if (method.getName().equals("createStatement")) {
                statement.accept("");
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
