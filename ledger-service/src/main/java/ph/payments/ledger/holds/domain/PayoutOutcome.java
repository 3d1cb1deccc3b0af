package ph.payments.ledger.holds.domain;

import java.time.Instant;
import java.util.Objects;
import ph.payments.platform.money.Money;

/**
 * What became of a payout, as an event or the caller reports it.
 *
 * @param amount the payout amount; for {@link Kind#RELEASED} the hold's own
 * @param fee the payout fee (kept by the platform when the payout succeeds), zero when none
 * @param eventId the reporting event, or null for a release request
 */
public record PayoutOutcome(
    Kind kind,
    String payoutId,
    String merchantId,
    String environment,
    Money amount,
    Money fee,
    String eventId,
    Instant at) {

  /** The three ways a payout ends. */
  public enum Kind {
    /** {@code payout.succeeded}: the money left. */
    SUCCEEDED,
    /** {@code payout.failed}: the money did not leave; the debit is reversed. */
    FAILED,
    /**
     * The caller gives a hold back because the payout was never created (internal {@code release});
     * the ledger treats it as a failure.
     */
    RELEASED
  }

  public PayoutOutcome {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(payoutId, "payoutId");
    Objects.requireNonNull(merchantId, "merchantId");
    Objects.requireNonNull(environment, "environment");
    Objects.requireNonNull(amount, "amount");
    Objects.requireNonNull(at, "at");
    fee = fee == null ? Money.zero(amount.currency()) : fee;
  }
}
