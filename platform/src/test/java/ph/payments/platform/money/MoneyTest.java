package ph.payments.platform.money;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;
import ph.payments.platform.json.Json;

class MoneyTest {

  record Body(BigDecimal amount, String currency) {}

  @Test
  void amountsRoundTripThroughJsonExactly() throws Exception {
    for (String amount : new String[] {"100.50", "0.01", "999999999999.99", "12345678901.10"}) {
      String json = "{\"amount\":" + amount + ",\"currency\":\"PHP\"}";
      Body body = Json.mapper().readValue(json, Body.class);
      Money money = Money.of(body.amount(), body.currency());
      String written = Json.toText(new Body(money.amount(), money.currency()));
      assertEquals(json, written);
    }
  }

  @Test
  void amountsAreWrittenWithTwoDecimalsAndNoExponent() {
    Money money = Money.of(new BigDecimal("1E+3"), "PHP");
    assertEquals(
        "{\"amount\":1000.00,\"currency\":\"PHP\"}", Json.toText(new Body(money.amount(), "PHP")));
    assertEquals("0.50", Money.of("0.5", "PHP").amount().toPlainString());
  }

  @Test
  void decimalsInsideJsonTreesStayExact() {
    JsonNode tree = Json.tree("{\"metadata\":{\"rate\":0.10,\"total\":100.50}}");
    assertEquals("{\"metadata\":{\"rate\":0.10,\"total\":100.50}}", Json.toText(tree));
  }

  @Test
  void decimalArithmeticIsExact() {
    Money sum = Money.of("0.10", "PHP").plus(Money.of("0.20", "PHP"));
    assertEquals(Money.of("0.30", "PHP"), sum);
    assertEquals(new BigDecimal("0.30"), sum.amount());
    assertEquals(Money.of("-0.10", "PHP"), Money.of("0.10", "PHP").minus(Money.of("0.20", "PHP")));
  }

  @Test
  void aThirdCentavoIsRejectedNotRounded() {
    assertThrows(InvalidAmountException.class, () -> Money.of("1.005", "PHP"));
    assertEquals(Money.of("1.00", "PHP"), Money.of("1.000", "PHP"));
  }

  @Test
  void feesRoundHalfUpToTheCentavo() {
    assertEquals(Money.of("0.03", "PHP"), Money.of("1.00", "PHP").times(new BigDecimal("0.025")));
    assertEquals(Money.of("0.02", "PHP"), Money.of("1.00", "PHP").times(new BigDecimal("0.0249")));
    assertEquals(
        Money.of("25.00", "PHP"), Money.of("1000.00", "PHP").times(new BigDecimal("0.025")));
  }

  @Test
  void currenciesDoNotMix() {
    assertThrows(
        IllegalArgumentException.class,
        () -> Money.of("1.00", "PHP").plus(Money.of("1.00", "USD")));
    assertThrows(InvalidAmountException.class, () -> Money.of("1.00", "php"));
    assertThrows(InvalidAmountException.class, () -> Money.of("1.00", "PESO"));
  }

  @Test
  void minorUnitsConvertBothWays() {
    assertEquals(10050, Money.of("100.50", "PHP").minorUnits());
    assertEquals(Money.of("100.50", "PHP"), Money.ofMinor(10050, "PHP"));
  }

  @Test
  void numbersAreNotCoercedFromStrings() {
    assertThrows(Exception.class, () -> Json.mapper().readValue("{\"amount\":\"10\"}", Body.class));
  }
}
