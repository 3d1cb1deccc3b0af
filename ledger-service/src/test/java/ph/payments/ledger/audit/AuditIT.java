package ph.payments.ledger.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import ph.payments.contracts.Envelope;
import ph.payments.ledger.support.Events;
import ph.payments.ledger.support.LedgerTest;
import ph.payments.testkit.TestDatabase;

/**
 * The operator's view: {@code GET /internal/audit} recomputes every balance from the postings and
 * reports any difference; {@code GET /internal/statements} exports a merchant's postings as CSV.
 */
@MicronautTest(transactional = false)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AuditIT extends LedgerTest {

  @Test
  @Order(1)
  void aHealthyLedgerAuditsClean() {
    String merchant = Events.merchant();
    String payout = Events.payout();
    apply(
        Events.paymentSucceeded(merchant, "test", Events.payment(), "1000.00", "25.00"),
        Events.paymentSucceeded(merchant, "live", Events.payment(), "10.00", "1.00", "USD"));
    post(
        "/internal/holds",
        "{\"payout_id\":\""
            + payout
            + "\",\"merchant_id\":\""
            + merchant
            + "\",\"environment\":\"test\",\"amount\":300,\"currency\":\"PHP\"}");
    apply(Events.payoutSucceeded(merchant, "test", payout, "300.00", "10.00"));

    JsonNode audit = get("/internal/audit", null, null).json();
    assertEquals("ledger_audit", audit.get("object").asText());
    assertTrue(audit.get("ok").asBoolean(), audit.toString());
    assertTrue(audit.get("consistent").asBoolean());
    assertEquals(0, audit.get("balance_differences").size());
    assertEquals(0, audit.get("unbalanced_transactions").size());
    assertEquals(0, audit.get("in_flight_differences").size());
    assertEquals(0, audit.get("anomalies").get("count").asLong());
    assertEquals(2, audit.get("totals").size(), audit.toString());
    for (JsonNode total : audit.get("totals")) {
      assertEquals("0.00", total.get("sum_of_postings").decimalValue().toPlainString());
    }
    assertEquals(4, audit.get("transactions").asLong());
  }

  @Test
  @Order(2)
  void aStatementListsTheMerchantsPostingsOfThePeriodAsCsv() {
    String merchant = Events.merchant();
    String payment = Events.payment();
    Envelope paid = Events.paymentSucceeded(merchant, "test", payment, "1000.00", "25.00");
    apply(
        paid,
        Events.refundSucceeded(
            merchant, "test", "re_01jd3k4m5n6p7q8r9s0t1v2w3x", payment, "100.00", "PHP"),
        Events.paymentSucceeded(merchant, "live", Events.payment(), "5.00", "0.00"),
        Events.paymentSucceeded(Events.merchant(), "test", Events.payment(), "7.00", "0.00"));

    Response csv =
        get("/internal/statements?merchant_id=" + merchant + "&environment=test", null, null);
    assertEquals(200, csv.status(), csv.body());
    assertTrue(csv.contentType().startsWith("text/csv"), csv.contentType());
    List<String> lines = csv.body().lines().toList();
    assertEquals(
        "posted_at,effective_at,posting_id,transaction_id,kind,reference,event_id,account,currency,"
            + "amount,balance_after",
        lines.get(0));
    assertEquals(6, lines.size(), csv.body()); // 3 postings of the payment, 2 of the refund
    String prefix =
        "\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z,\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z,\\d+,\\d+,payment_succeeded,"
            + payment
            + ","
            + paid.messageId()
            + ",";
    List<String> payment3 =
        lines.subList(1, 4).stream()
            .sorted(java.util.Comparator.comparing(line -> line.split(",")[7]))
            .toList();
    assertTrue(
        payment3.get(0).matches(prefix + "merchant_available,PHP,975.00,975.00"), payment3.get(0));
    assertTrue(payment3.get(1).matches(prefix + "platform_fees,PHP,25.00,25.00"), payment3.get(1));
    assertTrue(
        payment3.get(2).matches(prefix + "provider_clearing,PHP,-1000.00,-1000.00"),
        payment3.get(2));
    assertTrue(
        lines.get(4).contains(",refund_succeeded,re_01jd3k4m5n6p7q8r9s0t1v2w3x,"), lines.get(4));
    assertTrue(lines.get(4).endsWith(",merchant_available,PHP,-100.00,875.00"), lines.get(4));

    Response future =
        get(
            "/internal/statements?merchant_id=" + merchant + "&environment=test&from=2999-01-01",
            null,
            null);
    assertEquals(400, future.status(), "from is after the default to (now)");
    Response past =
        get(
            "/internal/statements?merchant_id="
                + merchant
                + "&environment=test&from=2020-01-01&to=1500000000",
            null,
            null);
    assertEquals(400, past.status(), past.body());
    Response empty =
        get(
            "/internal/statements?merchant_id="
                + merchant
                + "&environment=test&from=2020-01-01&to=2021-01-01T00:00:00Z",
            null,
            null);
    assertEquals(1, empty.body().lines().count(), empty.body());
    Response live =
        get(
            "/internal/statements?merchant_id=" + merchant + "&environment=live&currency=PHP",
            null,
            null);
    assertEquals(3, live.body().lines().count(), live.body());
  }

  @ParameterizedTest(name = "{0} is refused on {1}")
  @CsvSource({
    "environment=test, merchant_id",
    "merchant_id=mer_01jd3k4m5n6p7q8r9s0t1v2w3x, environment",
    "merchant_id=mer_01jd3k4m5n6p7q8r9s0t1v2w3x&environment=test&from=yesterday, from",
    "merchant_id=mer_01jd3k4m5n6p7q8r9s0t1v2w3x&environment=test&to=2024-13-01, to",
    "merchant_id=mer_01jd3k4m5n6p7q8r9s0t1v2w3x&environment=test&currency=pesos, currency"
  })
  void badStatementParametersAreNamed(String query, String field) {
    Response response = get("/internal/statements?" + query, null, null);
    assertEquals(400, response.status(), response.body());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  @Test
  @Order(3)
  void parkedEventsMakeTheAuditNotOk() {
    String merchant = Events.merchant();
    Envelope noMerchant = Events.paymentSucceeded(null, "test", Events.payment(), "1.00", "0.00");
    apply(noMerchant);
    JsonNode audit = get("/internal/audit", null, null).json();
    assertFalse(audit.get("ok").asBoolean());
    assertTrue(audit.get("consistent").asBoolean());
    assertEquals(1, audit.get("anomalies").get("count").asLong());
    assertEquals(noMerchant.messageId(), audit.at("/anomalies/recent/0/message_id").asText());
    assertTrue(audit.at("/anomalies/recent/0/reason").asText().contains("merchant"));
    assertEquals(0, count("SELECT count(*) FROM accounts WHERE merchant_id = ?", merchant));
  }

  @Test
  @Order(100)
  void aBalanceChangedBehindTheLedgersBackIsReported() throws Exception {
    String merchant = Events.merchant();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "50.00", "0.00"));
    // Only a superuser switching the triggers off can do this; the audit still sees it.
    try (Connection c = TestDatabase.forClass(getClass()).dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("SET session_replication_role = replica");
      s.execute(
          "UPDATE accounts SET balance = 5000 WHERE merchant_id = '"
              + merchant
              + "' AND code = 'merchant_available'");
    }
    JsonNode audit = get("/internal/audit", null, null).json();
    assertFalse(audit.get("consistent").asBoolean());
    JsonNode difference = audit.get("balance_differences").get(0);
    assertEquals(merchant, difference.get("merchant_id").asText());
    assertEquals("merchant_available", difference.get("account").asText());
    assertEquals("5000.00", difference.get("balance").decimalValue().toPlainString());
    assertEquals("50.00", difference.get("sum_of_postings").decimalValue().toPlainString());
    assertEquals("50.00", difference.get("last_balance_after").decimalValue().toPlainString());
    // The postings themselves were not touched: they still sum to zero.
    for (JsonNode total : audit.get("totals")) {
      assertEquals("0.00", total.get("sum_of_postings").decimalValue().toPlainString());
    }
  }
}
