package ph.payments.ledger.journal.domain;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import ph.payments.platform.money.Money;

/**
 * A journal transaction to be posted: postings that sum to zero, all in one environment and one
 * currency, each account at most once.
 *
 * @param kind with {@code reference}, what identifies the transaction (posted at most once)
 * @param reference the business id ({@code pay_…}, {@code re_…}, {@code po_…})
 * @param eventId the event that caused it, or null (a hold comes from a request)
 * @param effectiveAt when the fact happened
 * @param mustNotOverdraw an account whose balance must not fall below zero through this transaction
 *     (a payout hold's available balance), or null
 */
public record JournalEntry(
    EntryKind kind,
    String reference,
    String eventId,
    String environment,
    String currency,
    Instant effectiveAt,
    List<Posting> postings,
    AccountKey mustNotOverdraw) {

  public JournalEntry {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(reference, "reference");
    Objects.requireNonNull(effectiveAt, "effectiveAt");
    postings = List.copyOf(postings);
    if (postings.size() < 2) {
      throw new IllegalArgumentException("a transaction has at least two postings: " + postings);
    }
    Money total = Money.zero(currency);
    Set<AccountKey> accounts = new HashSet<>();
    for (Posting posting : postings) {
      if (!posting.account().environment().equals(environment)
          || !posting.account().currency().equals(currency)) {
        throw new IllegalArgumentException(
            "posting outside " + environment + "/" + currency + ": " + posting);
      }
      if (!accounts.add(posting.account())) {
        throw new IllegalArgumentException("account posted twice: " + posting.account());
      }
      total = total.plus(posting.amount());
    }
    if (!total.isZero()) {
      throw new IllegalArgumentException(
          "postings of " + kind.wire() + " " + reference + " sum to " + total + ", not zero");
    }
    if (mustNotOverdraw != null && !accounts.contains(mustNotOverdraw)) {
      throw new IllegalArgumentException("guarded account is not posted to: " + mustNotOverdraw);
    }
  }

  /** The merchants whose accounts this transaction touches. */
  public Set<String> merchants() {
    Set<String> merchants = new HashSet<>();
    postings.forEach(p -> merchants.add(p.account().merchantId()));
    return merchants;
  }

  /** The amount posted to {@code account} by this transaction, zero when none. */
  public Money amountOn(AccountKey account) {
    for (Posting posting : postings) {
      if (posting.account().equals(account)) {
        return posting.amount();
      }
    }
    return Money.zero(currency);
  }
}
