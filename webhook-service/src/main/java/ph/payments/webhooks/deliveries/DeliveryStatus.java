package ph.payments.webhooks.deliveries;

/** Where a delivery stands. */
public enum DeliveryStatus {
  /** An attempt is due at {@code next_attempt_at}, or one is running under a lease. */
  PENDING,
  /** A 2xx answer was received. */
  SUCCEEDED,
  /**
   * Every retry failed, or the endpoint was disabled or deleted before the delivery finished. A
   * failed delivery can be replayed.
   */
  FAILED;

  public String wire() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  public static DeliveryStatus fromWire(String value) {
    return valueOf(value.toUpperCase(java.util.Locale.ROOT));
  }
}
