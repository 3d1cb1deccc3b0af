package ph.payments.platform.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import ph.payments.testkit.TestDatabase;

/** {@link AfterCommit} through {@link JdbcTransactions} on a real database. */
class AfterCommitIT {

  private static TestDatabase database;
  private static Transactions transactions;

  @BeforeAll
  static void createDatabase() {
    database = TestDatabase.create("after_commit");
    transactions = new JdbcTransactions(database.dataSource());
  }

  @AfterAll
  static void dropDatabase() {
    database.close();
  }

  @Test
  void anActionRunsOnceAfterTheCommitHowEverOftenItWasRegistered() {
    List<String> seen = new ArrayList<>();
    Runnable action = () -> seen.add("ran");
    transactions.inTransaction(
        connection -> {
          assertTrue(AfterCommit.register(action));
          assertTrue(AfterCommit.register(action));
          assertEquals(List.of(), seen, "not before the commit");
          return null;
        });
    assertEquals(List.of("ran"), seen);
  }

  @Test
  void aRolledBackTransactionRunsNothing() {
    List<String> seen = new ArrayList<>();
    assertThrows(
        IllegalStateException.class,
        () ->
            transactions.inTransaction(
                connection -> {
                  AfterCommit.register(() -> seen.add("ran"));
                  throw new IllegalStateException("rolled back");
                }));
    assertEquals(List.of(), seen);
    assertFalse(AfterCommit.register(() -> seen.add("late")), "nothing collects any more");
  }

  @Test
  void outsideOurTransactionsNothingCollects() {
    assertFalse(AfterCommit.register(() -> {}));
  }

  /** JdbcTransactions opens a transaction of its own per call, so an inner one commits first. */
  @Test
  void anInnerTransactionRunsItsActionsAtItsOwnCommitAndTheOuterAtItsOwn() {
    List<String> seen = new ArrayList<>();
    transactions.inTransaction(
        outer -> {
          AfterCommit.register(() -> seen.add("outer"));
          transactions.inTransaction(
              inner -> {
                AfterCommit.register(() -> seen.add("inner"));
                return null;
              });
          assertEquals(List.of("inner"), seen);
          return null;
        });
    assertEquals(List.of("inner", "outer"), seen);
  }

  @Test
  void aFailingActionDoesNotStopTheOthers() {
    List<String> seen = new ArrayList<>();
    String result =
        transactions.inTransaction(
            connection -> {
              AfterCommit.register(
                  () -> {
                    throw new IllegalStateException("broken action");
                  });
              AfterCommit.register(() -> seen.add("second"));
              return "committed";
            });
    assertEquals("committed", result);
    assertEquals(List.of("second"), seen);
  }
}
