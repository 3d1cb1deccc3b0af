package ph.payments.ledger.journal.domain;

import java.util.Objects;
import ph.payments.platform.money.Money;

/**
 * One leg of a journal transaction.
 *
 * @param amount positive for a credit, negative for a debit; never zero; in the account's currency
 */
public record Posting(AccountKey account, Money amount) {

  public Posting {
    Objects.requireNonNull(account, "account");
    Objects.requireNonNull(amount, "amount");
    if (amount.isZero()) {
      throw new IllegalArgumentException("a posting moves money: zero on " + account);
    }
    if (!amount.currency().equals(account.currency())) {
      throw new IllegalArgumentException(
          "posting in " + amount.currency() + " to an account in " + account.currency());
    }
  }

  public static Posting credit(AccountKey account, Money amount) {
    return new Posting(account, amount);
  }

  public static Posting debit(AccountKey account, Money amount) {
    return new Posting(account, amount.negate());
  }
}
