package ph.payments.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * Runs a sample class through the Jupiter engine to check when {@link FreshDatabase} drops the
 * database: after the class, and after every other {@code afterAll}, including one that runs after
 * FreshDatabase's own (as Micronaut's context shutdown does when declared before it).
 */
class FreshDatabaseIT {

  static volatile String databaseName;
  static volatile Connection pool;
  static volatile Throwable stillUsableFailure;
  static volatile boolean stillUsableChecked;

  @Test
  void dropsTheDatabaseAfterEveryAfterAll() throws SQLException {
    EngineTestKit.engine("junit-jupiter")
        .selectors(selectClass(SampleWithDatabase.class))
        .execute()
        .allEvents()
        .assertStatistics(stats -> stats.failed(0));

    assertNotNull(databaseName, "the sample test ran");
    assertEquals(true, stillUsableChecked, "the late afterAll ran");
    assertEquals(null, stillUsableFailure, "database was usable in the late afterAll");
    assertFalse(TestDatabaseIT.exists(databaseName), "database dropped after the class");
  }

  /** Declared first, so its afterAll runs last: it plays the Micronaut context shutdown. */
  static final class ClosesThePoolLate implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) throws Exception {
      stillUsableChecked = true;
      try (Connection connection = pool;
          Statement statement = connection.createStatement()) {
        statement.execute("INSERT INTO marker VALUES (2)");
      } catch (Throwable e) {
        stillUsableFailure = e;
      }
    }
  }

  @ExtendWith(ClosesThePoolLate.class)
  @ExtendWith(FreshDatabase.class)
  static class SampleWithDatabase {
    @Test
    void usesTheDatabase() throws SQLException {
      TestDatabase database = TestDatabase.forClass(SampleWithDatabase.class);
      databaseName = database.name();
      pool = database.dataSource().getConnection();
      try (Statement statement = pool.createStatement()) {
        statement.execute("CREATE TABLE marker (id int)");
        statement.execute("INSERT INTO marker VALUES (1)");
      }
    }
  }
}
