package ph.payments.payments.payouts.domain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Objects;
import ph.payments.payments.payments.domain.Failure;
import ph.payments.platform.money.Money;

/**
 * A payout from the merchant's balance (SPEC part 2). {@code amount} is what the balance pays (the
 * ledger held it before the payout was accepted); {@code fee} is part of it, so the recipient
 * receives {@code amount − fee}. Immutable: a move returns a new payout, and only moves in {@link
 * PayoutTransitions} are possible.
 *
 * @param destination as the merchant gave it (SPEC: method-specific)
 * @param metadata null when the merchant gave none
 */
public record Payout(
    String id,
    String merchantId,
    String environment,
    PayoutStatus status,
    Money amount,
    String method,
    String provider,
    String providerRef,
    JsonNode destination,
    String description,
    ObjectNode metadata,
    Money fee,
    Failure failure,
    Instant paidAt,
    Instant failedAt,
    Instant createdAt,
    Instant updatedAt) {

  public static final String SUCCEEDED = "payout.succeeded";
  public static final String FAILED = "payout.failed";

  public Payout {
    Objects.requireNonNull(id);
    Objects.requireNonNull(status);
    Objects.requireNonNull(amount);
    Objects.requireNonNull(fee);
    Objects.requireNonNull(destination);
    if (fee.isNegative() || fee.compareTo(amount) >= 0) {
      throw new IllegalArgumentException("fee " + fee + " must be below the amount " + amount);
    }
  }

  /** The result of asking for a move: applied (with its event type, if any) or refused. */
  public sealed interface Move permits Moved, Refused {}

  /** The move happened; {@code eventType} is the event to write with it, or null for none. */
  public record Moved(Payout payout, String eventType) implements Move {}

  /** The move is not allowed from the current status. */
  public record Refused(PayoutStatus from, PayoutStatus to) implements Move {}

  /** Sent; the receiving institution has not confirmed. No event. */
  public Move processing(Instant now) {
    return move(PayoutStatus.PROCESSING, now, null, null);
  }

  public Move succeeded(Instant now) {
    return move(PayoutStatus.SUCCEEDED, now, SUCCEEDED, null);
  }

  public Move failed(Failure why, Instant now) {
    return move(PayoutStatus.FAILED, now, FAILED, Objects.requireNonNull(why));
  }

  /** What reaches the recipient. */
  public Money sent() {
    return amount.minus(fee);
  }

  public String currency() {
    return amount.currency();
  }

  private Move move(PayoutStatus to, Instant now, String eventType, Failure why) {
    if (!PayoutTransitions.allowed(status, to)) {
      return new Refused(status, to);
    }
    return new Moved(
        new Payout(
            id,
            merchantId,
            environment,
            to,
            amount,
            method,
            provider,
            providerRef,
            destination,
            description,
            metadata,
            fee,
            to == PayoutStatus.FAILED ? why : failure,
            to == PayoutStatus.SUCCEEDED ? now : paidAt,
            to == PayoutStatus.FAILED ? now : failedAt,
            createdAt,
            now),
        eventType);
  }
}
