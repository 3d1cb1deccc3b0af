package ph.payments.payments.refunds.domain;

import java.time.Instant;
import java.util.Objects;
import ph.payments.payments.payments.domain.Failure;
import ph.payments.platform.money.Money;

/**
 * A refund of part or all of a succeeded payment (SPEC part 2), in the payment's currency.
 * Immutable: a move returns a new refund, and only moves in {@link RefundTransitions} are possible.
 *
 * @param reason {@code duplicate}, {@code fraudulent}, {@code requested_by_customer}, {@code
 *     other}, or null
 * @param provider the payment's provider, which carries the refund out
 */
public record Refund(
    String id,
    String merchantId,
    String environment,
    String paymentId,
    RefundStatus status,
    Money amount,
    String reason,
    String provider,
    String providerRef,
    Failure failure,
    Instant succeededAt,
    Instant failedAt,
    Instant createdAt,
    Instant updatedAt) {

  public static final String CREATED = "refund.created";
  public static final String SUCCEEDED = "refund.succeeded";
  public static final String FAILED = "refund.failed";

  public Refund {
    Objects.requireNonNull(id);
    Objects.requireNonNull(paymentId);
    Objects.requireNonNull(status);
    Objects.requireNonNull(amount);
    if (!amount.isPositive()) {
      throw new IllegalArgumentException("a refund's amount is positive: " + amount);
    }
  }

  /**
   * A refund about to be handed to the provider: {@code pending}, with the provider's reference.
   */
  public static Refund handedOver(
      String id,
      String merchantId,
      String environment,
      String paymentId,
      Money amount,
      String reason,
      String provider,
      String providerRef,
      Instant now) {
    return new Refund(
        id,
        merchantId,
        environment,
        paymentId,
        RefundStatus.PENDING,
        amount,
        reason,
        provider,
        providerRef,
        null,
        null,
        null,
        now,
        now);
  }

  /** The result of asking for a move: applied (with its event type, if any) or refused. */
  public sealed interface Move permits Moved, Refused {}

  /** The move happened; {@code eventType} is the event to write with it, or null for none. */
  public record Moved(Refund refund, String eventType) implements Move {}

  /** The move is not allowed from the current status. */
  public record Refused(RefundStatus from, RefundStatus to) implements Move {}

  /** The provider accepted the refund and reports later. */
  public Move processing(Instant now) {
    return move(RefundStatus.PROCESSING, now, null, null);
  }

  /** Queued for the provider's operators. */
  public Move pendingManual(Instant now) {
    return move(RefundStatus.PENDING_MANUAL, now, null, null);
  }

  public Move succeeded(Instant now) {
    return move(RefundStatus.SUCCEEDED, now, SUCCEEDED, null);
  }

  public Move failed(Failure why, Instant now) {
    return move(RefundStatus.FAILED, now, FAILED, Objects.requireNonNull(why));
  }

  /** Whether its amount is still reserved against the payment (every status but failed). */
  public boolean reserves() {
    return status != RefundStatus.FAILED;
  }

  public String currency() {
    return amount.currency();
  }

  private Move move(RefundStatus to, Instant now, String eventType, Failure why) {
    if (!RefundTransitions.allowed(status, to)) {
      return new Refused(status, to);
    }
    return new Moved(
        new Refund(
            id,
            merchantId,
            environment,
            paymentId,
            to,
            amount,
            reason,
            provider,
            providerRef,
            to == RefundStatus.FAILED ? why : failure,
            to == RefundStatus.SUCCEEDED ? now : succeededAt,
            to == RefundStatus.FAILED ? now : failedAt,
            createdAt,
            now),
        eventType);
  }
}
