package ph.payments.payments.payouts.domain;

import java.util.Locale;

/** SPEC part 3. Every payout's amount was held by the ledger before the payout existed. */
public enum PayoutStatus {
  /** Accepted and waiting for the rail: the batch rail's next cut-off. */
  PENDING,
  /** Sent; the receiving institution has not confirmed yet. */
  PROCESSING,
  /** Credited to the recipient; the ledger settles the hold. */
  SUCCEEDED,
  /** Not paid (a definite refusal); the ledger reverses the hold. */
  FAILED;

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static PayoutStatus fromWire(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }
}
