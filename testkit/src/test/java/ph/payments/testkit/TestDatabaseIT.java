package ph.payments.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TestDatabaseIT {

  @Test
  void createsWritesAndDrops() throws SQLException {
    TestDatabase database = TestDatabase.create("TestDatabaseIT");
    assertTrue(database.name().matches("t_testdatabaseit_[0-9a-f]{8}"), database.name());
    assertEquals("jdbc:postgresql://127.0.0.1:5432/" + database.name(), database.jdbcUrl());
    assertTrue(exists(database.name()));

    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE payment (id bigint PRIMARY KEY, amount numeric NOT NULL)");
      statement.execute("INSERT INTO payment VALUES (1, 12.50), (2, 7.25)");
      try (ResultSet sum = statement.executeQuery("SELECT sum(amount) FROM payment")) {
        assertTrue(sum.next());
        assertEquals("19.75", sum.getBigDecimal(1).toPlainString());
      }
    }

    // A connection left open must not stop the drop (what a forgotten pool looks like).
    Connection leftOpen =
        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
    database.close();
    assertTrue(leftOpen.isClosed() || !leftOpen.isValid(2), "FORCE ends open connections");
    leftOpen.close();

    assertFalse(exists(database.name()), "database still in pg_database");
    assertTrue(database.isClosed());
    database.close(); // idempotent
  }

  @Test
  void namesAreSanitised() {
    assertEquals("my_fancy_test_class", TestDatabase.sanitise("  My Fancy-Test.Class!! "));
    assertEquals("db", TestDatabase.sanitise("$$$"));
    assertEquals("db", TestDatabase.sanitise(null));
    String longHint = "a".repeat(29) + "_b_more_text_here";
    assertEquals("a".repeat(29), TestDatabase.sanitise(longHint), "no trailing underscore");
    assertEquals(30, TestDatabase.sanitise("x".repeat(50)).length());
  }

  @Test
  void forClassIsOnePerClassUntilDropped() throws SQLException {
    TestDatabase first = TestDatabase.forClass(Sample.class);
    assertSame(first, TestDatabase.forClass(Sample.class));
    assertTrue(first.name().startsWith("t_sample_"), first.name());

    TestDatabase.closeForClass(Sample.class);
    assertFalse(exists(first.name()));

    TestDatabase second = TestDatabase.forClass(Sample.class);
    assertNotSame(first, second);
    assertTrue(exists(second.name()));
    TestDatabase.closeForClass(Sample.class);
    assertFalse(exists(second.name()));
  }

  @Test
  void anUnreachableServerIsExplained() {
    var nowhere = new TestDatabase.Server("127.0.0.1", 1, "postgres", "");
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> TestDatabase.create("x", nowhere));
    assertTrue(
        e.getMessage().startsWith("PostgreSQL not reachable at 127.0.0.1:1 as user postgres"),
        e.getMessage());
    assertTrue(e.getMessage().contains("pg_ctlcluster"), e.getMessage());
  }

  @Test
  void aForgottenDatabaseIsDroppedAtExit() throws Exception {
    // A separate JVM creates a database, never closes it, and exits.
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Forgetful.class.getName())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String name = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child JVM exited");
    assertEquals(0, child.exitValue());
    assertTrue(name.startsWith("t_forgetful_"), name);
    assertFalse(exists(name), name + " left behind");
  }

  /** Run by {@link #aForgottenDatabaseIsDroppedAtExit} in its own JVM. */
  static final class Forgetful {
    public static void main(String[] args) throws SQLException {
      TestDatabase database = TestDatabase.create("forgetful");
      if (!exists(database.name())) {
        throw new IllegalStateException("not created");
      }
      System.out.println(database.name());
    }
  }

  private static final class Sample {}

  /** Asks the server itself, not the fixture. */
  static boolean exists(String name) throws SQLException {
    try (Connection connection =
            DriverManager.getConnection(
                "jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
        PreparedStatement query =
            connection.prepareStatement("SELECT count(*) FROM pg_database WHERE datname = ?")) {
      query.setString(1, name);
      try (ResultSet result = query.executeQuery()) {
        result.next();
        return result.getInt(1) == 1;
      }
    }
  }
}
