package ph.payments.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL database of its own for one test class, created empty and dropped afterwards.
 *
 * <p>The server comes from {@code TEST_PG_HOST} (default {@code 127.0.0.1}), {@code TEST_PG_PORT}
 * ({@code 5432}), {@code TEST_PG_USER} ({@code postgres}) and {@code TEST_PG_PASSWORD} (empty),
 * each read as a system property or an environment variable. The user needs {@code CREATEDB}.
 *
 * <p>A database is dropped by {@link #close()}, by {@link FreshDatabase} after its test class, or
 * at the latest by a JVM shutdown hook, so a test that forgets does not leave databases behind.
 * Names start with {@code t_}; anything left by a killed JVM can be found by that prefix.
 *
 * <p>Typical use from a Micronaut test:
 *
 * <pre>{@code
 * @MicronautTest
 * @ExtendWith(FreshDatabase.class)
 * @TestInstance(TestInstance.Lifecycle.PER_CLASS)
 * class PaymentRepositoryTest implements TestPropertyProvider {
 *   public Map<String, String> getProperties() {
 *     TestDatabase db = TestDatabase.forClass(getClass());
 *     return Map.of(
 *         "datasources.default.url", db.jdbcUrl(),
 *         "datasources.default.username", db.user(),
 *         "datasources.default.password", db.password());
 *   }
 * }
 * }</pre>
 */
public final class TestDatabase implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TestDatabase.class);

  private static final int MAX_HINT_LENGTH = 30;

  /** Every database created and not yet dropped, for the shutdown hook. */
  private static final Set<TestDatabase> OPEN = ConcurrentHashMap.newKeySet();

  private static final Map<Class<?>, TestDatabase> BY_CLASS = new ConcurrentHashMap<>();

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(TestDatabase::dropAllOpen, "test-database-cleanup"));
  }

  private final Server server;
  private final String name;
  private final PGSimpleDataSource dataSource;
  private boolean closed;

  private TestDatabase(Server server, String name) {
    this.server = server;
    this.name = name;
    this.dataSource = new PGSimpleDataSource();
    dataSource.setURL(jdbcUrl());
    dataSource.setUser(server.user());
    dataSource.setPassword(server.password());
  }

  /**
   * Creates an empty database named {@code t_<hint>_<8 hex digits>}, the hint lower-cased, cut to
   * 30 characters and reduced to letters, digits and underscores.
   *
   * @throws IllegalStateException when PostgreSQL cannot be reached or refuses to create it
   */
  public static TestDatabase create(String hint) {
    return create(hint, Server.fromSettings());
  }

  /**
   * The database of a test class: created on the first call, the same instance on every later call
   * until {@link FreshDatabase} (or {@link #close()}) drops it, a new one after that.
   */
  public static TestDatabase forClass(Class<?> testClass) {
    return BY_CLASS.compute(
        testClass,
        (type, current) ->
            current == null || current.isClosed() ? create(type.getSimpleName()) : current);
  }

  /** Drops the database {@link #forClass} made for the class, if there is one. */
  static void closeForClass(Class<?> testClass) {
    TestDatabase database = BY_CLASS.remove(testClass);
    if (database != null) {
      database.close();
    }
  }

  static TestDatabase create(String hint, Server server) {
    String name = "t_" + sanitise(hint) + "_" + randomHex();
    try (Connection connection = server.connectToMaintenanceDatabase();
        Statement statement = connection.createStatement()) {
      // The name is made of [a-z0-9_] only, so it is safe to inline (DDL takes no parameters).
      statement.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("Could not create database " + name + ": " + e, e);
    }
    TestDatabase database = new TestDatabase(server, name);
    OPEN.add(database);
    LOG.debug("Created database {}", name);
    return database;
  }

  static String sanitise(String hint) {
    String cleaned =
        (hint == null ? "" : hint)
            .toLowerCase(Locale.ROOT)
            .replaceAll("[^a-z0-9]+", "_")
            .replaceAll("^_+|_+$", "");
    if (cleaned.length() > MAX_HINT_LENGTH) {
      cleaned = cleaned.substring(0, MAX_HINT_LENGTH).replaceAll("_+$", "");
    }
    return cleaned.isEmpty() ? "db" : cleaned;
  }

  private static String randomHex() {
    return String.format("%08x", ThreadLocalRandom.current().nextInt());
  }

  public String name() {
    return name;
  }

  /** {@code jdbc:postgresql://host:port/name}. */
  public String jdbcUrl() {
    return server.jdbcUrl(name);
  }

  public String user() {
    return server.user();
  }

  /** The password, empty (not null) under trust authentication. */
  public String password() {
    return server.password();
  }

  /** A non-pooling data source for this database; every call returns the same one. */
  public PGSimpleDataSource dataSource() {
    return dataSource;
  }

  public synchronized boolean isClosed() {
    return closed;
  }

  /**
   * Drops the database, closing any connection still open to it (PostgreSQL 13+ {@code FORCE}).
   * Calling it again does nothing. If the drop fails the database counts as open, so the shutdown
   * hook tries once more.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    try (Connection connection = server.connectToMaintenanceDatabase();
        Statement statement = connection.createStatement()) {
      dropReplicationSlots(statement);
      statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    } catch (SQLException e) {
      throw new IllegalStateException("Could not drop database " + name + ": " + e, e);
    }
    closed = true;
    OPEN.remove(this);
    LOG.debug("Dropped database {}", name);
  }

  /**
   * A logical outbox leaves a replication slot on its database. {@code DROP DATABASE} drops a
   * database's slots with it but refuses while one is being read, so a reader still connected is
   * ended and the slots dropped first.
   */
  private void dropReplicationSlots(Statement statement) throws SQLException {
    String slots = "FROM pg_replication_slots WHERE database = '" + name + "'";
    statement.execute("SELECT pg_terminate_backend(active_pid) " + slots + " AND active");
    for (int attempt = 0; attempt < 50; attempt++) {
      try {
        statement.execute("SELECT pg_drop_replication_slot(slot_name) " + slots);
        return;
      } catch (SQLException stillActive) {
        try {
          Thread.sleep(100); // the terminated reader lets go of its slot
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw stillActive;
        }
      }
    }
  }

  @Override
  public String toString() {
    return "TestDatabase[" + jdbcUrl() + (isClosed() ? ", dropped]" : "]");
  }

  private static void dropAllOpen() {
    for (TestDatabase database : List.copyOf(OPEN)) {
      try {
        database.close();
      } catch (RuntimeException e) {
        // Logging may already be shut down this late; stderr always works.
        System.err.println("testkit: " + e.getMessage());
      }
    }
  }

  /** Where the databases live. Package-private so tests can point at a server that is down. */
  record Server(String host, int port, String user, String password) {

    static Server fromSettings() {
      String port = Settings.get("TEST_PG_PORT", "5432");
      try {
        return new Server(
            Settings.get("TEST_PG_HOST", "127.0.0.1"),
            Integer.parseInt(port),
            Settings.get("TEST_PG_USER", "postgres"),
            // Not Settings.get: an empty password is a value here, and trimming would alter one.
            passwordSetting());
      } catch (NumberFormatException e) {
        throw new IllegalStateException("TEST_PG_PORT is not a number: " + port, e);
      }
    }

    private static String passwordSetting() {
      String value = System.getProperty("TEST_PG_PASSWORD");
      if (value == null) {
        value = System.getenv("TEST_PG_PASSWORD");
      }
      return value == null ? "" : value;
    }

    String jdbcUrl(String database) {
      // An IPv6 literal needs brackets in a URL.
      String hostPart = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
      return "jdbc:postgresql://" + hostPart + ":" + port + "/" + database;
    }

    Connection connectToMaintenanceDatabase() {
      Properties properties = new Properties();
      properties.setProperty("user", user);
      properties.setProperty("password", password);
      // Fail in seconds, not the driver's default, when the host swallows packets.
      properties.setProperty("connectTimeout", "5");
      properties.setProperty("ApplicationName", "testkit");
      try {
        return DriverManager.getConnection(jdbcUrl("postgres"), properties);
      } catch (SQLException e) {
        throw new IllegalStateException(
            String.format(
                "PostgreSQL not reachable at %s:%d as user %s (%s); start it with"
                    + " `pg_ctlcluster --skip-systemctl-redirect 15 main start`, or point"
                    + " TEST_PG_HOST, TEST_PG_PORT, TEST_PG_USER and TEST_PG_PASSWORD at a running"
                    + " server",
                host, port, user, e.getMessage()),
            e);
      }
    }
  }
}
