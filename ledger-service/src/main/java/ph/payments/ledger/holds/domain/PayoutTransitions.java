package ph.payments.ledger.holds.domain;

import ph.payments.ledger.journal.domain.JournalEntry;
import ph.payments.ledger.journal.domain.PostingRules;

/**
 * What a payout outcome does to the ledger, given the payout's record (the table in {@code
 * docs/ledger.md}, "Holds"). Each payout settles or reverses at most once, whatever number of times
 * and in whatever order its outcomes arrive: a final state ignores a repeat of itself and reports a
 * contradiction as an anomaly instead of moving money twice.
 */
public final class PayoutTransitions {

  /** The effect of one outcome. */
  public sealed interface Transition {}

  /**
   * Move money with {@code entry} and record the payout as {@code next}.
   *
   * @param note something an operator should know although the move is right, or null
   */
  public record Post(HoldStatus next, JournalEntry entry, String note) implements Transition {}

  /** Record the payout as {@code next}; no money moves. */
  public record Mark(HoldStatus next) implements Transition {}

  /** Nothing to do: the outcome was applied before. */
  public record Unchanged() implements Transition {}

  /** The outcome contradicts the record; nothing moves, the operator is told why. */
  public record Anomaly(String reason) implements Transition {}

  /**
   * @param current the payout's record, or null when the ledger never heard of it
   */
  public static Transition on(PayoutHold current, PayoutOutcome outcome) {
    if (current != null) {
      String mismatch = mismatch(current, outcome);
      if (mismatch != null) {
        return new Anomaly(mismatch);
      }
    }
    HoldStatus status = current == null ? null : current.status();
    return switch (outcome.kind()) {
      case SUCCEEDED -> succeeded(status, outcome);
      case FAILED, RELEASED -> failed(status, outcome);
    };
  }

  private static Transition succeeded(HoldStatus status, PayoutOutcome outcome) {
    if (status == null || status == HoldStatus.REFUSED) {
      // The money has left although no hold was taken for it: take it from available directly.
      return new Post(
          HoldStatus.SETTLED,
          settlement(outcome, false),
          status == null ? null : "payout succeeded although its hold had been refused");
    }
    return switch (status) {
      case HELD -> new Post(HoldStatus.SETTLED, settlement(outcome, true), null);
      case SETTLED -> new Unchanged();
      case REVERSED -> new Anomaly("payout succeeded after it had failed or been released");
      case REFUSED -> throw new AssertionError("handled above");
    };
  }

  private static Transition failed(HoldStatus status, PayoutOutcome outcome) {
    if (status == null) {
      // Nothing was debited, so nothing goes back; remember the end so a late hold is answered.
      return new Mark(HoldStatus.REVERSED);
    }
    return switch (status) {
      case HELD ->
          new Post(
              HoldStatus.REVERSED,
              PostingRules.payoutReversed(
                  outcome.merchantId(),
                  outcome.environment(),
                  outcome.payoutId(),
                  outcome.eventId(),
                  outcome.amount(),
                  outcome.at()),
              null);
      case REFUSED, REVERSED -> new Unchanged();
      case SETTLED -> new Anomaly("payout failed after it had succeeded");
    };
  }

  private static JournalEntry settlement(PayoutOutcome outcome, boolean fromHold) {
    return PostingRules.payoutSettled(
        outcome.merchantId(),
        outcome.environment(),
        outcome.payoutId(),
        outcome.eventId(),
        outcome.amount(),
        outcome.fee(),
        fromHold,
        outcome.at());
  }

  private static String mismatch(PayoutHold current, PayoutOutcome outcome) {
    if (!current.merchantId().equals(outcome.merchantId())) {
      return "payout belongs to "
          + current.merchantId()
          + ", outcome names "
          + outcome.merchantId();
    }
    if (!current.environment().equals(outcome.environment())) {
      return "payout is " + current.environment() + ", outcome is " + outcome.environment();
    }
    if (!current.amount().currency().equals(outcome.amount().currency())
        || current.amount().compareTo(outcome.amount()) != 0) {
      return "payout is for " + current.amount() + ", outcome reports " + outcome.amount();
    }
    return null;
  }

  private PayoutTransitions() {}
}
