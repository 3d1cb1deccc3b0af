package ph.payments.payments.payments.domain;

import java.math.BigDecimal;
import java.util.Map;
import ph.payments.platform.money.Money;

/**
 * The platform fee of a payment: a percentage of the gross amount plus a fixed part, rounded
 * half-up to the centavo, never more than the amount itself (so {@code net_amount} is never
 * negative). Defaults per method are documented in {@code docs/fees.md}; a merchant can have its
 * own rates per method.
 *
 * @param percent e.g. {@code 2.5} for 2.5 %
 * @param fixed in the payment's currency's major unit
 */
public record FeeSchedule(BigDecimal percent, BigDecimal fixed) {

  private static final BigDecimal HUNDRED = new BigDecimal(100);

  /** The default rates per method; methods not listed pay {@link #FALLBACK}. */
  public static final Map<String, FeeSchedule> DEFAULTS =
      Map.of(
          "card", new FeeSchedule(new BigDecimal("3.5"), new BigDecimal("15.00")),
          "ewallet1", new FeeSchedule(new BigDecimal("2.5"), BigDecimal.ZERO),
          "ewallet1_qr", new FeeSchedule(new BigDecimal("2.2"), BigDecimal.ZERO),
          "rail1_qr", new FeeSchedule(new BigDecimal("1.5"), BigDecimal.ZERO),
          "bank_transfer", new FeeSchedule(BigDecimal.ZERO, new BigDecimal("15.00")),
          "bank_transfer_nrt", new FeeSchedule(BigDecimal.ZERO, new BigDecimal("10.00")));

  public static final FeeSchedule FALLBACK =
      new FeeSchedule(new BigDecimal("3.0"), BigDecimal.ZERO);

  public static FeeSchedule defaultFor(String method) {
    return DEFAULTS.getOrDefault(method, FALLBACK);
  }

  public Money feeFor(Money amount) {
    Money fee = amount.times(percent.divide(HUNDRED)).plus(Money.of(fixed, amount.currency()));
    return fee.compareTo(amount) > 0 ? amount : fee;
  }
}
