package ph.payments.ledger.journal.domain;

import static ph.payments.ledger.journal.domain.AccountCode.MERCHANT_AVAILABLE;
import static ph.payments.ledger.journal.domain.AccountCode.MERCHANT_PAYOUTS_IN_FLIGHT;
import static ph.payments.ledger.journal.domain.AccountCode.PLATFORM_FEES;
import static ph.payments.ledger.journal.domain.AccountCode.PROVIDER_CLEARING;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import ph.payments.platform.money.Money;

/**
 * The posting rules: which accounts each business fact debits and credits (the table in {@code
 * docs/ledger.md}). Every rule balances by construction; {@link JournalEntry} checks it again. Zero
 * legs (a payment without a fee) are left out.
 */
public final class PostingRules {

  /**
   * A payment captured: the provider owes the gross amount, the merchant is owed the net amount and
   * the platform earned the fee.
   *
   * @throws IllegalArgumentException when net + fee is not the amount
   */
  public static JournalEntry paymentSucceeded(
      String merchantId,
      String environment,
      String paymentId,
      String eventId,
      Money amount,
      Money fee,
      Money net,
      Instant at) {
    if (!net.plus(fee).equals(amount)) {
      throw new IllegalArgumentException(
          "net " + net + " plus fee " + fee + " is not the amount " + amount);
    }
    AccountKey available =
        AccountKey.of(MERCHANT_AVAILABLE, merchantId, environment, amount.currency());
    List<Posting> postings = new ArrayList<>();
    postings.add(Posting.debit(available.sibling(PROVIDER_CLEARING), amount));
    addCredit(postings, available, net);
    addCredit(postings, available.sibling(PLATFORM_FEES), fee);
    return new JournalEntry(
        EntryKind.PAYMENT_SUCCEEDED,
        paymentId,
        eventId,
        environment,
        amount.currency(),
        at,
        postings,
        null);
  }

  /**
   * A refund paid back to the customer through the provider: the merchant's available balance pays
   * for it in full (fees are not returned) and may go negative.
   */
  public static JournalEntry refundSucceeded(
      String merchantId,
      String environment,
      String refundId,
      String eventId,
      Money amount,
      Instant at) {
    AccountKey available =
        AccountKey.of(MERCHANT_AVAILABLE, merchantId, environment, amount.currency());
    return new JournalEntry(
        EntryKind.REFUND_SUCCEEDED,
        refundId,
        eventId,
        environment,
        amount.currency(),
        at,
        List.of(
            Posting.debit(available, amount),
            Posting.credit(available.sibling(PROVIDER_CLEARING), amount)),
        null);
  }

  /**
   * A payout's debit, taken when the payout is created: available into in-flight, and only if
   * available stays at or above zero.
   */
  public static JournalEntry payoutHeld(
      String merchantId, String environment, String payoutId, Money amount, Instant at) {
    AccountKey available =
        AccountKey.of(MERCHANT_AVAILABLE, merchantId, environment, amount.currency());
    return new JournalEntry(
        EntryKind.PAYOUT_HELD,
        payoutId,
        null,
        environment,
        amount.currency(),
        at,
        List.of(
            Posting.debit(available, amount),
            Posting.credit(available.sibling(MERCHANT_PAYOUTS_IN_FLIGHT), amount)),
        available);
  }

  /**
   * A payout paid out: the money leaves through the payout provider, less the payout fee, which the
   * platform keeps (the merchant's balance is debited the payout amount, the recipient gets amount
   * − fee).
   *
   * @param fromHold true when a hold moved the amount to in-flight; false for a payout the ledger
   *     never held, which is then taken from available directly (it has left already; the balance
   *     may go negative)
   * @throws IllegalArgumentException when the fee exceeds the amount
   */
  public static JournalEntry payoutSettled(
      String merchantId,
      String environment,
      String payoutId,
      String eventId,
      Money amount,
      Money fee,
      boolean fromHold,
      Instant at) {
    if (fee.compareTo(amount) > 0 || fee.isNegative()) {
      throw new IllegalArgumentException("payout fee " + fee + " outside 0.." + amount);
    }
    AccountKey available =
        AccountKey.of(MERCHANT_AVAILABLE, merchantId, environment, amount.currency());
    List<Posting> postings = new ArrayList<>();
    postings.add(
        Posting.debit(
            fromHold ? available.sibling(MERCHANT_PAYOUTS_IN_FLIGHT) : available, amount));
    addCredit(postings, available.sibling(PROVIDER_CLEARING), amount.minus(fee));
    addCredit(postings, available.sibling(PLATFORM_FEES), fee);
    return new JournalEntry(
        EntryKind.PAYOUT_SETTLED,
        payoutId,
        eventId,
        environment,
        amount.currency(),
        at,
        postings,
        null);
  }

  /** A held payout that failed (or was released): its debit goes back to available. */
  public static JournalEntry payoutReversed(
      String merchantId,
      String environment,
      String payoutId,
      String eventId,
      Money amount,
      Instant at) {
    AccountKey available =
        AccountKey.of(MERCHANT_AVAILABLE, merchantId, environment, amount.currency());
    return new JournalEntry(
        EntryKind.PAYOUT_REVERSED,
        payoutId,
        eventId,
        environment,
        amount.currency(),
        at,
        List.of(
            Posting.debit(available.sibling(MERCHANT_PAYOUTS_IN_FLIGHT), amount),
            Posting.credit(available, amount)),
        null);
  }

  private static void addCredit(List<Posting> postings, AccountKey account, Money amount) {
    if (amount.isNegative()) {
      throw new IllegalArgumentException("negative amount for " + account.code() + ": " + amount);
    }
    if (!amount.isZero()) {
      postings.add(Posting.credit(account, amount));
    }
  }

  private PostingRules() {}
}
