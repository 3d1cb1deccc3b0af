package ph.payments.payments.providers;

/**
 * What a provider tells us about one of its orders. The wire form is JSON with these snake_case
 * fields, signed by the provider.
 *
 * @param id the provider's id for this callback; a callback delivered twice has the same id
 * @param type {@code order.paid} (customer paid, funds settling), {@code order.captured} (funds
 *     captured), {@code order.declined}; {@code refund.succeeded}, {@code refund.failed}; {@code
 *     payout.processing} (sent, the receiving institution has not confirmed), {@code
 *     payout.succeeded}, {@code payout.failed}
 * @param providerRef the provider's reference of the order, refund or payout, as returned when it
 *     was registered
 * @param failureCode for declines and failures, the provider's reason
 * @param failureMessage for declines, for people
 */
public record ProviderCallback(
    String id, String type, String providerRef, String failureCode, String failureMessage) {

  public static final String PAID = "order.paid";
  public static final String CAPTURED = "order.captured";
  public static final String DECLINED = "order.declined";
  public static final String REFUND_SUCCEEDED = "refund.succeeded";
  public static final String REFUND_FAILED = "refund.failed";
  public static final String PAYOUT_PROCESSING = "payout.processing";
  public static final String PAYOUT_SUCCEEDED = "payout.succeeded";
  public static final String PAYOUT_FAILED = "payout.failed";
}
