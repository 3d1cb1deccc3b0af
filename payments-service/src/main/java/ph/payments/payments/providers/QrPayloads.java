package ph.payments.payments.providers;

/** Makes the EMV QR Ph payload ({@code qr_code}) for a payment registered with a QR provider. */
public interface QrPayloads {

  /**
   * @param registration the payment, including its environment: test mode gets a payload marked so
   *     that no real bank app would pay it
   * @param providerRef the provider's reference, carried in the payload's additional data
   */
  String payload(ProviderAdapter.Registration registration, String providerRef);
}
