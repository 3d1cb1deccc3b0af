package ph.payments.ledger.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.sql.Statement;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import ph.payments.ledger.journal.domain.AccountCode;
import ph.payments.ledger.journal.domain.AccountKey;
import ph.payments.ledger.journal.domain.PostResult;
import ph.payments.ledger.journal.domain.PostingRules;
import ph.payments.ledger.journal.persistence.JdbcJournal;
import ph.payments.ledger.support.Events;
import ph.payments.ledger.support.LedgerTest;
import ph.payments.platform.money.Money;

/**
 * What the database guarantees whatever the code does: the journal is append-only, a balance moves
 * only through a posting, and a transaction that does not sum to zero never commits.
 */
@MicronautTest(transactional = false)
class JournalIT extends LedgerTest {

  @Inject JdbcJournal journal;

  @Test
  void postingsAndTransactionsCannotBeChangedOrRemoved() {
    String merchant = funded("100.00");
    for (String sql :
        new String[] {
          "UPDATE postings SET amount = amount * 2",
          "DELETE FROM postings",
          "UPDATE journal_transactions SET reference = 'x'",
          "DELETE FROM journal_transactions",
          "TRUNCATE postings CASCADE",
          "DELETE FROM accounts WHERE merchant_id = '" + merchant + "'"
        }) {
      RuntimeException refused = assertThrows(RuntimeException.class, () -> execute(sql), sql);
      assertTrue(
          String.valueOf(refused.getMessage()).matches("(?s).*(append-only|never deleted).*"),
          sql + ": " + refused.getMessage());
    }
    assertEquals(money("100.00"), available(merchant, "test"));
  }

  @Test
  void aBalanceMovesOnlyThroughAPosting() {
    String merchant = funded("100.00");
    RuntimeException refused =
        assertThrows(
            RuntimeException.class,
            () ->
                execute(
                    "UPDATE accounts SET balance = 1000000 WHERE merchant_id = '"
                        + merchant
                        + "'"));
    assertTrue(refused.getMessage().contains("only through a posting"), refused.getMessage());
    assertEquals(money("100.00"), available(merchant, "test"));
  }

  @Test
  void aTransactionThatDoesNotSumToZeroNeverCommits() {
    String merchant = funded("100.00");
    long account =
        count(
            "SELECT id FROM accounts WHERE merchant_id = ? AND code = 'merchant_available'",
            merchant);
    RuntimeException refused =
        assertThrows(
            RuntimeException.class,
            () ->
                transactions.inTransaction(
                    c -> {
                      try (Statement s = c.createStatement()) {
                        s.execute(
                            "INSERT INTO journal_transactions (kind, reference, environment,"
                                + " currency, effective_at, recorded_at) VALUES ('payment_succeeded',"
                                + " 'pay_forged', 'test', 'PHP', now(), now())");
                        s.execute(
                            "INSERT INTO postings (transaction_id, account_id, amount, recorded_at)"
                                + " SELECT id, "
                                + account
                                + ", 1000, now() FROM journal_transactions"
                                + " WHERE reference = 'pay_forged'");
                      }
                      return null;
                    }));
    assertTrue(
        String.valueOf(refused.getMessage()).contains("does not balance")
            || String.valueOf(refused.getCause()).contains("does not balance"),
        refused.toString());
    assertEquals(money("100.00"), available(merchant, "test"));
  }

  @Test
  void aPostingOutsideItsTransactionsCurrencyIsRefused() {
    String merchant = funded("100.00");
    long account =
        count(
            "SELECT id FROM accounts WHERE merchant_id = ? AND code = 'merchant_available'",
            merchant);
    RuntimeException refused =
        assertThrows(
            RuntimeException.class,
            () ->
                transactions.inTransaction(
                    c -> {
                      try (Statement s = c.createStatement()) {
                        s.execute(
                            "INSERT INTO journal_transactions (kind, reference, environment,"
                                + " currency, effective_at, recorded_at) VALUES ('payment_succeeded',"
                                + " 'pay_usd', 'test', 'USD', now(), now())");
                        s.execute(
                            "INSERT INTO postings (transaction_id, account_id, amount, recorded_at)"
                                + " SELECT id, "
                                + account
                                + ", 5, now() FROM journal_transactions WHERE reference = 'pay_usd'");
                      }
                      return null;
                    }));
    assertTrue(
        refused.getMessage().contains("outside the environment or currency"), refused.getMessage());
  }

  @Test
  void theSameFactPostsOnceAndAnOverdraftWritesNothing() {
    String merchant = Events.merchant();
    var payment =
        PostingRules.paymentSucceeded(
            merchant,
            "test",
            "pay_once",
            null,
            Money.of("10.00", "PHP"),
            Money.of("0.50", "PHP"),
            Money.of("9.50", "PHP"),
            Instant.now());
    assertInstanceOf(
        PostResult.Posted.class, transactions.inTransaction(c -> journal.post(c, payment)));
    assertInstanceOf(
        PostResult.AlreadyPosted.class, transactions.inTransaction(c -> journal.post(c, payment)));

    var tooMuch =
        PostingRules.payoutHeld(merchant, "test", "po_big", Money.of("9.51", "PHP"), Instant.now());
    PostResult overdraft = transactions.inTransaction(c -> journal.post(c, tooMuch));
    assertEquals(
        new PostResult.Overdraft(
            AccountKey.of(AccountCode.MERCHANT_AVAILABLE, merchant, "test", "PHP"), money("9.50")),
        overdraft);
    assertEquals(0, count("SELECT count(*) FROM journal_transactions WHERE reference = 'po_big'"));
    assertEquals(money("9.50"), available(merchant, "test"));
  }

  @Test
  void everyPostingCarriesItsAccountsRunningBalance() {
    String merchant = funded("100.00");
    apply(
        Events.refundSucceeded(
            merchant, "test", Events.refund(), Events.payment(), "130.00", "PHP"));
    assertEquals(
        "100.00,-30.00",
        query(
            "SELECT string_agg(p.balance_after::text, ',' ORDER BY p.id) FROM postings p"
                + " JOIN accounts a ON a.id = p.account_id"
                + " WHERE a.merchant_id = ? AND a.code = 'merchant_available'",
            merchant));
  }

  private String funded(String amount) {
    String merchant = Events.merchant();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), amount, "0.00"));
    return merchant;
  }

  private void execute(String sql) {
    transactions.inTransaction(
        c -> {
          try (Statement s = c.createStatement()) {
            s.execute(sql);
          }
          return null;
        });
  }
}
