package ph.payments.payments.refunds.domain;

import java.util.Locale;

/** SPEC part 3. A refund's amount stays reserved against its payment unless it {@link #FAILED}. */
public enum RefundStatus {
  /** Sent to the provider; its answer has not been applied yet. */
  PENDING,
  /** The provider accepted the refund and reports the outcome later. */
  PROCESSING,
  /** The method cannot refund automatically (QR Ph); queued for the provider's operators. */
  PENDING_MANUAL,
  /** The money went back to the payer; the merchant's balance is debited by the amount. */
  SUCCEEDED,
  /** The refund did not happen; its amount is refundable again. */
  FAILED;

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static RefundStatus fromWire(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }
}
