package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.webhooks.verify.WebhookSignature;

/**
 * A merchant's day as the merchant and the operator meet it, over HTTP only, against the broker and
 * the four services started as separate processes by {@code bin/run --no-build}: sign-up, a webhook
 * endpoint, payments on every payment method with every outcome the test helpers can drive,
 * refunds, payouts, and reconciliation of the webhooks, the event log and the balance against each
 * other; then the same merchant goes live, and live and test stay apart.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(SharedSystem.class)
class MerchantJourneyE2EIT {

  /** Small pages, so reconciliation crosses many page boundaries (SPEC allows 1 to 100). */
  private static final int PAGE_SIZE = 7;

  /** The merchant's own e-wallet (a mobile number), for payouts. */
  private static final String WALLET = "09171234567";

  /** Upper bound for anything asynchronous (ledger, event horizon, webhook retries). */
  private static final Duration SETTLE = Duration.ofSeconds(60);

  private static SystemUnderTest system;
  private static Receiver receiver;
  private static Merchant operator;
  private static String merchantId;
  private static Merchant merchant;
  private static String endpointId;
  private static String endpointSecret;
  private static String aTestRefundId = "re_00000000000000000000000000";
  private static String aTestPayoutId = "po_00000000000000000000000000";

  @BeforeAll
  static void start(SystemUnderTest shared) throws Exception {
    // The shared system retries refused webhooks within the test's time, in SPEC's shape (six
    // steps: WEBHOOK_RETRY_SCHEDULE); closes unpaid checkouts soon (PAYMENT_EXPIRY), so live mode
    // produces events of its own, as live payments cannot be paid from outside (see
    // liveModeIsKeptApartFromTestMode); and routes live mode to the local simulated connector
    // (LIVE_CONNECTORS; no_route otherwise).
    system = shared;
    receiver = Receiver.start();
    operator = new Merchant(system.gatewayUrl(), system.adminToken);

    // 1. The operator signs the merchant up; the test key comes with the merchant.
    JsonNode signedUp =
        created(
            operator.post(
                "/admin/v1/merchants",
                json("name", "Tindahan ni Aling Nena", "email", "nena@example.com")));
    merchantId = signedUp.get("id").asText();
    assertTrue(merchantId.startsWith("mer_"), merchantId);
    assertFalse(signedUp.get("live").asBoolean());
    JsonNode testKey = signedUp.at("/api_keys/0");
    assertEquals("test", testKey.get("environment").asText());
    assertTrue(testKey.get("secret").asText().startsWith("sk_test_"));
    raiseRateLimit(testKey.get("id").asText());
    merchant = new Merchant(system.gatewayUrl(), testKey.get("secret").asText());
  }

  @AfterAll
  static void stop() throws Exception {
    if (receiver != null) {
      receiver.close();
    }
  }

  @Test
  @Order(1)
  void aMerchantTakesPaymentsOnEveryMethodRefundsPaysOutAndReconciles() throws Exception {
    // 2. The merchant registers its receiver for every event type and keeps the secret.
    JsonNode endpoint =
        created(
            merchant.post(
                "/v1/webhooks/endpoints",
                json(
                    "url",
                    receiver.url("/hooks"),
                    "events",
                    List.of("*"),
                    "description",
                    "reconciliation")));
    endpointId = endpoint.get("id").asText();
    assertTrue(endpointId.startsWith("whe_"), endpointId);
    assertEquals("webhook_endpoint", endpoint.get("object").asText());
    assertEquals(receiver.url("/hooks"), endpoint.get("url").asText());
    assertEquals("[\"*\"]", endpoint.get("events").toString());
    assertTrue(endpoint.get("enabled").asBoolean());
    endpointSecret = endpoint.get("secret").asText();
    assertFalse(endpointSecret.isBlank());
    JsonNode endpoints = ok(merchant.get("/v1/webhooks/endpoints"));
    assertEquals("list", endpoints.get("object").asText());
    assertFalse(endpoints.has("has_more"), "SPEC: the endpoint list has object and data only");
    assertEquals(1, endpoints.get("data").size());
    assertEquals(endpointId, endpoints.at("/data/0/id").asText());
    assertFalse(endpoints.at("/data/0").has("secret"), "the secret is shown at creation only");

    Books books = new Books();
    Map<String, List<String>> expectedEvents = new LinkedHashMap<>();
    EventLogPoller poller = new EventLogPoller(merchant);

    // 3. Payments on every payment method (ewallet1, ewallet1_qr, rail1_qr, card in PHP and USD,
    // bank_transfer), each driven to an outcome by the sandbox test helpers.
    JsonNode wallet = pay("1500.50", "ewallet1", "PHP");
    assertTrue(wallet.get("app_link").isTextual(), "ewallet1 gives an app deep link");
    assertEquals("processing", helper(wallet, "process").get("status").asText());
    books.captured(succeed(wallet));
    expectedEvents.put(id(wallet), List.of("payment.processing", "payment.succeeded"));

    JsonNode walletQr = pay("820.00", "ewallet1_qr", "PHP");
    assertTrue(walletQr.get("qr_code_url").isTextual(), "QR methods give a QR image");
    books.captured(succeed(walletQr));
    expectedEvents.put(id(walletQr), List.of("payment.processing", "payment.succeeded"));

    JsonNode qrPh = pay("1500.00", "rail1_qr", "PHP");
    assertTrue(qrPh.get("qr_code_url").isTextual(), "QR methods give a QR image");
    books.captured(succeed(qrPh));
    expectedEvents.put(id(qrPh), List.of("payment.processing", "payment.succeeded"));

    JsonNode cardPhp = pay("1000.00", "card", "PHP");
    assertTrue(cardPhp.get("checkout_url").isTextual());
    books.captured(succeed(cardPhp));
    expectedEvents.put(id(cardPhp), List.of("payment.processing", "payment.succeeded"));

    JsonNode cardUsd = pay("250.00", "card", "USD");
    books.captured(succeed(cardUsd));
    expectedEvents.put(id(cardUsd), List.of("payment.processing", "payment.succeeded"));

    JsonNode bank = pay("5000.00", "bank_transfer", "PHP");
    books.captured(succeed(bank));
    expectedEvents.put(id(bank), List.of("payment.processing", "payment.succeeded"));

    JsonNode declined = pay("75.00", "card", "PHP");
    JsonNode failed = helper(declined, "fail");
    assertEquals("failed", failed.get("status").asText());
    assertTrue(failed.at("/failure/code").isTextual(), "SPEC: failure is populated");
    assertTrue(failed.get("failed_at").isIntegralNumber());
    assertTrue(failed.get("net_amount").isNull(), "net_amount only once succeeded");
    expectedEvents.put(id(declined), List.of("payment.failed"));

    JsonNode settlingThenDeclined = pay("45.00", "rail1_qr", "PHP");
    helper(settlingThenDeclined, "process");
    assertEquals("failed", helper(settlingThenDeclined, "fail").get("status").asText());
    expectedEvents.put(id(settlingThenDeclined), List.of("payment.processing", "payment.failed"));

    JsonNode abandoned = pay("60.00", "ewallet1", "PHP");
    assertEquals("expired", helper(abandoned, "expire").get("status").asText());
    expectedEvents.put(id(abandoned), List.of("payment.expired"));

    // SPEC part 2 also names bank_transfer_nrt: a payout rail, with no payment provider
    // (docs/payments.md), so a payment on it has no route. It is used for a payout below.
    Merchant.Reply nrt =
        merchant.post("/v1/payments", json("amount", 10, "method", "bank_transfer_nrt"));
    assertEquals(400, nrt.status(), nrt.raw().body());
    assertEquals("no_route", nrt.code());

    // A first reconciliation pass now; later passes continue from its cursor.
    poller.poll();

    // Refunds. SPEC part 3: only a succeeded payment can be refunded.
    assertEquals(
        "invalid_state", merchant.post("/v1/refunds", json("payment", id(declined))).code());

    // The QR Ph payment partially, then the rest; QR Ph refunds wait for the provider's
    // operators, and the refund test helper stands in for them (docs/refunds-payouts.md).
    JsonNode partial =
        refund(qrPh, "500.00", "requested_by_customer", "pending_manual", "pending", "processing");
    assertEquals("requested_by_customer", partial.get("reason").asText());
    books.refunded(settleRefund(partial, "succeed", "succeeded"));
    assertEquals("succeeded", get("/v1/payments/" + id(qrPh)).get("status").asText());
    JsonNode rest = refund(qrPh, null, null, "pending_manual", "pending", "processing");
    assertAmount("1000.00", rest.get("amount"), "omitting amount refunds what remains");
    books.refunded(settleRefund(rest, "succeed", "succeeded"));
    assertEquals("refunded", get("/v1/payments/" + id(qrPh)).get("status").asText());
    assertEquals("invalid_state", merchant.post("/v1/refunds", json("payment", id(qrPh))).code());
    expectedEvents.put(id(partial), List.of("refund.created", "refund.succeeded"));
    expectedEvents.put(id(rest), List.of("refund.created", "refund.succeeded"));

    // The e-wallet QR payment fully in one refund: e-wallets refund at once.
    JsonNode whole = refund(walletQr, null, "other", "succeeded");
    assertAmount("820.00", whole.get("amount"), "omitting amount refunds the whole payment");
    books.refunded(whole);
    assertEquals("refunded", get("/v1/payments/" + id(walletQr)).get("status").asText());
    expectedEvents.put(id(whole), List.of("refund.created", "refund.succeeded"));

    // A bank refund the bank refuses: nothing leaves the balance.
    JsonNode refused = refund(bank, "300.00", "duplicate", "processing", "pending");
    JsonNode refusedAfter = settleRefund(refused, "fail", "failed");
    assertTrue(refusedAfter.at("/failure/code").isTextual());
    assertEquals("succeeded", get("/v1/payments/" + id(bank)).get("status").asText());
    expectedEvents.put(id(refused), List.of("refund.created", "refund.failed"));
    aTestRefundId = id(refused);

    poller.poll();

    // Payouts from the balance the ledger shows once it has applied every event so far.
    awaitBalances(merchant, books.available());
    String bankCode = anActiveBankCode();
    JsonNode walletPayout =
        payout("1000.00", "ewallet1", Map.of("account_no", WALLET), "succeeded");
    books.paidOut(walletPayout);
    expectedEvents.put(id(walletPayout), List.of("payout.succeeded"));

    // Magic account 0000000001 is closed (docs/refunds-payouts.md): the debit comes back.
    JsonNode toClosedAccount =
        payout(
            "2000.00",
            "bank_transfer",
            Map.of(
                "account_no",
                "0000000001",
                "bank_code",
                bankCode,
                "first_name",
                "Juan",
                "last_name",
                "Dela Cruz"),
            "failed");
    assertTrue(toClosedAccount.at("/failure/code").isTextual());
    expectedEvents.put(id(toClosedAccount), List.of("payout.failed"));

    // The batch rail waits for its cut-off; the payout test helper sends it now.
    JsonNode batch =
        payout(
            "500.00",
            "bank_transfer_nrt",
            Map.of("account_no", "1234567890", "bankCode", bankCode, "account_name", "Juan Cruz"),
            "pending");
    JsonNode batchSent =
        ok(merchant.post("/v1/test_helpers/payouts/" + id(batch) + "/succeed", ""));
    assertEquals("succeeded", batchSent.get("status").asText());
    assertTrue(batchSent.get("paid_at").isIntegralNumber());
    books.paidOut(batchSent);
    expectedEvents.put(id(batch), List.of("payout.succeeded"));
    aTestPayoutId = id(batch);

    // One centavo more than the balance is refused, and nothing is created.
    awaitBalances(merchant, books.available());
    BigDecimal tooMuch = books.available().get("PHP").add(new BigDecimal("0.01"));
    Merchant.Reply overdraw = merchant.post("/v1/payouts", toWallet(tooMuch));
    assertEquals(400, overdraw.status(), overdraw.raw().body());
    assertEquals("insufficient_balance", overdraw.code());
    assertEquals(3, listAll(merchant, "/v1/payouts").size(), "a refused payout is not created");

    // 4. Reconcile by polling the event log until it is quiet.
    int expectedCount = expectedEvents.values().stream().mapToInt(List::size).sum();
    List<JsonNode> events = poller.untilQuiet(expectedCount);
    Set<String> polledIds = new HashSet<>();
    for (JsonNode event : events) {
      assertTrue(polledIds.add(event.get("id").asText()), "seen twice: " + event.get("id"));
      assertTrue(event.get("id").asText().startsWith("evt_"));
      assertEquals("event", event.get("object").asText());
      assertEquals("test", event.get("environment").asText());
      assertTrue(event.get("created").isIntegralNumber());
      assertStatusMatchesType(event);
    }
    assertEquals(
        expectedEvents,
        typesBySubject(events),
        () -> "event types per object, in log order" + EventLogPoller.horizonHint());
    JsonNode refundFailures = ok(merchant.get("/v1/events?type=refund.failed&limit=100"));
    assertEquals(1, refundFailures.get("data").size());
    assertEquals(id(refused), refundFailures.at("/data/0/data/object/id").asText());

    // Webhooks: once retries have settled, the receiver has acknowledged exactly the polled set.
    awaitTrue(
        () -> receiver.acknowledgedEventIds("/hooks").containsAll(polledIds),
        () -> "webhooks missing: " + missing(polledIds, receiver.acknowledgedEventIds("/hooks")));
    assertEquals(polledIds, receiver.acknowledgedEventIds("/hooks"));
    Map<String, JsonNode> polledById = new HashMap<>();
    events.forEach(e -> polledById.put(e.get("id").asText(), e));
    Map<String, byte[]> logBytes = new HashMap<>();
    for (Receiver.Request request : receiver.requests("/hooks")) {
      WebhookSignature.verify(request.body(), request.signature(), endpointSecret);
      JsonNode event = Merchant.JSON.readTree(request.body());
      String eventId = event.get("id").asText();
      assertEquals(event.get("type").asText(), request.eventType(), "X-Service-Event");
      assertTrue(request.deliveryId().matches("\\d+"), "numeric X-Service-Delivery");
      assertTrue(request.userAgent().contains("1.0"), request.userAgent());
      byte[] stored =
          logBytes.computeIfAbsent(
              eventId,
              id -> merchant.get("/v1/events/" + id).raw().body().getBytes(StandardCharsets.UTF_8));
      assertArrayEquals(stored, request.body(), "the webhook carries the event log's bytes");
      assertEquals(polledById.get(eventId), event, "the poll shows the same event");
    }
    Map<String, List<Receiver.Request>> byDelivery =
        receiver.requests("/hooks").stream()
            .collect(Collectors.groupingBy(Receiver.Request::deliveryId));
    assertTrue(
        byDelivery.values().stream().anyMatch(attempts -> attempts.size() > 1),
        "the receiver refused some first attempts, so some deliveries came again");
    for (List<Receiver.Request> attempts : byDelivery.values()) {
      for (Receiver.Request attempt : attempts) {
        assertArrayEquals(attempts.get(0).body(), attempt.body(), "a retry sends the same bytes");
      }
    }

    System.out.printf(
        "journey: %d events reconciled in pages of %d; %d webhook requests for %d deliveries%n",
        events.size(), PAGE_SIZE, receiver.requests("/hooks").size(), byDelivery.size());

    // The balance is the sum of the flows, in the API's own amounts.
    assertEquals(Set.of("PHP", "USD"), books.available().keySet());
    awaitBalances(merchant, books.available());
    JsonNode php = ok(merchant.get("/v1/balance?currency=PHP"));
    assertEquals("balance", php.get("object").asText());
    assertEquals("test", php.get("environment").asText());
    assertAmount(books.available().get("PHP").toPlainString(), php.get("available"), "PHP");
  }

  /**
   * SPEC part 5 and ARCHITECTURE: after activation a live key reaches live resources only. Live
   * payments go to the simulated connector this system names (LIVE_CONNECTORS), but the test
   * helpers answer only test keys and the customer-facing pages offer no way to pay, so a live
   * payment cannot be paid from outside: what can be observed is that it is created pending, is
   * listed only in live, and expires unpaid into the live event log alone.
   */
  @Test
  @Order(2)
  void liveModeIsKeptApartFromTestMode() throws Exception {
    JsonNode testBalancesBefore = ok(merchant.get("/v1/balance")).get("available");

    // 5. The operator activates the merchant, which issues its live key.
    JsonNode activated = ok(operator.post("/admin/v1/merchants/" + merchantId + "/activate", ""));
    assertTrue(activated.get("live").asBoolean());
    JsonNode liveKey = null;
    for (JsonNode key : activated.get("api_keys")) {
      if ("live".equals(key.get("environment").asText()) && key.hasNonNull("secret")) {
        liveKey = key;
      }
      if ("test".equals(key.get("environment").asText())) {
        assertFalse(key.has("secret"), "a secret is shown only when it is created");
      }
    }
    assertNotNull(liveKey, activated.toString());
    assertTrue(liveKey.get("secret").asText().startsWith("sk_live_"));
    raiseRateLimit(liveKey.get("id").asText());
    Merchant live = new Merchant(system.gatewayUrl(), liveKey.get("secret").asText());

    // Webhook targets are checked (docs/webhooks.md, "Target safety"). bin/run allows private
    // targets for local development, so loopback receivers work in both modes here; the cloud
    // metadata address is refused even so (webhook-service's TargetSafetyIT covers the flag off).
    Merchant.Reply loopback =
        live.post(
            "/v1/webhooks/endpoints",
            json("url", "http://169.254.169.254/latest/meta-data/", "events", List.of("*")));
    assertEquals(400, loopback.status(), loopback.raw().body());
    assertEquals("invalid_request", loopback.code());
    assertTrue(loopback.json().at("/error/issues/url").isTextual(), loopback.raw().body());
    assertEquals(0, ok(live.get("/v1/webhooks/endpoints")).get("data").size());
    assertEquals(List.of(endpointId), ids(ok(merchant.get("/v1/webhooks/endpoints")).get("data")));

    // A payment in each environment at the same moment, none of them paid. The live one names the
    // loopback receiver as its webhook_url: only live events may arrive there.
    JsonNode livePayment =
        created(
            live.post(
                "/v1/payments",
                json(
                    "amount",
                    new BigDecimal("100.00"),
                    "method",
                    "ewallet1",
                    "webhook_url",
                    receiver.url("/override"))));
    JsonNode liveQr = created(live.post("/v1/payments", json("amount", 250, "method", "rail1_qr")));
    JsonNode testPayment =
        created(merchant.post("/v1/payments", json("amount", 40, "method", "card")));
    for (JsonNode payment : List.of(livePayment, liveQr)) {
      assertEquals("live", payment.get("environment").asText());
      assertEquals("pending", payment.get("status").asText());
      assertTrue(
          payment.get("provider").asText().startsWith("sandbox_"),
          "a simulated live payment is labelled by its sandbox provider: " + payment);
    }
    assertTrue(liveQr.get("qr_code").isTextual(), "SPEC: live QR methods carry the QR payload");

    // SPEC part 5: a key used across environments is answered 401 unauthenticated.
    assertCrossEnvironment(merchant.get("/v1/payments/" + id(livePayment)));
    assertCrossEnvironment(live.get("/v1/payments/" + id(testPayment)));
    assertCrossEnvironment(live.post("/v1/refunds", json("payment", id(testPayment))));
    assertEquals("invalid_state", live.post("/v1/refunds", json("payment", id(liveQr))).code());

    // The sandbox test helpers answer sk_test_ keys only; a live key gets 404 (ARCHITECTURE), and
    // the live log below shows that neither payment moved but by expiring.
    for (String helper :
        List.of(
            "/v1/test_helpers/payments/" + id(livePayment) + "/succeed",
            "/v1/test_helpers/payments/" + id(liveQr) + "/fail",
            "/v1/test_helpers/refunds/" + aTestRefundId + "/succeed",
            "/v1/test_helpers/payouts/" + aTestPayoutId + "/fail")) {
      Merchant.Reply refused = live.post(helper, "");
      assertEquals(404, refused.status(), helper + ": " + refused.raw().body());
      assertEquals("not_found", refused.code());
    }

    // Lists do not mix.
    List<JsonNode> livePayments = listAll(live, "/v1/payments");
    assertEquals(Set.of(id(livePayment), id(liveQr)), Set.copyOf(ids(livePayments)));
    List<JsonNode> testPayments = listAll(merchant, "/v1/payments");
    assertTrue(ids(testPayments).contains(id(testPayment)));
    assertFalse(ids(testPayments).contains(id(livePayment)));
    assertFalse(ids(testPayments).contains(id(liveQr)));
    testPayments.forEach(p -> assertEquals("test", p.get("environment").asText()));
    assertEquals(List.of(), listAll(live, "/v1/refunds"));
    assertEquals(List.of(), listAll(live, "/v1/payouts"));

    // Balances are separate: no live money has moved, whatever the test balance is.
    JsonNode liveBalances = ok(live.get("/v1/balance"));
    assertEquals("balance_list", liveBalances.get("object").asText());
    assertEquals("live", liveBalances.get("environment").asText());
    assertEquals(0, liveBalances.get("available").size(), "no live ledger activity");
    assertAmount("0.00", ok(live.get("/v1/balance?currency=PHP")).get("available"), "live PHP");
    Merchant.Reply livePayout = live.post("/v1/payouts", toWallet(new BigDecimal("100.00")));
    assertEquals(400, livePayout.status(), livePayout.raw().body());
    assertEquals("insufficient_balance", livePayout.code());

    // The checkouts close unpaid; each expiry lands in its own environment's event log.
    awaitTrue(
        () -> "expired".equals(status(live, livePayment)) && "expired".equals(status(live, liveQr)),
        () -> "the live payments did not expire",
        SharedSystem.PAYMENT_EXPIRY.plus(SETTLE));
    EventLogPoller liveLog = new EventLogPoller(live);
    List<JsonNode> liveEvents = liveLog.untilQuiet(2);
    assertEquals(
        Map.of(id(livePayment), List.of("payment.expired"), id(liveQr), List.of("payment.expired")),
        typesBySubject(liveEvents),
        EventLogPoller::horizonHint);
    liveEvents.forEach(e -> assertEquals("live", e.get("environment").asText()));
    String liveEventId = liveEvents.get(0).get("id").asText();
    assertEquals(200, live.get("/v1/events/" + liveEventId).status());
    assertCrossEnvironment(merchant.get("/v1/events/" + liveEventId));

    // The test endpoint gets the test payment's expiry, and never a live event; the live
    // payment's loopback webhook_url is refused at delivery.
    awaitTrue(
        () ->
            receiver.acknowledgedEvents("/hooks").stream()
                .anyMatch(
                    e ->
                        e.get("type").asText().equals("payment.expired")
                            && e.at("/data/object/id").asText().equals(id(testPayment))),
        () -> "the test payment's payment.expired did not reach the test endpoint");
    for (Receiver.Request request : receiver.requests("/hooks")) {
      JsonNode event = Merchant.JSON.readTree(request.body());
      assertEquals("test", event.get("environment").asText(), "a live event reached test");
    }
    for (Receiver.Request request : receiver.requests("/override")) {
      JsonNode event = Merchant.JSON.readTree(request.body());
      assertEquals("live", event.get("environment").asText(), "a test event reached live");
      assertEquals(id(livePayment), event.at("/data/object/id").asText());
    }
    assertEquals(testBalancesBefore, ok(merchant.get("/v1/balance")).get("available"));
  }

  // ------------------------------------------------------------------ the merchant's moves

  private static JsonNode pay(String amount, String method, String currency) {
    JsonNode payment =
        created(
            merchant.post(
                "/v1/payments",
                json(
                    "amount",
                    new BigDecimal(amount),
                    "method",
                    method,
                    "currency",
                    currency,
                    "description",
                    method + " order",
                    "customer",
                    Map.of("email", "juan@example.com", "name", "Juan Dela Cruz"))));
    assertTrue(id(payment).startsWith("pay_"), id(payment));
    assertEquals("payment", payment.get("object").asText());
    assertEquals("test", payment.get("environment").asText());
    assertEquals("pending", payment.get("status").asText(), "SPEC part 3: created pending");
    assertAmount(amount, payment.get("amount"), "amount");
    assertEquals(currency, payment.get("currency").asText());
    assertEquals(method, payment.get("method").asText());
    assertTrue(payment.get("provider").isTextual());
    assertTrue(payment.get("fee_amount").isNumber());
    assertTrue(payment.get("net_amount").isNull(), "net_amount only once succeeded");
    return payment;
  }

  private static JsonNode helper(JsonNode payment, String action) {
    return ok(merchant.post("/v1/test_helpers/payments/" + id(payment) + "/" + action, ""));
  }

  /** Drives the payment to success; SPEC: net_amount = amount − fee_amount once succeeded. */
  private static JsonNode succeed(JsonNode payment) {
    JsonNode succeeded = helper(payment, "succeed");
    assertEquals("succeeded", succeeded.get("status").asText());
    assertTrue(succeeded.get("succeeded_at").isIntegralNumber());
    BigDecimal amount = succeeded.get("amount").decimalValue();
    BigDecimal fee = succeeded.get("fee_amount").decimalValue();
    assertEquals(0, amount.subtract(fee).compareTo(succeeded.get("net_amount").decimalValue()));
    return succeeded;
  }

  /** A refund whose creation response is in one of {@code statuses}. */
  private static JsonNode refund(
      JsonNode payment, String amount, String reason, String... statuses) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("payment", id(payment));
    if (amount != null) {
      body.put("amount", new BigDecimal(amount));
    }
    if (reason != null) {
      body.put("reason", reason);
    }
    JsonNode refund = created(merchant.post("/v1/refunds", json(body)));
    assertTrue(id(refund).startsWith("re_"), id(refund));
    assertEquals("refund", refund.get("object").asText());
    assertEquals("test", refund.get("environment").asText());
    assertEquals(id(payment), refund.get("payment").asText());
    if (amount != null) {
      assertAmount(amount, refund.get("amount"), "refund amount");
    }
    assertTrue(List.of(statuses).contains(refund.get("status").asText()), refund.toString());
    return refund;
  }

  private static JsonNode settleRefund(JsonNode refund, String action, String status) {
    JsonNode settled =
        ok(merchant.post("/v1/test_helpers/refunds/" + id(refund) + "/" + action, ""));
    assertEquals(status, settled.get("status").asText());
    assertEquals(settled, ok(merchant.get("/v1/refunds/" + id(refund))));
    return settled;
  }

  private static JsonNode payout(
      String amount, String method, Map<String, String> destination, String status) {
    JsonNode payout =
        created(
            merchant.post(
                "/v1/payouts",
                json(
                    "amount",
                    new BigDecimal(amount),
                    "method",
                    method,
                    "destination",
                    destination,
                    "description",
                    "settlement")));
    assertTrue(id(payout).startsWith("po_"), id(payout));
    assertEquals("payout", payout.get("object").asText());
    assertEquals("test", payout.get("environment").asText());
    assertAmount(amount, payout.get("amount"), "payout amount");
    assertEquals(status, payout.get("status").asText(), payout.toString());
    return payout;
  }

  private static String toWallet(BigDecimal amount) {
    return json(
        "amount", amount, "method", "ewallet1", "destination", Map.of("account_no", WALLET));
  }

  private static String anActiveBankCode() {
    for (JsonNode bank : ok(merchant.get("/v1/payout-banks")).get("data")) {
      if (bank.get("status").asInt() == 1) {
        return bank.get("code").asText();
      }
    }
    throw new AssertionError("no active bank in the payout bank registry");
  }

  // ------------------------------------------------------------------ reading back

  /**
   * The flows as the merchant's own books add them up, per currency, from the API's amounts:
   * payments' net amounts in, succeeded refunds and payouts that did not fail out.
   */
  private static final class Books {
    private final Map<String, BigDecimal> available = new TreeMap<>();

    void captured(JsonNode payment) {
      add(payment.get("currency").asText(), payment.get("net_amount").decimalValue());
    }

    void refunded(JsonNode refund) {
      assertEquals("succeeded", refund.get("status").asText());
      add(refund.get("currency").asText(), refund.get("amount").decimalValue().negate());
    }

    void paidOut(JsonNode payout) {
      assertEquals("succeeded", payout.get("status").asText());
      add(payout.get("currency").asText(), payout.get("amount").decimalValue().negate());
    }

    Map<String, BigDecimal> available() {
      return Map.copyOf(available);
    }

    private void add(String currency, BigDecimal amount) {
      available.merge(currency, amount, BigDecimal::add);
    }
  }

  /**
   * SPEC part 6 reconciliation: keep the highest processed id, continue after it, follow has_more.
   */
  private static final class EventLogPoller {
    private final Merchant client;
    private final List<JsonNode> seen = new ArrayList<>();
    private String highestProcessed;

    EventLogPoller(Merchant client) {
      this.client = client;
    }

    /** One pass from the cursor to the end of the log; returns how many events were new. */
    int poll() {
      int fresh = 0;
      boolean more = true;
      while (more) {
        JsonNode page =
            ok(
                client.get(
                    "/v1/events?limit="
                        + PAGE_SIZE
                        + (highestProcessed == null ? "" : "&starting_after=" + highestProcessed)));
        assertEquals("list", page.get("object").asText());
        more = page.get("has_more").asBoolean();
        assertFalse(more && page.get("data").isEmpty(), "has_more on an empty page");
        for (JsonNode event : page.get("data")) {
          String id = event.get("id").asText();
          assertTrue(
              highestProcessed == null || id.compareTo(highestProcessed) > 0,
              id + " is listed after " + highestProcessed + ": ids must ascend in list order");
          seen.add(event);
          highestProcessed = id;
          fresh++;
        }
      }
      return fresh;
    }

    /**
     * Why events can be missing from the poll: the log lists only events older than every
     * transaction in flight ({@code pg_snapshot_xmin}), and that horizon spans the whole server.
     */
    static String horizonHint() {
      return "\nThe event log lists events below pg_snapshot_xmin(pg_current_snapshot()), which"
          + " covers every database on the server; the oldest writing transaction now: "
          + oldestWriter();
    }

    /** Polls until at least {@code expected} events are in and a further pass finds nothing. */
    List<JsonNode> untilQuiet(int expected) {
      long deadline = System.nanoTime() + SETTLE.toNanos();
      while (true) {
        int fresh = poll();
        if ((seen.size() >= expected && fresh == 0) || System.nanoTime() > deadline) {
          return List.copyOf(seen);
        }
        sleep(100);
      }
    }
  }

  /** The oldest transaction holding an xid anywhere on the PostgreSQL server, for a failure. */
  private static String oldestWriter() {
    try (Connection connection = SystemUnderTest.postgresServer();
        Statement statement = connection.createStatement();
        ResultSet oldest =
            statement.executeQuery(
                "SELECT datname, backend_xid, now() - xact_start, left(query, 120)"
                    + " FROM pg_stat_activity WHERE backend_xid IS NOT NULL"
                    + " ORDER BY xact_start LIMIT 1")) {
      return oldest.next()
          ? "database "
              + oldest.getString(1)
              + ", xid "
              + oldest.getString(2)
              + ", running for "
              + oldest.getString(3)
              + ": "
              + oldest.getString(4)
          : "none";
    } catch (SQLException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  /** Event types per changed object ({@code data.object.id}), in log order. */
  private static Map<String, List<String>> typesBySubject(List<JsonNode> events) {
    Map<String, List<String>> types = new LinkedHashMap<>();
    for (JsonNode event : events) {
      types
          .computeIfAbsent(event.at("/data/object/id").asText(), id -> new ArrayList<>())
          .add(event.get("type").asText());
    }
    return types;
  }

  /** The resource inside an event is the object as the transition left it (SPEC parts 3 and 6). */
  private static void assertStatusMatchesType(JsonNode event) {
    String type = event.get("type").asText();
    JsonNode resource = event.at("/data/object");
    String status = resource.get("status").asText();
    Set<String> allowed =
        switch (type) {
          case "payment.processing" -> Set.of("processing");
          case "payment.succeeded" -> Set.of("succeeded");
          case "payment.failed" -> Set.of("failed");
          case "payment.expired" -> Set.of("expired");
          case "refund.created" -> Set.of("pending", "processing", "pending_manual");
          case "refund.succeeded", "payout.succeeded" -> Set.of("succeeded");
          case "refund.failed", "payout.failed" -> Set.of("failed");
          default -> Set.of();
        };
    assertTrue(allowed.contains(status), type + " carries a resource with status " + status);
    assertEquals(type.substring(0, type.indexOf('.')), resource.get("object").asText());
  }

  private static void awaitBalances(Merchant client, Map<String, BigDecimal> expected) {
    Map<String, BigDecimal> seen = Map.of();
    long deadline = System.nanoTime() + SETTLE.toNanos();
    while (System.nanoTime() < deadline) {
      JsonNode balances = ok(client.get("/v1/balance"));
      assertEquals("balance_list", balances.get("object").asText());
      Map<String, BigDecimal> available = new TreeMap<>();
      balances
          .get("available")
          .fields()
          .forEachRemaining(e -> available.put(e.getKey(), e.getValue().decimalValue()));
      seen = available;
      if (sameAmounts(expected, seen)) {
        return;
      }
      sleep(50);
    }
    assertEquals(new TreeMap<>(expected), seen, "GET /v1/balance against the books");
  }

  private static boolean sameAmounts(Map<String, BigDecimal> a, Map<String, BigDecimal> b) {
    return a.keySet().equals(b.keySet())
        && a.keySet().stream().allMatch(k -> a.get(k).compareTo(b.get(k)) == 0);
  }

  private static List<JsonNode> listAll(Merchant client, String path) {
    List<JsonNode> all = new ArrayList<>();
    String cursor = null;
    while (true) {
      JsonNode page =
          ok(client.get(path + "?limit=100" + (cursor == null ? "" : "&starting_after=" + cursor)));
      page.get("data").forEach(all::add);
      if (!page.get("has_more").asBoolean()) {
        return all;
      }
      cursor = all.get(all.size() - 1).get("id").asText();
    }
  }

  private static String status(Merchant client, JsonNode resource) {
    return ok(client.get("/v1/payments/" + id(resource))).get("status").asText();
  }

  private static JsonNode get(String path) {
    return ok(merchant.get(path));
  }

  // ------------------------------------------------------------------ small helpers

  /** The operator gives polling keys a negotiated limit (SPEC part 8). */
  private static void raiseRateLimit(String keyId) {
    ok(
        operator.post(
            "/admin/v1/api_keys/" + keyId + "/rate_limit", json("rate_limit_per_minute", 5000)));
  }

  private static JsonNode created(Merchant.Reply reply) {
    assertEquals(201, reply.status(), reply.raw().body());
    return reply.json();
  }

  private static JsonNode ok(Merchant.Reply reply) {
    assertEquals(200, reply.status(), reply.raw().body());
    return reply.json();
  }

  private static void assertCrossEnvironment(Merchant.Reply reply) {
    assertEquals(401, reply.status(), reply.raw().body());
    assertEquals("unauthenticated", reply.code());
  }

  private static void assertAmount(String expected, JsonNode actual, String what) {
    assertEquals(
        0, new BigDecimal(expected).compareTo(actual.decimalValue()), what + ": " + actual);
  }

  private static String id(JsonNode resource) {
    return resource.get("id").asText();
  }

  private static List<String> ids(Iterable<JsonNode> resources) {
    List<String> ids = new ArrayList<>();
    resources.forEach(r -> ids.add(id(r)));
    return ids;
  }

  private static Set<String> missing(Set<String> wanted, Set<String> have) {
    Set<String> missing = new HashSet<>(wanted);
    missing.removeAll(have);
    return missing;
  }

  private static String json(Object... keysAndValues) {
    Map<String, Object> body = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      body.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return json(body);
  }

  private static String json(Map<String, Object> body) {
    try {
      return Merchant.JSON.writeValueAsString(body);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void awaitTrue(
      BooleanSupplier condition, java.util.function.Supplier<String> why) {
    awaitTrue(condition, why, SETTLE);
  }

  private static void awaitTrue(
      BooleanSupplier condition, java.util.function.Supplier<String> why, Duration patience) {
    long deadline = System.nanoTime() + patience.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail(why.get());
      }
      sleep(100);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * The merchant's webhook receiver on 127.0.0.1. It keeps every request it gets and refuses the
   * first attempt of every third delivery with 503, so the system's retries are part of the day.
   */
  private static final class Receiver implements AutoCloseable {

    record Request(
        String path,
        byte[] body,
        String signature,
        String eventType,
        String deliveryId,
        String userAgent,
        int answered) {}

    private final HttpServer server;
    private final ExecutorService threads;
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final Set<String> deliveriesSeen = ConcurrentHashMap.newKeySet();
    private final AtomicInteger newDeliveries = new AtomicInteger();

    private Receiver(HttpServer server, ExecutorService threads) {
      this.server = server;
      this.threads = threads;
    }

    static Receiver start() throws IOException {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      ExecutorService threads = Executors.newFixedThreadPool(4);
      Receiver receiver = new Receiver(server, threads);
      server.createContext("/", receiver::handle);
      server.setExecutor(threads);
      server.start();
      return receiver;
    }

    private void handle(com.sun.net.httpserver.HttpExchange exchange) throws IOException {
      try (exchange) {
        byte[] body = exchange.getRequestBody().readAllBytes();
        String delivery = exchange.getRequestHeaders().getFirst("X-Service-Delivery");
        boolean refuse =
            delivery != null
                && deliveriesSeen.add(delivery)
                && newDeliveries.incrementAndGet() % 3 == 0;
        int status = refuse ? 503 : 200;
        requests.add(
            new Request(
                exchange.getRequestURI().getPath(),
                body,
                exchange.getRequestHeaders().getFirst("X-Service-Signature"),
                exchange.getRequestHeaders().getFirst("X-Service-Event"),
                delivery,
                exchange.getRequestHeaders().getFirst("User-Agent"),
                status));
        exchange.sendResponseHeaders(status, -1);
      }
    }

    String url(String path) {
      return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    List<Request> requests(String path) {
      return requests.stream().filter(r -> r.path().equals(path)).toList();
    }

    /** The events this receiver answered 2xx on {@code path}. */
    List<JsonNode> acknowledgedEvents(String path) {
      List<JsonNode> events = new ArrayList<>();
      for (Request request : requests(path)) {
        if (request.answered() / 100 == 2) {
          try {
            events.add(Merchant.JSON.readTree(request.body()));
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        }
      }
      return events;
    }

    Set<String> acknowledgedEventIds(String path) {
      return acknowledgedEvents(path).stream()
          .map(e -> e.get("id").asText())
          .collect(Collectors.toSet());
    }

    @Override
    public void close() {
      server.stop(0);
      threads.shutdownNow();
    }
  }
}
