package ph.payments.ledger.balances;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import ph.payments.ledger.support.Events;
import ph.payments.ledger.support.LedgerTest;

/** {@code GET /internal/balances}, the owner's side of {@code GET /v1/balance}. */
@MicronautTest(transactional = false)
class BalancesIT extends LedgerTest {

  @Test
  void theListHasOneEntryPerCurrencyWithActivityInTheCallersEnvironment() {
    String merchant = Events.merchant();
    apply(
        Events.paymentSucceeded(merchant, "test", Events.payment(), "1500.00", "37.50"),
        Events.paymentSucceeded(merchant, "test", Events.payment(), "10.00", "0.35", "USD"),
        Events.paymentSucceeded(merchant, "live", Events.payment(), "99.00", "0.00", "EUR"));

    Response test = get("/internal/balances", merchant, "test");
    assertEquals(200, test.status(), test.body());
    assertEquals(
        "{\"object\":\"balance_list\",\"environment\":\"test\","
            + "\"available\":{\"PHP\":1462.50,\"USD\":9.65}}",
        test.body());
    assertEquals(
        "{\"object\":\"balance_list\",\"environment\":\"live\",\"available\":{\"EUR\":99.00}}",
        get("/internal/balances", merchant, "live").body());
  }

  @Test
  void aMerchantWithoutActivityHasAnEmptyList() {
    assertEquals(
        "{\"object\":\"balance_list\",\"environment\":\"test\",\"available\":{}}",
        get("/internal/balances", Events.merchant(), "test").body());
  }

  @Test
  void oneCurrencyGivesTheBalanceObjectAndZeroWithoutActivity() {
    String merchant = Events.merchant();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "200.00", "5.00"));
    assertEquals(
        "{\"object\":\"balance\",\"environment\":\"test\",\"currency\":\"PHP\",\"available\":195.00}",
        get("/internal/balances?currency=PHP", merchant, "test").body());
    assertEquals(
        "{\"object\":\"balance\",\"environment\":\"test\",\"currency\":\"USD\",\"available\":0.00}",
        get("/internal/balances?currency=USD", merchant, "test").body());
    assertEquals(
        "{\"object\":\"balance\",\"environment\":\"live\",\"currency\":\"PHP\",\"available\":0.00}",
        get("/internal/balances?currency=PHP", merchant, "live").body());
  }

  @Test
  void moneyInFlightIsNotAvailable() {
    String merchant = Events.merchant();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "200.00", "0.00"));
    Response held =
        post(
            "/internal/holds",
            "{\"payout_id\":\""
                + Events.payout()
                + "\",\"merchant_id\":\""
                + merchant
                + "\",\"environment\":\"test\",\"amount\":150,\"currency\":\"PHP\"}");
    assertEquals(201, held.status(), held.body());
    assertEquals(
        "50.00",
        get("/internal/balances?currency=PHP", merchant, "test")
            .json()
            .get("available")
            .decimalValue()
            .toPlainString());
  }

  @ParameterizedTest(name = "currency={0} is refused")
  @ValueSource(strings = {"PH", "PHPX", "php", "P1P", "%20PHP", ""})
  void aBadCurrencyIsA400NamingIt(String currency) {
    Response response = get("/internal/balances?currency=" + currency, Events.merchant(), "test");
    assertEquals(400, response.status(), response.body());
    assertEquals("invalid_request", response.errorCode());
    assertTrue(response.json().at("/error/issues/currency").isTextual(), response.body());
  }

  @Test
  void withoutTheGatewaysScopeHeadersTheReadFails() {
    Response response = get("/internal/balances", null, null);
    assertEquals(500, response.status(), response.body());
    assertEquals("internal_error", response.errorCode());
  }
}
