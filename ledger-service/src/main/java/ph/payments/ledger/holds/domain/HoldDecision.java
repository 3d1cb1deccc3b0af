package ph.payments.ledger.holds.domain;

/**
 * The answer to a {@link HoldRequest}. A replay of the same payout id with the same request gets
 * the first answer again (TigerBeetle's "exists"): a hold once taken is reported as existing, and a
 * refusal stays a refusal even if the balance has grown since, so a caller that retries after a
 * timeout can never turn a refused payout into an accepted one by retrying.
 */
public sealed interface HoldDecision {

  PayoutHold hold();

  /** The debit was taken now. */
  record Taken(PayoutHold hold) implements HoldDecision {}

  /** The payout id was seen before with the same request; {@code hold} is how it stands now. */
  record Exists(PayoutHold hold) implements HoldDecision {}

  /**
   * Available does not cover the amount (now, or when this payout id was first asked); nothing
   * moved.
   */
  record Refused(PayoutHold hold) implements HoldDecision {}

  /** The payout id is known with another merchant, environment, amount or currency. */
  record Conflict(PayoutHold hold) implements HoldDecision {}

  /** What the ledger answers a request for a payout id it has a record of. */
  static HoldDecision replay(PayoutHold existing, HoldRequest request) {
    if (!existing.sameAs(request)) {
      return new Conflict(existing);
    }
    return existing.status() == HoldStatus.REFUSED ? new Refused(existing) : new Exists(existing);
  }
}
