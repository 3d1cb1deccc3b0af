package ph.payments.ledger.holds.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.ledger.holds.domain.HoldStatus;
import ph.payments.ledger.holds.domain.PayoutHold;
import ph.payments.ledger.holds.domain.PayoutOutcome;
import ph.payments.ledger.holds.domain.PayoutTransitions;
import ph.payments.ledger.holds.domain.PayoutTransitions.Transition;
import ph.payments.ledger.holds.persistence.JdbcHolds;
import ph.payments.ledger.journal.domain.PostResult;
import ph.payments.ledger.journal.persistence.JdbcJournal;

/**
 * Applies a payout's outcome ({@code payout.succeeded}, {@code payout.failed}, or a release of its
 * hold) exactly once per payout, in the caller's transaction.
 */
@Singleton
public class RecordPayoutOutcome {

  private static final Logger log = LoggerFactory.getLogger(RecordPayoutOutcome.class);

  private final JdbcJournal journal;
  private final JdbcHolds holds;
  private final Clock clock;

  public RecordPayoutOutcome(JdbcJournal journal, JdbcHolds holds, Clock clock) {
    this.journal = journal;
    this.holds = holds;
    this.clock = clock;
  }

  /** What applying an outcome did. */
  public sealed interface Result {}

  /** The payout now stands at {@code status}; money moved if the transition posted. */
  public record Applied(PayoutHold hold) implements Result {}

  /** The outcome had been applied already. */
  public record Unchanged(PayoutHold hold) implements Result {}

  /** The outcome contradicts the payout's record; nothing moved. */
  public record Contradiction(String reason) implements Result {}

  /**
   * @param note set when the move is right but an operator should know about it
   */
  public record Noted(PayoutHold hold, String note) implements Result {}

  public Result apply(Connection c, PayoutOutcome outcome) throws SQLException {
    // The journal's lock order: the merchant's accounts first, then the payout's record. Accounts
    // are created only if money moves (a failed payout the ledger never held is no activity).
    journal.lockExisting(
        c, outcome.merchantId(), outcome.environment(), outcome.amount().currency());
    Optional<PayoutHold> current = holds.lock(c, outcome.payoutId());
    Transition transition = PayoutTransitions.on(current.orElse(null), outcome);
    Instant now = clock.instant();
    if (transition instanceof PayoutTransitions.Unchanged) {
      return new Unchanged(current.orElseThrow());
    }
    if (transition instanceof PayoutTransitions.Anomaly anomaly) {
      return new Contradiction(anomaly.reason());
    }
    HoldStatus next;
    String note = null;
    if (transition instanceof PayoutTransitions.Post post) {
      PostResult result = journal.post(c, post.entry());
      if (!(result instanceof PostResult.Posted)) {
        // The record said this had not been posted; the journal disagrees. Never post twice.
        return new Contradiction(
            "payout record says "
                + current.map(h -> h.status().wire()).orElse("unknown")
                + " but the journal has "
                + post.entry().kind().wire()
                + " already");
      }
      next = post.next();
      note = post.note();
    } else {
      next = ((PayoutTransitions.Mark) transition).next();
    }
    PayoutHold updated;
    if (current.isPresent()) {
      updated = current.get().withStatus(next, now);
      holds.updateStatus(c, updated);
    } else {
      updated =
          new PayoutHold(
              outcome.payoutId(),
              outcome.merchantId(),
              outcome.environment(),
              outcome.amount(),
              next,
              null,
              now,
              now);
      if (!holds.insert(c, updated)) {
        // Impossible under the account lock unless another merchant claimed the id.
        throw new IllegalStateException("payout " + outcome.payoutId() + " appeared under lock");
      }
    }
    if (note != null) {
      log.warn("payout {}: {}", outcome.payoutId(), note);
      return new Noted(updated, note);
    }
    return new Applied(updated);
  }
}
