package ph.payments.payments.invoices.domain;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Optional;

/**
 * The money rules of an invoice (docs/invoices.md "Money"), all to centavos (2 decimals):
 *
 * <ul>
 *   <li>a line's {@code amount}, when left out, is quantity × unit_amount computed exactly and then
 *       rounded once, HALF_UP, to centavos (2 × 33.335 = 66.67; 0.5 × 0.01 = 0.01);
 *   <li>{@code subtotal} = the sum of the line amounts (exact: they are centavos already);
 *   <li>{@code amount} = subtotal − discount_amount + tax_amount; a discount above the subtotal is
 *       refused (tax is on top and never makes room for a discount), so the amount is never
 *       negative;
 *   <li>the deposit of a two-stage invoice = amount × deposit_rate rounded HALF_UP to centavos; it
 *       and the balance (amount − deposit) must each be at least 0.01, or the rate is refused.
 * </ul>
 */
public final class InvoiceMoney {

  public static final int SCALE = 2;

  /** quantity × unit amount, rounded HALF_UP to centavos. */
  public static BigDecimal lineAmount(BigDecimal quantity, BigDecimal unitAmount) {
    return quantity.multiply(unitAmount).setScale(SCALE, RoundingMode.HALF_UP);
  }

  /** A given amount (of at most 2 decimals, as the gateway checked) in centavos' scale. */
  public static BigDecimal centavos(BigDecimal value) {
    return value.setScale(SCALE, RoundingMode.UNNECESSARY);
  }

  /** The totals of an invoice. */
  public record Totals(BigDecimal subtotal, BigDecimal amount) {}

  /**
   * @return the totals, or empty when the discount is above the subtotal
   */
  public static Optional<Totals> totals(
      List<LineItem> lines, BigDecimal discountAmount, BigDecimal taxAmount) {
    BigDecimal subtotal = BigDecimal.ZERO.setScale(SCALE);
    for (LineItem line : lines) {
      subtotal = subtotal.add(line.amount());
    }
    if (discountAmount.compareTo(subtotal) > 0) {
      return Optional.empty();
    }
    return Optional.of(new Totals(subtotal, subtotal.subtract(discountAmount).add(taxAmount)));
  }

  /** amount × rate, rounded HALF_UP to centavos. */
  public static BigDecimal deposit(BigDecimal amount, BigDecimal rate) {
    return amount.multiply(rate).setScale(SCALE, RoundingMode.HALF_UP);
  }

  /** Whether a two-stage invoice of this amount and rate has a deposit and a balance of 0.01+. */
  public static boolean twoStagesPossible(BigDecimal amount, BigDecimal rate) {
    BigDecimal deposit = deposit(amount, rate);
    return deposit.signum() > 0 && amount.subtract(deposit).signum() > 0;
  }

  private InvoiceMoney() {}
}
