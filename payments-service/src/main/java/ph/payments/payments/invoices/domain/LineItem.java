package ph.payments.payments.invoices.domain;

import java.math.BigDecimal;
import java.util.Objects;

/**
 * One line of an invoice. {@code amount} is in centavos' scale (2 decimals): the one given, or
 * {@link InvoiceMoney#lineAmount} of quantity and unit amount when the request left it out.
 */
public record LineItem(
    String description, BigDecimal quantity, BigDecimal unitAmount, BigDecimal amount) {

  public LineItem {
    Objects.requireNonNull(description);
    if (quantity.signum() <= 0) {
      throw new IllegalArgumentException("quantity must be above 0");
    }
    if (unitAmount.signum() < 0 || amount.signum() < 0) {
      throw new IllegalArgumentException("amounts are never negative");
    }
    if (amount.scale() != 2) {
      throw new IllegalArgumentException("a line amount has 2 decimals");
    }
  }

  /** A line whose amount was left out: quantity × unit amount, rounded as the money rules say. */
  public static LineItem computed(String description, BigDecimal quantity, BigDecimal unitAmount) {
    return new LineItem(
        description, quantity, unitAmount, InvoiceMoney.lineAmount(quantity, unitAmount));
  }
}
