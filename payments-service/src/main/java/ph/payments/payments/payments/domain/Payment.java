package ph.payments.payments.payments.domain;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Objects;
import ph.payments.platform.money.Money;

/**
 * A payment (SPEC part 2). Immutable: a move returns a new payment, and only moves in {@link
 * PaymentTransitions} are possible.
 */
public record Payment(
    String id,
    String merchantId,
    String environment,
    PaymentStatus status,
    Money amount,
    String method,
    String provider,
    String providerRef,
    Checkout checkout,
    String returnUrl,
    String webhookUrl,
    String description,
    Customer customer,
    ObjectNode metadata,
    String customerId,
    String paymentLinkId,
    Money fee,
    Money net,
    Money refunded,
    String idempotencyKey,
    Failure failure,
    Instant expiresAt,
    Instant succeededAt,
    Instant failedAt,
    Instant createdAt,
    Instant updatedAt) {

  /**
   * What the customer is sent to: a page, a QR payload and image, a wallet deep link; {@code token}
   * is what the public page and image URLs carry instead of the payment id ({@link
   * CheckoutTokens}), null only for payments made before tokens existed without a checkout.
   */
  public record Checkout(
      String checkoutUrl, String qrCode, String qrCodeUrl, String appLink, String token) {
    public static final Checkout NONE = new Checkout(null, null, null, null, null);
  }

  public Payment {
    Objects.requireNonNull(id);
    Objects.requireNonNull(status);
    Objects.requireNonNull(amount);
    Objects.requireNonNull(fee);
    Objects.requireNonNull(refunded);
  }

  /** The result of asking for a move: applied (with its event type) or rejected (and why). */
  public sealed interface Move permits Moved, Refused {}

  /**
   * The move happened; {@code eventType} is the event to write with it, or null when the move
   * announces itself through another resource's event (a refund's).
   */
  public record Moved(Payment payment, String eventType) implements Move {}

  /** The move is not allowed from the current status. */
  public record Refused(PaymentStatus from, PaymentStatus to) implements Move {}

  /** The provider acknowledged that the customer paid. */
  public Move processing(Instant now) {
    return move(PaymentStatus.PROCESSING, now, "payment.processing", null);
  }

  /** Funds captured: {@code net_amount} = amount − fee. */
  public Move succeeded(Instant now) {
    return move(PaymentStatus.SUCCEEDED, now, "payment.succeeded", null);
  }

  public Move failed(Failure why, Instant now) {
    return move(PaymentStatus.FAILED, now, "payment.failed", why);
  }

  public Move expired(Instant now) {
    return move(PaymentStatus.EXPIRED, now, "payment.expired", null);
  }

  /**
   * A refund of this payment succeeded: {@code refunded_amount} grows by it, and the refund that
   * brings the total to the amount moves the payment to {@code refunded}. Neither writes a payment
   * event ({@code eventType} null): the refund's own {@code refund.succeeded} announces it (SPEC
   * parts 3 and 6; {@code payment.refunded} is never emitted). Only a succeeded payment takes
   * refunds.
   *
   * @throws IllegalStateException when the total would pass the amount: refunds reserve their
   *     amount under the payment's lock, so this is a bug, never a merchant's mistake
   */
  public Move refunded(Money refund, Instant now) {
    if (status != PaymentStatus.SUCCEEDED) {
      return new Refused(status, PaymentStatus.REFUNDED);
    }
    Money total = refunded.plus(refund);
    if (total.compareTo(amount) > 0 || !refund.isPositive()) {
      throw new IllegalStateException(
          "payment " + id + ": refund of " + refund + " after " + refunded + " exceeds " + amount);
    }
    PaymentStatus to = total.equals(amount) ? PaymentStatus.REFUNDED : PaymentStatus.SUCCEEDED;
    if (to != status && !PaymentTransitions.allowed(status, to)) {
      return new Refused(status, to);
    }
    return new Moved(
        new Payment(
            id,
            merchantId,
            environment,
            to,
            amount,
            method,
            provider,
            providerRef,
            checkout,
            returnUrl,
            webhookUrl,
            description,
            customer,
            metadata,
            customerId,
            paymentLinkId,
            fee,
            net,
            total,
            idempotencyKey,
            failure,
            expiresAt,
            succeededAt,
            failedAt,
            createdAt,
            now),
        null);
  }

  private Move move(PaymentStatus to, Instant now, String eventType, Failure why) {
    if (!PaymentTransitions.allowed(status, to)) {
      return new Refused(status, to);
    }
    Payment next =
        new Payment(
            id,
            merchantId,
            environment,
            to,
            amount,
            method,
            provider,
            providerRef,
            checkout,
            returnUrl,
            webhookUrl,
            description,
            customer,
            metadata,
            customerId,
            paymentLinkId,
            fee,
            to == PaymentStatus.SUCCEEDED ? amount.minus(fee) : net,
            refunded,
            idempotencyKey,
            to == PaymentStatus.FAILED ? why : failure,
            expiresAt,
            to == PaymentStatus.SUCCEEDED ? now : succeededAt,
            to == PaymentStatus.FAILED ? now : failedAt,
            createdAt,
            now);
    return new Moved(next, eventType);
  }

  public String currency() {
    return amount.currency();
  }
}
