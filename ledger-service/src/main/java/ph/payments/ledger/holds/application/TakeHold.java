package ph.payments.ledger.holds.application;

import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import ph.payments.ledger.holds.domain.HoldDecision;
import ph.payments.ledger.holds.domain.HoldRequest;
import ph.payments.ledger.holds.domain.HoldStatus;
import ph.payments.ledger.holds.domain.PayoutHold;
import ph.payments.ledger.holds.persistence.JdbcHolds;
import ph.payments.ledger.journal.domain.AccountCode;
import ph.payments.ledger.journal.domain.PostResult;
import ph.payments.ledger.journal.domain.PostingRules;
import ph.payments.ledger.journal.persistence.JdbcJournal;
import ph.payments.ledger.journal.persistence.JdbcJournal.LockedAccount;
import ph.payments.platform.tx.Transactions;

/**
 * Takes a payout's debit if, and only if, the merchant's available balance covers it.
 *
 * <p>Atomic against every other writer: the merchant's accounts in that currency are locked first
 * (the journal's one lock order), so the balance checked is the balance debited, and concurrent
 * holds queue on the lock instead of both seeing the same balance. Idempotent on the payout id: the
 * record is claimed with an insert that waits for a concurrent claim of the same id and then yields
 * to it.
 */
@Singleton
public class TakeHold {

  private final Transactions transactions;
  private final JdbcJournal journal;
  private final JdbcHolds holds;
  private final Clock clock;

  public TakeHold(Transactions transactions, JdbcJournal journal, JdbcHolds holds, Clock clock) {
    this.transactions = transactions;
    this.journal = journal;
    this.holds = holds;
    this.clock = clock;
  }

  public HoldDecision take(HoldRequest request) {
    return transactions.inTransaction(c -> take(c, request));
  }

  /** {@link #take(HoldRequest)} in the caller's transaction. */
  public HoldDecision take(Connection c, HoldRequest request) throws SQLException {
    // No activity in this currency means a balance of zero: refuse without creating accounts.
    Map<AccountCode, LockedAccount> accounts =
        journal.lockExisting(
            c, request.merchantId(), request.environment(), request.amount().currency());
    Optional<PayoutHold> existing = holds.lock(c, request.payoutId());
    if (existing.isPresent()) {
      return HoldDecision.replay(existing.get(), request);
    }
    BigDecimal available =
        accounts.containsKey(AccountCode.MERCHANT_AVAILABLE)
            ? accounts.get(AccountCode.MERCHANT_AVAILABLE).balance()
            : BigDecimal.ZERO.setScale(2);
    BigDecimal after = available.subtract(request.amount().amount());
    boolean covered = after.signum() >= 0;
    Instant now = clock.instant();
    PayoutHold hold =
        new PayoutHold(
            request.payoutId(),
            request.merchantId(),
            request.environment(),
            request.amount(),
            covered ? HoldStatus.HELD : HoldStatus.REFUSED,
            covered ? after : available,
            now,
            now);
    if (!holds.insert(c, hold)) {
      // A concurrent request for the same payout id committed first: answer as its replay.
      return HoldDecision.replay(holds.lock(c, request.payoutId()).orElseThrow(), request);
    }
    if (!covered) {
      return new HoldDecision.Refused(hold);
    }
    PostResult result =
        journal.post(
            c,
            PostingRules.payoutHeld(
                request.merchantId(),
                request.environment(),
                request.payoutId(),
                request.amount(),
                now));
    if (!(result instanceof PostResult.Posted)) {
      // The accounts are locked and the payout id was new: anything else is a broken ledger.
      throw new IllegalStateException("hold " + request.payoutId() + " could not post: " + result);
    }
    return new HoldDecision.Taken(hold);
  }
}
