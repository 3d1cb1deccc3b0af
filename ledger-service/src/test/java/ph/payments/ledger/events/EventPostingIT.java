package ph.payments.ledger.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.Envelope;
import ph.payments.ledger.holds.application.TakeHold;
import ph.payments.ledger.holds.domain.HoldDecision;
import ph.payments.ledger.holds.domain.HoldRequest;
import ph.payments.ledger.support.Events;
import ph.payments.ledger.support.LedgerTest;
import ph.payments.platform.json.Json;
import ph.payments.platform.money.Money;
import ph.payments.testkit.CountingConnection;

/** The posting rules of each event type, applied through the ledger's event handler. */
@MicronautTest(transactional = false)
class EventPostingIT extends LedgerTest {

  @Inject TakeHold takeHold;

  @Test
  void aSucceededPaymentCreditsTheNetAmountBooksTheFeeAndDebitsClearingWithTheGross() {
    String merchant = Events.merchant();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "1000.00", "25.00"));

    assertEquals(money("975.00"), available(merchant, "test"));
    assertEquals(money("25.00"), balance("platform_fees", merchant, "test", "PHP"));
    assertEquals(money("-1000.00"), balance("provider_clearing", merchant, "test", "PHP"));
    assertEquals(money("0.00"), inFlight(merchant, "test"));
  }

  @Test
  void aPaymentWithoutAFeePostsTwoLegs() {
    String merchant = Events.merchant();
    String payment = Events.payment();
    apply(Events.paymentSucceeded(merchant, "test", payment, "10.00", "0.00"));
    assertEquals(money("10.00"), available(merchant, "test"));
    assertEquals(
        2,
        count(
            "SELECT count(*) FROM postings p JOIN journal_transactions t ON t.id = p.transaction_id"
                + " WHERE t.reference = ?",
            payment));
  }

  @Test
  void theSameMessageTwicePostsOnce() {
    String merchant = Events.merchant();
    Envelope event = Events.paymentSucceeded(merchant, "test", Events.payment(), "100.00", "2.50");
    boolean first = transactions.inTransaction(c -> applyEvent.apply(c, event));
    boolean second = transactions.inTransaction(c -> applyEvent.apply(c, event));
    assertTrue(first);
    assertFalse(second);
    assertEquals(money("97.50"), available(merchant, "test"));
  }

  @Test
  void theSameFactUnderAnotherMessageIdPostsOnce() {
    String merchant = Events.merchant();
    Envelope event = Events.paymentSucceeded(merchant, "test", Events.payment(), "100.00", "2.50");
    apply(event, Events.asNewMessage(event), Events.asNewMessage(event));
    assertEquals(money("97.50"), available(merchant, "test"));
  }

  /**
   * A poll applied at once (the listener's path): one inbox statement for all, then each event in
   * order, so a refund that names no currency finds its payment posted earlier in the same poll,
   * and a message the poll holds twice, or one consumed before, posts nothing again.
   */
  @Test
  void aPollAppliesEachNewMessageOnceAndInOrder() {
    String merchant = Events.merchant();
    String payment = Events.payment();
    Envelope earlier = Events.paymentSucceeded(merchant, "test", Events.payment(), "50.00", "0.00");
    apply(earlier);
    Envelope paid = Events.paymentSucceeded(merchant, "test", payment, "1000.00", "25.00");
    Envelope refunded =
        Events.refundSucceeded(merchant, "test", Events.refund(), payment, "400.00", null);
    List<Integer> wrapped = new ArrayList<>();

    int applied =
        transactions.inTransaction(
            c ->
                applyEvent.applyAll(
                    c,
                    List.of(paid, paid, earlier, refunded),
                    (position, work) -> {
                      wrapped.add(position);
                      work.run();
                    }));

    assertEquals(2, applied);
    assertEquals(List.of(0, 3), wrapped, "each new message's work, in the poll's order");
    assertEquals(money("625.00"), available(merchant, "test")); // 50 + 975 - 400
    assertEquals(
        3,
        count(
            "SELECT count(*) FROM postings p JOIN journal_transactions t ON t.id = p.transaction_id"
                + " WHERE t.reference = ?",
            payment),
        "the payment's credit, fee and clearing legs, once");
  }

  /**
   * In a poll, a merchant's accounts are locked once: each further payment of the merchant costs
   * one statement (its transaction and postings together), not a lock, a transaction insert and a
   * postings insert.
   */
  @Test
  void aPollLocksAMerchantsAccountsOnceAndPostsEachEventInOneStatement() {
    String merchant = Events.merchant();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "1.00", "0.00")); // accounts
    int one = statementsToApply(merchant, 1);
    int fifty = statementsToApply(merchant, 50);
    assertEquals(49, fifty - one, "statements for 49 more events of the merchant in one poll");
    assertEquals(money("4999.00"), available(merchant, "test")); // 1.00 + 51 × (100.00 - 2.00)
  }

  private int statementsToApply(String merchant, int events) {
    List<Envelope> poll = new ArrayList<>();
    for (int i = 0; i < events; i++) {
      poll.add(Events.paymentSucceeded(merchant, "test", Events.payment(), "100.00", "2.00"));
    }
    AtomicInteger statements = new AtomicInteger();
    int applied =
        transactions.inTransaction(
            c ->
                applyEvent.applyAll(
                    CountingConnection.wrap(c, statements), poll, (position, work) -> work.run()));
    assertEquals(events, applied);
    return statements.get();
  }

  @Test
  void aRefundDebitsTheRefundedAmountAndTheFeeIsNotReturned() {
    String merchant = Events.merchant();
    String payment = Events.payment();
    apply(
        Events.paymentSucceeded(merchant, "test", payment, "1000.00", "25.00"),
        Events.refundSucceeded(merchant, "test", Events.refund(), payment, "400.00", "PHP"));
    assertEquals(money("575.00"), available(merchant, "test"));

    // Refunding the rest takes the balance below zero by the fee: reported, not hidden.
    apply(Events.refundSucceeded(merchant, "test", Events.refund(), payment, "600.00", "PHP"));
    assertEquals(money("-25.00"), available(merchant, "test"));
    assertEquals(money("25.00"), balance("platform_fees", merchant, "test", "PHP"));
    assertEquals(money("0.00"), balance("provider_clearing", merchant, "test", "PHP"));
    assertEquals(
        "{\"object\":\"balance_list\",\"environment\":\"test\",\"available\":{\"PHP\":-25.00}}",
        get("/internal/balances", merchant, "test").body());
  }

  @Test
  void aRefundWithoutACurrencyTakesItsPaymentsCurrency() {
    String merchant = Events.merchant();
    String payment = Events.payment();
    apply(
        Events.paymentSucceeded(merchant, "test", payment, "50.00", "1.75", "USD"),
        Events.refundSucceeded(merchant, "test", Events.refund(), payment, "20.00", null));
    assertEquals(money("28.25"), balance("merchant_available", merchant, "test", "USD"));
    assertNull(available(merchant, "test"), "no PHP activity");
  }

  @Test
  void aRefundWithoutACurrencyBeforeItsPaymentIsRetriedNotGuessed() {
    String merchant = Events.merchant();
    String payment = Events.payment();
    Envelope refund =
        Events.refundSucceeded(merchant, "test", Events.refund(), payment, "5.00", null);
    assertThrows(RuntimeException.class, () -> apply(refund));
    assertEquals(0, count("SELECT count(*) FROM inbox WHERE message_id = ?", refund.messageId()));

    apply(Events.paymentSucceeded(merchant, "test", payment, "50.00", "0.00"));
    apply(refund);
    assertEquals(money("45.00"), available(merchant, "test"));
  }

  @Test
  void testAndLiveNeverMix() {
    String merchant = Events.merchant();
    apply(
        Events.paymentSucceeded(merchant, "test", Events.payment(), "100.00", "0.00"),
        Events.paymentSucceeded(merchant, "live", Events.payment(), "7.00", "0.00"));
    assertEquals(money("100.00"), available(merchant, "test"));
    assertEquals(money("7.00"), available(merchant, "live"));
    assertEquals(400, hold(merchant, "live", Events.payout(), "8.00").status());
    assertEquals(money("7.00"), available(merchant, "live"));
  }

  @Test
  void aHeldPayoutThatSucceedsLeavesThroughClearingLessItsFee() {
    String merchant = Events.merchant();
    String payout = Events.payout();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "1000.00", "0.00"));
    assertTrue(take(merchant, payout, "300.00") instanceof HoldDecision.Taken);
    assertEquals(money("700.00"), available(merchant, "test"));
    assertEquals(money("300.00"), inFlight(merchant, "test"));

    apply(Events.payoutSucceeded(merchant, "test", payout, "300.00", "10.00"));
    assertEquals(money("700.00"), available(merchant, "test"));
    assertEquals(money("0.00"), inFlight(merchant, "test"));
    assertEquals(money("10.00"), balance("platform_fees", merchant, "test", "PHP"));
    assertEquals(money("-710.00"), balance("provider_clearing", merchant, "test", "PHP"));
    assertEquals("settled", status(payout));
  }

  @Test
  void aFailedPayoutReversesItsDebitExactlyOnce() {
    String merchant = Events.merchant();
    String payout = Events.payout();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "1000.00", "0.00"));
    take(merchant, payout, "300.00");
    Envelope failed = Events.payoutFailed(merchant, "test", payout, "300.00");
    apply(
        failed,
        failed,
        Events.asNewMessage(failed),
        Events.payoutFailed(merchant, "test", payout, "300.00"));
    assertEquals(money("1000.00"), available(merchant, "test"));
    assertEquals(money("0.00"), inFlight(merchant, "test"));
    assertEquals("reversed", status(payout));
    // The hold replayed afterwards is answered as it stands, and takes nothing.
    assertTrue(take(merchant, payout, "300.00") instanceof HoldDecision.Exists);
    assertEquals(money("1000.00"), available(merchant, "test"));
  }

  @Test
  void aPayoutThatSucceededWithoutAHoldIsTakenFromAvailable() {
    String merchant = Events.merchant();
    String payout = Events.payout();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "100.00", "0.00"));
    apply(Events.payoutSucceeded(merchant, "test", payout, "150.00", null));
    assertEquals(money("-50.00"), available(merchant, "test"));
    assertEquals(money("0.00"), inFlight(merchant, "test"));
    assertEquals("settled", status(payout));
    assertEquals(0, count("SELECT count(*) FROM ledger_anomalies WHERE message_key = ?", payout));
  }

  @Test
  void aPayoutThatFailedWithoutAHoldMovesNothingAndALateHoldTakesNothing() {
    String merchant = Events.merchant();
    String payout = Events.payout();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "100.00", "0.00"));
    apply(Events.payoutFailed(merchant, "test", payout, "60.00"));
    assertEquals(money("100.00"), available(merchant, "test"));
    assertTrue(take(merchant, payout, "60.00") instanceof HoldDecision.Exists);
    assertEquals(money("100.00"), available(merchant, "test"));
  }

  @Test
  void contradictingOutcomesAreParkedAndMoveNothing() {
    String merchant = Events.merchant();
    String payout = Events.payout();
    apply(Events.paymentSucceeded(merchant, "test", Events.payment(), "100.00", "0.00"));
    take(merchant, payout, "40.00");
    apply(Events.payoutSucceeded(merchant, "test", payout, "40.00", "0.00"));
    long before = anomalies();
    apply(
        Events.payoutFailed(merchant, "test", payout, "40.00"),
        Events.payoutSucceeded(merchant, "test", payout, "41.00", "0.00"));
    assertEquals(before + 2, anomalies());
    assertEquals(money("60.00"), available(merchant, "test"));
    assertEquals(money("0.00"), inFlight(merchant, "test"));
  }

  @Test
  void malformedEventsAreParkedConsumedAndPostNothing() {
    String merchant = Events.merchant();
    var payment = Json.mapper().createObjectNode();
    payment.put("id", Events.payment());
    payment.put("amount", new java.math.BigDecimal("100.00"));
    payment.put("currency", "PHP");
    payment.put("fee_amount", new java.math.BigDecimal("3.00"));
    payment.put("net_amount", new java.math.BigDecimal("98.00")); // 98 + 3 is not 100
    Envelope inconsistent = Events.event("payment.succeeded", merchant, "test", "k", payment);
    Envelope noMerchant = Events.paymentSucceeded(null, "test", Events.payment(), "10.00", "0.00");
    Envelope tooPrecise =
        new Envelope(
            noMerchant.messageId() + "x",
            "payment.succeeded",
            "k",
            noMerchant.time(),
            new String(
                    Events.paymentSucceeded(merchant, "test", Events.payment(), "10.00", "0.00")
                        .payload(),
                    java.nio.charset.StandardCharsets.UTF_8)
                .replace("10.00", "10.005")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8),
            Map.of(Envelope.ATTRIBUTE_MERCHANT_ID, merchant));
    Envelope tooLarge =
        Events.paymentSucceeded(merchant, "test", Events.payment(), "1000000000000.00", "0.00");
    long before = anomalies();
    apply(inconsistent, noMerchant, tooPrecise, tooLarge);
    assertEquals(before + 4, anomalies());
    assertNull(available(merchant, "test"));
    for (Envelope e : new Envelope[] {inconsistent, noMerchant, tooPrecise, tooLarge}) {
      assertEquals(1, count("SELECT count(*) FROM inbox WHERE message_id = ?", e.messageId()));
    }
  }

  @Test
  void otherEventTypesAreConsumedAndPostNothing() {
    String merchant = Events.merchant();
    var payment = Json.mapper().createObjectNode();
    payment.put("id", Events.payment());
    Envelope processing = Events.event("payment.processing", merchant, "test", "k", payment);
    Envelope created = Events.event("refund.created", merchant, "test", "k", payment);
    apply(processing, created);
    assertEquals(
        1, count("SELECT count(*) FROM inbox WHERE message_id = ?", processing.messageId()));
    assertEquals(1, count("SELECT count(*) FROM inbox WHERE message_id = ?", created.messageId()));
    assertNull(available(merchant, "test"));
  }

  private HoldDecision take(String merchant, String payout, String amount) {
    return takeHold.take(new HoldRequest(payout, merchant, "test", Money.of(amount, "PHP")));
  }

  private Response hold(String merchant, String environment, String payout, String amount) {
    return post(
        "/internal/holds",
        Json.toText(
            Map.of(
                "payout_id", payout,
                "merchant_id", merchant,
                "environment", environment,
                "amount", new java.math.BigDecimal(amount),
                "currency", "PHP")));
  }

  private String status(String payout) {
    return query("SELECT status FROM payout_holds WHERE payout_id = ?", payout);
  }

  private long anomalies() {
    return count("SELECT count(*) FROM ledger_anomalies");
  }
}
