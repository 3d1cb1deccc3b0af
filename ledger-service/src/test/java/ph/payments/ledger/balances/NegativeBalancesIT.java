package ph.payments.ledger.balances;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import ph.payments.ledger.support.Events;
import ph.payments.ledger.support.LedgerTest;
import ph.payments.platform.json.Json;

/**
 * Issue 14, item 11 (docs/ledger.md, "Negative balances"): a refund may take a merchant's available
 * balance below zero, a payout never lets it go lower (nor takes a balance of zero or less), and
 * the operator list names every merchant below zero with since when.
 */
@MicronautTest(transactional = false)
class NegativeBalancesIT extends LedgerTest {

  @Test
  void aNegativeBalanceCannotGrowThroughAPayoutAndIsListedWithSinceWhen() {
    String merchant = Events.merchant();
    String payment = Events.payment();
    Instant before = Instant.now().minusSeconds(1);
    apply(Events.paymentSucceeded(merchant, "live", payment, "100.00", "10.00"));
    // Refunded in full although the fee was kept: available 90.00 - 100.00 = -10.00.
    apply(Events.refundSucceeded(merchant, "live", Events.refund(), payment, "100.00", "PHP"));
    assertEquals(money("-10.00"), available(merchant, "live"));

    for (String amount : new String[] {"0.01", "5.00", "10.00", "100.00"}) {
      Response refused = hold(Events.payout(), merchant, "live", amount);
      assertEquals(400, refused.status(), amount + ": " + refused.body());
      assertEquals("insufficient_balance", refused.errorCode());
    }
    assertEquals(money("-10.00"), available(merchant, "live"), "no payout moved it");
    assertEquals(money("0.00"), inFlight(merchant, "live"));

    Response list = get("/internal/negative_balances?environment=live", null, null);
    assertEquals(200, list.status(), list.body());
    JsonNode row = only(list.json(), merchant);
    assertEquals("live", row.get("environment").asText());
    assertEquals("PHP", row.get("currency").asText());
    assertEquals(money("-10.00"), row.get("available").decimalValue());
    long since = row.get("since").asLong();
    assertTrue(since >= before.getEpochSecond() && since <= Instant.now().getEpochSecond());
    assertEquals(
        0, count(get("/internal/negative_balances?environment=test", null, null).json(), merchant));

    // Back to zero (not below): the merchant leaves the list, and a payout still needs more than
    // zero available.
    apply(Events.paymentSucceeded(merchant, "live", Events.payment(), "10.00", "0.00"));
    assertEquals(money("0.00"), available(merchant, "live"));
    assertEquals(0, count(get("/internal/negative_balances", null, null).json(), merchant));
    assertEquals(400, hold(Events.payout(), merchant, "live", "0.01").status());
  }

  @Test
  void sinceIsWhenTheBalanceLastWentBelowZero() throws InterruptedException {
    String merchant = Events.merchant();
    String first = Events.payment();
    apply(Events.paymentSucceeded(merchant, "test", first, "50.00", "5.00"));
    apply(Events.refundSucceeded(merchant, "test", Events.refund(), first, "50.00", "PHP"));
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "20.00", "0.00"));
    Thread.sleep(1100); // since is in seconds: the two spells must fall in different seconds
    Instant wentBelowAgain = Instant.now();
    String second = Events.payment();
    apply(Events.paymentSucceeded(merchant, "test", second, "30.00", "0.00"));
    apply(Events.refundSucceeded(merchant, "test", Events.refund(), second, "30.00", "PHP"));
    apply(Events.refundSucceeded(merchant, "test", Events.refund(), second, "20.00", "PHP"));
    assertEquals(money("-5.00"), available(merchant, "test"));
    JsonNode row = only(get("/internal/negative_balances", null, null).json(), merchant);
    assertTrue(
        row.get("since").asLong() >= wentBelowAgain.getEpochSecond(),
        "the earlier negative spell ended when the balance reached 15.00: " + row);
  }

  @Test
  void badParametersAreNamed() {
    Response bad = get("/internal/negative_balances?environment=prod&limit=0", null, null);
    assertEquals(400, bad.status(), bad.body());
    assertTrue(bad.json().at("/error/issues/environment").isTextual());
    assertTrue(bad.json().at("/error/issues/limit").isTextual());
  }

  private static JsonNode only(JsonNode list, String merchant) {
    JsonNode found = null;
    for (JsonNode row : list.get("data")) {
      if (row.get("merchant_id").asText().equals(merchant)) {
        assertEquals(null, found, "one row per merchant, environment and currency: " + list);
        found = row;
      }
    }
    assertTrue(found != null, merchant + " not listed: " + list);
    return found;
  }

  private static int count(JsonNode list, String merchant) {
    int n = 0;
    for (JsonNode row : list.get("data")) {
      if (row.get("merchant_id").asText().equals(merchant)) {
        n++;
      }
    }
    return n;
  }

  private Response hold(String payout, String merchant, String environment, String amount) {
    return post(
        "/internal/holds",
        Json.toText(
            Map.of(
                "payout_id", payout,
                "merchant_id", merchant,
                "environment", environment,
                "amount", new BigDecimal(amount),
                "currency", "PHP")));
  }
}
