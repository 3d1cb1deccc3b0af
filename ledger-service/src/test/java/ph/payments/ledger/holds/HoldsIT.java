package ph.payments.ledger.holds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import ph.payments.ledger.support.Events;
import ph.payments.ledger.support.LedgerTest;
import ph.payments.platform.json.Json;

/**
 * {@code POST /internal/holds} over real HTTP: a payout's debit is taken only when available covers
 * it, atomically under concurrency, and idempotently on the payout id.
 */
@MicronautTest(transactional = false)
class HoldsIT extends LedgerTest {

  @Test
  void fiftyConcurrentPayoutsAgainstABalanceCoveringTenAcceptExactlyTen() throws Exception {
    String merchant = Events.merchant();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "1030.00", "30.00"));
    int payouts = 50;
    CountDownLatch ready = new CountDownLatch(payouts);
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(payouts);
    List<Future<Response>> answers = new ArrayList<>();
    try {
      for (int i = 0; i < payouts; i++) {
        String payout = Events.payout();
        answers.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  go.await();
                  return hold(payout, merchant, "test", "100.00", "PHP");
                }));
      }
      assertTrue(ready.await(10, TimeUnit.SECONDS));
      go.countDown();
      int accepted = 0;
      int refused = 0;
      List<BigDecimal> balancesAfter = new ArrayList<>();
      for (Future<Response> answer : answers) {
        Response response = answer.get(30, TimeUnit.SECONDS);
        if (response.status() == 201) {
          accepted++;
          balancesAfter.add(response.json().get("balance_after").decimalValue());
        } else {
          assertEquals(400, response.status(), response.body());
          assertEquals("insufficient_balance", response.errorCode());
          refused++;
        }
      }
      assertEquals(10, accepted);
      assertEquals(40, refused);
      // Each accepted hold saw the balance the previous one left: 900.00, 800.00, … 0.00.
      balancesAfter.sort(null);
      for (int i = 0; i < 10; i++) {
        assertEquals(new BigDecimal(i * 100).setScale(2), balancesAfter.get(i));
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(money("0.00"), available(merchant, "test"));
    assertEquals(money("1000.00"), inFlight(merchant, "test"));
    assertEquals(
        10,
        count(
            "SELECT count(*) FROM payout_holds WHERE merchant_id = ? AND status = 'held'",
            merchant));
  }

  /**
   * The list payments-service's orphan reconciler walks: held holds only, oldest first, paged with
   * {@code starting_after}, which keeps its place even when the hold it names was released
   * meanwhile.
   */
  @Test
  void heldHoldsArePagedWithStartingAfterEvenPastAReleasedOne() {
    String merchant = Events.merchant();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "100.00", "0.00"));
    List<String> payouts = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String payout = Events.payout();
      assertEquals(201, hold(payout, merchant, "test", "10.00", "PHP").status());
      payouts.add(payout);
    }
    long later = java.time.Instant.now().getEpochSecond() + 60;
    List<String> seen = new ArrayList<>();
    String after = null;
    boolean releasedOne = false;
    while (true) {
      Response page =
          get(
              "/internal/holds?status=held&limit=2&created_before="
                  + later
                  + (after == null ? "" : "&starting_after=" + after),
              null,
              null);
      assertEquals(200, page.status(), page.body());
      List<String> ids = new ArrayList<>();
      page.json().get("data").forEach(h -> ids.add(h.get("payout_id").asText()));
      ids.retainAll(payouts); // other tests' holds share the database
      seen.addAll(ids);
      if (page.json().get("data").size() < 2) {
        break;
      }
      after = page.json().get("data").get(1).get("payout_id").asText();
      if (!releasedOne && payouts.contains(after)) {
        // The cursor's own hold goes away between two pages.
        assertEquals(200, post("/internal/holds/" + after + "/release", null).status());
        releasedOne = true;
      }
    }
    assertTrue(releasedOne);
    assertEquals(payouts, seen, "every held hold once, in order");
  }

  @Test
  void concurrentRequestsForOnePayoutIdTakeOneDebit() throws Exception {
    String merchant = Events.merchant();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "500.00", "0.00"));
    String payout = Events.payout();
    ExecutorService pool = Executors.newFixedThreadPool(20);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Response>> answers = new ArrayList<>();
    try {
      for (int i = 0; i < 20; i++) {
        answers.add(
            pool.submit(
                () -> {
                  go.await();
                  return hold(payout, merchant, "test", "120.00", "PHP");
                }));
      }
      go.countDown();
      int created = 0;
      for (Future<Response> answer : answers) {
        Response response = answer.get(30, TimeUnit.SECONDS);
        assertTrue(response.status() == 201 || response.status() == 200, response.body());
        assertEquals("380.00", response.json().get("balance_after").decimalValue().toPlainString());
        created += response.status() == 201 ? 1 : 0;
      }
      assertEquals(1, created);
    } finally {
      pool.shutdownNow();
    }
    assertEquals(money("380.00"), available(merchant, "test"));
  }

  @Test
  void aHoldIsAnsweredWithItsOutcomeAndAReplayReturnsTheOriginal() {
    String merchant = Events.merchant();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "300.00", "0.00"));
    String payout = Events.payout();

    Response first = hold(payout, merchant, "test", "125.50", "PHP");
    assertEquals(201, first.status(), first.body());
    assertEquals("payout_hold", first.json().get("object").asText());
    assertEquals(payout, first.json().get("payout_id").asText());
    assertEquals("held", first.json().get("status").asText());
    assertEquals("125.50", first.json().get("amount").decimalValue().toPlainString());
    assertEquals("PHP", first.json().get("currency").asText());
    assertEquals("174.50", first.json().get("balance_after").decimalValue().toPlainString());
    assertTrue(first.body().contains("\"amount\":125.50"), first.body());

    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "50.00", "0.00"));
    Response replay = hold(payout, merchant, "test", "125.50", "PHP");
    assertEquals(200, replay.status(), replay.body());
    assertEquals("174.50", replay.json().get("balance_after").decimalValue().toPlainString());
    assertEquals(money("224.50"), available(merchant, "test"));

    assertEquals(
        first.json().get("created"),
        get("/internal/holds/" + payout, null, null).json().get("created"));
  }

  @ParameterizedTest(name = "the same payout id with {0} is a conflict")
  @CsvSource({
    "another amount, 99.99, PHP, test",
    "another currency, 100.00, USD, test",
    "another environment, 100.00, PHP, live"
  })
  void theSamePayoutIdForSomethingElseIsAConflict(
      String what, String amount, String currency, String environment) {
    String merchant = Events.merchant();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "300.00", "0.00"));
    String payout = Events.payout();
    assertEquals(201, hold(payout, merchant, "test", "100.00", "PHP").status());
    Response conflict = hold(payout, merchant, environment, amount, currency);
    assertEquals(409, conflict.status(), conflict.body());
    assertEquals("conflict", conflict.errorCode());
    Response otherMerchant = hold(payout, Events.merchant(), "test", "100.00", "PHP");
    assertEquals(409, otherMerchant.status(), otherMerchant.body());
    assertEquals(money("200.00"), available(merchant, "test"));
  }

  @Test
  void aRefusalIsRememberedEvenAfterTheBalanceGrew() {
    String merchant = Events.merchant();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "50.00", "0.00"));
    String payout = Events.payout();
    Response refused = hold(payout, merchant, "test", "80.00", "PHP");
    assertEquals(400, refused.status(), refused.body());
    assertEquals("insufficient_balance", refused.errorCode());

    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "100.00", "0.00"));
    Response replay = hold(payout, merchant, "test", "80.00", "PHP");
    assertEquals(400, replay.status(), replay.body());
    assertEquals("insufficient_balance", replay.errorCode());
    assertEquals(money("150.00"), available(merchant, "test"));
    // A new payout (a new id) for the same amount is taken.
    assertEquals(201, hold(Events.payout(), merchant, "test", "80.00", "PHP").status());
  }

  @Test
  void aMerchantWithoutActivityIsRefusedAndGetsNoAccounts() {
    String merchant = Events.merchant();
    Response refused = hold(Events.payout(), merchant, "test", "0.01", "PHP");
    assertEquals(400, refused.status());
    assertEquals("insufficient_balance", refused.errorCode());
    assertEquals(0, count("SELECT count(*) FROM accounts WHERE merchant_id = ?", merchant));
  }

  @Test
  void theWholeBalanceCanBeHeldButNotACentMore() {
    String merchant = Events.merchant();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "100.00", "1.01"));
    assertEquals(400, hold(Events.payout(), merchant, "test", "99.00", "PHP").status());
    Response all = hold(Events.payout(), merchant, "test", "98.99", "PHP");
    assertEquals(201, all.status(), all.body());
    assertEquals("0.00", all.json().get("balance_after").decimalValue().toPlainString());
    assertEquals(400, hold(Events.payout(), merchant, "test", "0.01", "PHP").status());
  }

  @Test
  void aReleasedHoldGoesBackOnceAndAFailedPayoutAfterwardsChangesNothing() {
    String merchant = Events.merchant();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "100.00", "0.00"));
    String payout = Events.payout();
    assertEquals(201, hold(payout, merchant, "test", "70.00", "PHP").status());
    Response released = post("/internal/holds/" + payout + "/release", null);
    assertEquals(200, released.status(), released.body());
    assertEquals("reversed", released.json().get("status").asText());
    assertEquals(200, post("/internal/holds/" + payout + "/release", null).status());
    apply(Events.payoutFailed(merchant, "test", payout, "70.00"));
    assertEquals(money("100.00"), available(merchant, "test"));
    assertEquals(money("0.00"), inFlight(merchant, "test"));
  }

  @Test
  void aSettledPayoutCannotBeReleased() {
    String merchant = Events.merchant();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "100.00", "0.00"));
    String payout = Events.payout();
    hold(payout, merchant, "test", "70.00", "PHP");
    apply(Events.payoutSucceeded(merchant, "test", payout, "70.00", "5.00"));
    Response released = post("/internal/holds/" + payout + "/release", null);
    assertEquals(409, released.status(), released.body());
    assertEquals("conflict", released.errorCode());
    assertEquals(404, post("/internal/holds/" + Events.payout() + "/release", null).status());
    assertEquals(404, get("/internal/holds/" + Events.payout(), null, null).status());
  }

  @ParameterizedTest(name = "{0} is refused on {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"merchant_id\":\"M\",\"environment\":\"test\",\"amount\":1,\"currency\":\"PHP\"} | payout_id",
        "{\"payout_id\":\"pay_01jd3k4m5n6p7q8r9s0t1v2w3x\",\"merchant_id\":\"M\",\"environment\":\"test\",\"amount\":1,\"currency\":\"PHP\"} | payout_id",
        "{\"payout_id\":\"P\",\"merchant_id\":\"mer_x\",\"environment\":\"test\",\"amount\":1,\"currency\":\"PHP\"} | merchant_id",
        "{\"payout_id\":\"P\",\"merchant_id\":\"M\",\"environment\":\"prod\",\"amount\":1,\"currency\":\"PHP\"} | environment",
        "{\"payout_id\":\"P\",\"merchant_id\":\"M\",\"amount\":1,\"currency\":\"PHP\"}                        | environment",
        "{\"payout_id\":\"P\",\"merchant_id\":\"M\",\"environment\":\"test\",\"amount\":0,\"currency\":\"PHP\"} | amount",
        "{\"payout_id\":\"P\",\"merchant_id\":\"M\",\"environment\":\"test\",\"amount\":-5,\"currency\":\"PHP\"} | amount",
        "{\"payout_id\":\"P\",\"merchant_id\":\"M\",\"environment\":\"test\",\"amount\":1.001,\"currency\":\"PHP\"} | amount",
        "{\"payout_id\":\"P\",\"merchant_id\":\"M\",\"environment\":\"test\",\"amount\":\"1.00\",\"currency\":\"PHP\"} | amount",
        "{\"payout_id\":\"P\",\"merchant_id\":\"M\",\"environment\":\"test\",\"amount\":1000000000000,\"currency\":\"PHP\"} | amount",
        "{\"payout_id\":\"P\",\"merchant_id\":\"M\",\"environment\":\"test\",\"amount\":1,\"currency\":\"php\"} | currency",
        "{\"payout_id\":\"P\",\"merchant_id\":\"M\",\"environment\":\"test\",\"amount\":1} | currency",
        "[]                                                                                       | body"
      })
  void badRequestsNameTheirField(String body, String field) {
    Response response =
        post(
            "/internal/holds",
            body.strip()
                .replace("\"P\"", "\"" + Events.payout() + "\"")
                .replace("\"M\"", "\"" + Events.merchant() + "\""));
    assertEquals(400, response.status(), response.body());
    assertEquals("invalid_request", response.errorCode());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  @Test
  void withoutTheInternalTokenNothingIsHeld() throws Exception {
    var client = java.net.http.HttpClient.newHttpClient();
    var response =
        client.send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(server.getURL() + "/internal/holds"))
                .header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}"))
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(401, response.statusCode());
  }

  private Response hold(
      String payout, String merchant, String environment, String amount, String currency) {
    return post(
        "/internal/holds",
        Json.toText(
            Map.of(
                "payout_id", payout,
                "merchant_id", merchant,
                "environment", environment,
                "amount", new BigDecimal(amount),
                "currency", currency)));
  }
}
