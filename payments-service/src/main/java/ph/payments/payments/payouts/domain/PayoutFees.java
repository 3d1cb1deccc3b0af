package ph.payments.payments.payouts.domain;

import java.math.BigDecimal;
import java.util.Map;
import ph.payments.platform.money.Money;

/**
 * The platform's fixed fee per payout, by method (docs/refunds-payouts.md). It is part of the
 * payout's amount: the merchant's balance pays the amount, the recipient receives the amount minus
 * the fee, so a payout must be larger than its fee.
 */
public final class PayoutFees {

  public static final Map<String, BigDecimal> DEFAULTS =
      Map.of(
          "ewallet1", new BigDecimal("10.00"),
          "bank_transfer", new BigDecimal("15.00"),
          "bank_transfer_nrt", new BigDecimal("10.00"));

  /** For a method a live connector adds without a fee of its own here. */
  public static final BigDecimal FALLBACK = new BigDecimal("15.00");

  public static Money feeFor(String method, String currency) {
    return Money.of(DEFAULTS.getOrDefault(method, FALLBACK), currency);
  }

  private PayoutFees() {}
}
