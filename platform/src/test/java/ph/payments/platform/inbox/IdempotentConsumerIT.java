package ph.payments.platform.inbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.outbox.Fixtures;
import ph.payments.platform.tx.JdbcTransactions;
import ph.payments.platform.tx.SqlWork;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.TestDatabase;

class IdempotentConsumerIT {

  private static TestDatabase database;
  private static Transactions transactions;
  private final IdempotentConsumer consumer = new IdempotentConsumer(Clock.systemUTC());

  @BeforeAll
  static void createDatabase() throws Exception {
    database = TestDatabase.create("inbox");
    Fixtures.applyPlatformSchema(database.dataSource());
    transactions = new JdbcTransactions(database.dataSource());
    try (Connection connection = database.dataSource().getConnection()) {
      connection
          .createStatement()
          .execute("CREATE TABLE credits (message_id text, amount numeric(14,2))");
    }
  }

  @AfterAll
  static void dropDatabase() {
    database.close();
  }

  @Test
  void aRedeliveredMessageChangesNothing() throws Exception {
    String messageId = IdType.MESSAGE.generate();
    assertTrue(applyCredit(messageId));
    assertFalse(applyCredit(messageId));
    assertFalse(applyCredit(messageId));
    assertEquals(1, credits(messageId));
  }

  @Test
  void aFailedEffectLeavesNoTraceAndTheRedeliveryApplies() throws Exception {
    String messageId = IdType.MESSAGE.generate();
    assertThrows(
        IllegalStateException.class,
        () ->
            transactions.inTransaction(
                connection ->
                    consumer.apply(
                        connection,
                        "ledger",
                        messageId,
                        tx -> {
                          insertCredit(tx, messageId);
                          throw new IllegalStateException("handler failed after its insert");
                        })));
    assertEquals(0, credits(messageId));
    assertTrue(applyCredit(messageId));
    assertEquals(1, credits(messageId));
  }

  @Test
  void consumersAreIndependent() throws Exception {
    String messageId = IdType.MESSAGE.generate();
    assertTrue(applyCredit(messageId));
    boolean other =
        transactions.inTransaction(c -> consumer.apply(c, "webhooks", messageId, tx -> null));
    assertTrue(other, "another consumer applies the same message on its own");
  }

  @Test
  void concurrentDeliveriesOfOneMessageApplyOnce() throws Exception {
    String messageId = IdType.MESSAGE.generate();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Callable<Boolean>> deliveries = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        deliveries.add(() -> applyCredit(messageId));
      }
      int applied = 0;
      for (Future<Boolean> result : pool.invokeAll(deliveries)) {
        applied += result.get() ? 1 : 0;
      }
      assertEquals(1, applied);
      assertEquals(1, credits(messageId));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void itRefusesToRunOutsideATransaction() throws Exception {
    try (Connection connection = database.dataSource().getConnection()) {
      connection.setAutoCommit(true);
      SqlWork<Object> effect = tx -> insertCredit(tx, "never");
      assertThrows(
          IllegalStateException.class, () -> consumer.apply(connection, "ledger", "m", effect));
    }
    assertEquals(0, credits("never"));
  }

  private boolean applyCredit(String messageId) {
    return transactions.inTransaction(
        connection ->
            consumer.apply(connection, "ledger", messageId, tx -> insertCredit(tx, messageId)));
  }

  private static Object insertCredit(Connection connection, String messageId) throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement("INSERT INTO credits (message_id, amount) VALUES (?, 10.00)")) {
      insert.setString(1, messageId);
      insert.executeUpdate();
    }
    return null;
  }

  private static int credits(String messageId) throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement select =
            connection.prepareStatement("SELECT count(*) FROM credits WHERE message_id = ?")) {
      select.setString(1, messageId);
      try (ResultSet rs = select.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }
}
