package ph.payments.payments.payments.domain;

import java.util.Locale;

/**
 * SPEC part 3. The status only moves forward, except that {@code refunded} follows {@code
 * succeeded}.
 */
public enum PaymentStatus {
  /** Created; waiting for the customer. */
  PENDING,
  /** The provider acknowledged that the customer paid; funds are settling. */
  PROCESSING,
  /** Funds captured; the merchant ledger is credited with the net amount. */
  SUCCEEDED,
  /** The provider rejected the payment (a definite failure, not an unknown outcome). */
  FAILED,
  /** The checkout window elapsed without payment. */
  EXPIRED,
  /** Refunds reached the full amount. */
  REFUNDED;

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static PaymentStatus fromWire(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }

  /** Terminal states after which the customer can be shown a receipt. */
  public boolean bearsReceipt() {
    return this == SUCCEEDED || this == REFUNDED;
  }
}
