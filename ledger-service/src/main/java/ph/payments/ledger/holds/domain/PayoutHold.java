package ph.payments.ledger.holds.domain;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Objects;
import ph.payments.platform.money.Money;

/**
 * The ledger's record of one payout, keyed by the payout id the caller chose (as TigerBeetle's
 * transfer id): what was asked, and how it stands.
 *
 * @param balanceAfter the available balance right after the hold request was decided; null when the
 *     ledger learnt of the payout from an event rather than a hold request
 */
public record PayoutHold(
    String payoutId,
    String merchantId,
    String environment,
    Money amount,
    HoldStatus status,
    BigDecimal balanceAfter,
    Instant createdAt,
    Instant updatedAt) {

  public PayoutHold {
    Objects.requireNonNull(payoutId, "payoutId");
    Objects.requireNonNull(merchantId, "merchantId");
    Objects.requireNonNull(environment, "environment");
    Objects.requireNonNull(amount, "amount");
    Objects.requireNonNull(status, "status");
  }

  public String currency() {
    return amount.currency();
  }

  /** Whether {@code request} asks for exactly what this hold is for. */
  public boolean sameAs(HoldRequest request) {
    return merchantId.equals(request.merchantId())
        && environment.equals(request.environment())
        && amount.equals(request.amount());
  }

  public PayoutHold withStatus(HoldStatus next, Instant at) {
    return new PayoutHold(
        payoutId, merchantId, environment, amount, next, balanceAfter, createdAt, at);
  }
}
