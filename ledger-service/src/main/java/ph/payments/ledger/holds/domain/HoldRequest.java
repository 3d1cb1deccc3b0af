package ph.payments.ledger.holds.domain;

import java.util.Objects;
import ph.payments.platform.money.Money;

/**
 * A request to take a payout's debit: idempotent on {@code payoutId}.
 *
 * @param amount positive
 */
public record HoldRequest(String payoutId, String merchantId, String environment, Money amount) {

  public HoldRequest {
    Objects.requireNonNull(payoutId, "payoutId");
    Objects.requireNonNull(merchantId, "merchantId");
    Objects.requireNonNull(environment, "environment");
    if (!amount.isPositive()) {
      throw new IllegalArgumentException("a hold is for a positive amount: " + amount);
    }
  }
}
