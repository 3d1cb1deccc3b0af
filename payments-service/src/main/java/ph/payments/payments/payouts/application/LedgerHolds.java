package ph.payments.payments.payouts.application;

import java.time.Instant;
import java.util.List;
import ph.payments.platform.errors.TransientFailure;
import ph.payments.platform.money.Money;

/**
 * The ledger's payout holds, asked synchronously before a payout is accepted (ARCHITECTURE,
 * "Ledger"), so {@code insufficient_balance} is known in the creation response and two concurrent
 * payouts can never overdraw. A hold is idempotent on the payout id: asking again for the same
 * payout (a retried command) returns the same hold and takes nothing more.
 */
public interface LedgerHolds {

  /**
   * @param amount what the payout takes from the merchant's available balance (the payout's amount;
   *     its fee is part of it)
   */
  record HoldRequest(String payoutId, String merchantId, String environment, Money amount) {}

  /** The ledger's answer. */
  sealed interface Outcome permits Held, Insufficient, Refused, Released {}

  /** The amount is held (now, or by an earlier request for the same payout). */
  record Held() implements Outcome {}

  /**
   * The payout id's hold was taken once and has been given back (released as an orphan, or its
   * payout failed): nothing is held now, and asking again takes nothing. The payout must not be
   * created.
   */
  record Released() implements Outcome {}

  /** The available balance does not cover the amount; nothing was held. */
  record Insufficient() implements Outcome {}

  /**
   * The ledger refused the request for another reason (e.g. {@code conflict}: the payout id is
   * known with another amount). Retrying cannot help; nothing is created.
   */
  record Refused(String code, String message) implements Outcome {}

  /**
   * The ledger could not be asked or did not answer: the outcome is unknown. The caller must not
   * create the payout; the command fails and is retried, and the hold's idempotency makes the retry
   * safe.
   */
  final class Unavailable extends RuntimeException implements TransientFailure {
    public Unavailable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * @throws Unavailable when no answer came
   */
  Outcome hold(HoldRequest request);

  /** A hold the ledger still has as {@code held}. */
  record OpenHold(
      String payoutId, String merchantId, String environment, Money amount, Instant createdAt) {}

  /**
   * Holds still held that the ledger took before {@code createdBefore}, oldest first, after the
   * hold of payout {@code startingAfter} when it is not null (the last of the previous page).
   *
   * @throws Unavailable when no answer came
   */
  List<OpenHold> heldBefore(Instant createdBefore, String startingAfter, int limit);

  /**
   * Gives the payout's hold back (a journal entry moves it from in-flight to available once; asking
   * again changes nothing). Only for a payout that will never exist.
   *
   * @throws Unavailable when no answer came, or the ledger refused (the caller retries later)
   */
  void release(String payoutId);
}
