package ph.payments.payments.providers;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.platform.outbox.OutboxWriter;

/**
 * One payment provider, seen from our side. Creating a payment registers it with the provider; the
 * provider later reports what the customer did through {@link ProviderCallbacks}, signed with the
 * secret the adapter verifies. Refunds of a payment go to the provider that took it, which answers
 * at once or reports later through the same callbacks. The sandbox adapters implement this
 * interface completely; a live connector implements the same interface against a real provider's
 * API.
 */
public interface ProviderAdapter extends CallbackSource {

  /** The provider's name as shown in {@code payment.provider}, e.g. {@code sandbox_ewallet1}. */
  @Override
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
      java.time.Instant expiresAt,
      String checkoutToken) {}

  /**
   * The provider's answer: its reference and where the customer goes.
   *
   * @param writes what the registration writes in our database, not made yet: the creation makes
   *     them in its own statement (empty for a provider that keeps nothing here)
   */
  record Registered(
      String providerRef, Payment.Checkout checkout, List<OutboxWriter.Write> writes) {

    public Registered {
      writes = List.copyOf(writes);
    }
  }

  /** The largest amount the provider takes (QR Ph's tag 54 holds 13 characters), or null. */
  default java.math.BigDecimal maxAmount() {
    return null;
  }

  /**
   * Registers the payment; runs in the transaction that creates it, which makes the answer's {@link
   * Registered#writes} after it (the payment's row with them, in one statement).
   */
  Registered register(Connection connection, Registration registration) throws SQLException;

  /** A refund as the provider needs it: the order it belongs to and how much goes back. */
  record RefundRequest(
      String refundId,
      String paymentId,
      String orderRef,
      String environment,
      ph.payments.platform.money.Money amount) {}

  /** How the provider took a refund request. */
  enum RefundOutcome {
    /** Refunded at once; the answer is final. */
    SUCCEEDED,
    /** Declined at once; the answer is final and carries a failure. */
    FAILED,
    /** Accepted; the outcome comes later by callback. */
    PROCESSING,
    /** The method cannot refund automatically; queued for the provider's operators. */
    MANUAL
  }

  /**
   * The provider's answer to a refund request.
   *
   * @param providerRef the provider's reference for the refund; later callbacks name it
   * @param failure set for {@link RefundOutcome#FAILED}
   */
  record RefundAccepted(
      String providerRef,
      RefundOutcome outcome,
      ph.payments.payments.payments.domain.Failure failure) {}

  /**
   * Asks the provider to refund part or all of a captured payment; runs in the transaction that
   * creates the refund, after its amount was reserved under the payment's lock.
   */
  RefundAccepted refund(Connection connection, RefundRequest request) throws SQLException;
}
