package ph.payments.payments.providers;

/**
 * What a provider tells us about one of its orders. The wire form is JSON with these snake_case
 * fields, signed by the provider.
 *
 * @param id the provider's id for this callback; a callback delivered twice has the same id
 * @param type {@code order.paid} (customer paid, funds settling), {@code order.captured} (funds
 *     captured) or {@code order.declined}
 * @param providerRef the provider's order reference, as returned at registration
 * @param failureCode for declines, the provider's reason
 * @param failureMessage for declines, for people
 */
public record ProviderCallback(
    String id, String type, String providerRef, String failureCode, String failureMessage) {

  public static final String PAID = "order.paid";
  public static final String CAPTURED = "order.captured";
  public static final String DECLINED = "order.declined";
}
