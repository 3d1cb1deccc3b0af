package ph.payments.payments.invoices.application;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import ph.payments.payments.invoices.domain.InvoiceMoney;
import ph.payments.payments.invoices.domain.LineItem;

/**
 * Reading the (gateway-validated) values of an invoice body, and the money checks only the whole
 * invoice can make (a discount above the subtotal; a deposit rate that leaves no deposit or no
 * balance).
 */
final class InvoiceFields {

  /** The largest subtotal or amount (SPEC part 8's largest payment). */
  static final BigDecimal AMOUNT_MAX = new BigDecimal("999999999999");

  static String text(JsonNode body, String name) {
    JsonNode node = body.get(name);
    return node == null || node.isNull() ? null : node.asText();
  }

  static BigDecimal money(JsonNode body, String name) {
    JsonNode node = body.get(name);
    return node == null || node.isNull() ? null : InvoiceMoney.centavos(node.decimalValue());
  }

  static BigDecimal decimal(JsonNode body, String name) {
    JsonNode node = body.get(name);
    return node == null || node.isNull() ? null : node.decimalValue().stripTrailingZeros();
  }

  static LocalDate date(JsonNode body, String name) {
    String value = text(body, name);
    return value == null ? null : LocalDate.parse(value);
  }

  static List<LineItem> lineItems(JsonNode array) {
    List<LineItem> lines = new ArrayList<>();
    for (JsonNode item : array) {
      String description = item.get("description").asText();
      BigDecimal quantity = item.get("quantity").decimalValue().stripTrailingZeros();
      BigDecimal unitAmount = item.get("unit_amount").decimalValue().stripTrailingZeros();
      BigDecimal amount = money(item, "amount");
      lines.add(
          amount == null
              ? LineItem.computed(description, quantity, unitAmount)
              : new LineItem(description, quantity, unitAmount, amount));
    }
    return lines;
  }

  /** An invoice's priced money, or the issues that refuse it. */
  record Priced(InvoiceMoney.Totals totals, Map<String, String> issues) {}

  static Priced price(
      List<LineItem> lines, BigDecimal discount, BigDecimal tax, BigDecimal depositRate) {
    Map<String, String> issues = new LinkedHashMap<>();
    InvoiceMoney.Totals totals = InvoiceMoney.totals(lines, discount, tax).orElse(null);
    if (totals != null
        && (totals.subtotal().compareTo(AMOUNT_MAX) > 0
            || totals.amount().compareTo(AMOUNT_MAX) > 0)) {
      issues.put("line_items", "add up to more than " + AMOUNT_MAX.toPlainString());
    } else if (totals == null) {
      BigDecimal subtotal =
          InvoiceMoney.totals(lines, BigDecimal.ZERO, tax).orElseThrow().subtotal();
      issues.put("discount_amount", "must be at most the subtotal, " + subtotal.toPlainString());
    } else if (depositRate != null
        && !InvoiceMoney.twoStagesPossible(totals.amount(), depositRate)) {
      issues.put(
          "deposit_rate",
          "leaves no deposit or no balance of at least 0.01 on an amount of "
              + totals.amount().toPlainString());
    }
    return new Priced(totals, issues);
  }

  private InvoiceFields() {}
}
