package ph.payments.gateway.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.platform.tx.AfterCommit;
import ph.payments.platform.tx.Transactions;

/**
 * The service's {@link Transactions} (over Micronaut's transaction manager) run what was registered
 * with {@link AfterCommit} once they committed, and drop it when they roll back: that is how an
 * outbox writer rings its relay right after the commit (platform {@code OutboxActivity}).
 */
@MicronautTest(transactional = false)
class AfterCommitIT extends GatewayTest {

  @Inject Transactions transactions;

  @Test
  void actionsRunAfterTheCommitOfATransactionOrAStatement() {
    List<String> ran = new ArrayList<>();
    transactions.inTransaction(
        c -> {
          assertTrue(AfterCommit.register(() -> ran.add("transaction")));
          c.createStatement().execute("SELECT 1");
          assertEquals(List.of(), ran, "not before the commit");
          return null;
        });
    transactions.autoCommitted(
        c -> {
          assertTrue(AfterCommit.register(() -> ran.add("statement")));
          return c.createStatement().execute("SELECT 1");
        });
    assertEquals(List.of("transaction", "statement"), ran);
  }

  @Test
  void aRolledBackTransactionRunsNothing() {
    List<String> ran = new ArrayList<>();
    assertThrows(
        IllegalStateException.class,
        () ->
            transactions.inTransaction(
                c -> {
                  AfterCommit.register(() -> ran.add("rolled back"));
                  throw new IllegalStateException("the state change failed");
                }));
    assertEquals(List.of(), ran);
  }
}
