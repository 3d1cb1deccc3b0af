package ph.payments.payments.providers;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;
import ph.payments.payments.payments.domain.Payment;

/**
 * One payment provider, seen from our side. Creating a payment registers it with the provider; the
 * provider later reports what the customer did through {@link ProviderCallbacks}, signed with the
 * secret the adapter verifies. The sandbox adapters implement this interface completely; a live
 * connector implements the same interface against a real provider's API.
 */
public interface ProviderAdapter {

  /** The provider's name as shown in {@code payment.provider}, e.g. {@code sandbox_ewallet1}. */
  String name();

  /** Payment methods this adapter takes. */
  Set<String> methods();

  /** Currencies it settles. */
  Set<String> currencies();

  /** What a payment needs to be registered with the provider. */
  record Registration(
      String paymentId,
      String merchantId,
      String merchantName,
      String environment,
      String method,
      ph.payments.platform.money.Money amount,
      String description,
      String returnUrl,
      java.time.Instant expiresAt) {}

  /** The provider's answer: its reference and where the customer goes. */
  record Registered(String providerRef, Payment.Checkout checkout) {}

  /** The largest amount the provider takes (QR Ph's tag 54 holds 13 characters), or null. */
  default java.math.BigDecimal maxAmount() {
    return null;
  }

  /** Registers the payment; runs in the transaction that creates it. */
  Registered register(Connection connection, Registration registration) throws SQLException;

  /**
   * Checks a callback's signature in constant time.
   *
   * @param signature the provider's signature header, or null
   */
  boolean verify(byte[] body, String signature);
}
