package ph.payments.ledger.journal.domain;

import java.math.BigDecimal;
import java.util.Map;

/** What posting a {@link JournalEntry} did. Expected rejections are values, not exceptions. */
public sealed interface PostResult {

  /**
   * Written.
   *
   * @param balancesAfter each posted account's balance right after this transaction
   */
  record Posted(long transactionId, Map<AccountKey, BigDecimal> balancesAfter)
      implements PostResult {}

  /** A transaction of the same kind and reference exists; nothing was written. */
  record AlreadyPosted(EntryKind kind, String reference) implements PostResult {}

  /** The guarded account would have gone below zero; nothing was written. */
  record Overdraft(AccountKey account, BigDecimal balance) implements PostResult {}
}
