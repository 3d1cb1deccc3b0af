package ph.payments.payments.providers;

/**
 * A provider that reports to us through signed callbacks ({@link ProviderCallbacks}): a payment
 * provider ({@link ProviderAdapter}) or a payout rail ({@link PayoutAdapter}).
 */
public interface CallbackSource {

  /** The provider's name, as in a resource's {@code provider} field and the callback path. */
  String name();

  /**
   * Checks a callback's signature in constant time.
   *
   * @param signature the provider's signature header, or null
   */
  boolean verify(byte[] body, String signature);
}
