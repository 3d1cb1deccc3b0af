package ph.payments.ledger.holds.domain;

import java.util.Locale;

/** Where a payout stands in the ledger. */
public enum HoldStatus {
  /** The payout's amount moved from available to in-flight; the payout is under way. */
  HELD,
  /** The hold was refused: available did not cover the amount. Nothing moved. Final. */
  REFUSED,
  /** The payout succeeded: its amount left the platform. Final. */
  SETTLED,
  /** The payout failed (or its hold was released): any debit went back to available. Final. */
  REVERSED;

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static HoldStatus fromWire(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }
}
