package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Payments across the real processes: create through the gateway's command path, drive the sandbox
 * provider with test helpers, read the payment and its timeline, and reconcile through the event
 * log exactly as SPEC part 6 describes.
 */
@ExtendWith(SharedSystem.class)
class PaymentsE2EIT {

  private static SystemUnderTest system;
  private static Merchant merchant;

  @BeforeAll
  static void start(SystemUnderTest shared) throws Exception {
    system = shared;
    Merchant operator = new Merchant(system.gatewayUrl(), system.adminToken);
    Merchant.Reply created =
        operator.post(
            "/admin/v1/merchants",
            "{\"name\":\"Sari-Sari Online\",\"email\":\"owner@example.com\"}");
    assertEquals(201, created.status(), created.raw().body());
    merchant = new Merchant(system.gatewayUrl(), created.json().at("/api_keys/0/secret").asText());
    raiseRateLimit(operator, created.json().at("/api_keys/0/id").asText());
  }

  @Test
  void aPaymentIsCreatedDrivenToSuccessAndFoundInTheEventLog() {
    Merchant.Reply created =
        merchant.post(
            "/v1/payments",
            "{\"amount\":1500.50,\"method\":\"ewallet1\",\"description\":\"Order 1001\","
                + "\"customer\":{\"email\":\"juan@example.com\",\"name\":\"Juan\"},"
                + "\"metadata\":{\"order\":\"1001\"}}",
            "Idempotency-Key",
            "order-1001");
    assertEquals(201, created.status(), created.raw().body());
    JsonNode payment = created.json();
    String id = payment.get("id").asText();
    assertTrue(id.startsWith("pay_"));
    assertEquals("pending", payment.get("status").asText());
    assertEquals("1500.50", payment.get("amount").decimalValue().toPlainString());
    assertTrue(created.raw().body().contains("\"amount\":1500.50,"), "two decimals on the wire");
    assertEquals("PHP", payment.get("currency").asText());
    assertEquals("37.51", payment.get("fee_amount").decimalValue().toPlainString(), "2.5% half-up");
    assertTrue(payment.get("net_amount").isNull());
    assertTrue(payment.get("checkout_url").asText().matches(".*/checkout/ct_[A-Za-z0-9_-]{32}"));
    assertFalse(payment.get("checkout_url").asText().contains(id), "no guessable id in the URL");
    assertTrue(payment.get("app_link").asText().startsWith("ewallet1://"));
    assertEquals("order-1001", payment.get("idempotency_key").asText());
    assertTrue(payment.get("expires_at").asLong() > payment.get("created").asLong());

    Merchant.Reply again =
        merchant.post(
            "/v1/payments",
            "{\"amount\":1500.50,\"method\":\"ewallet1\",\"description\":\"Order 1001\","
                + "\"customer\":{\"email\":\"juan@example.com\",\"name\":\"Juan\"},"
                + "\"metadata\":{\"order\":\"1001\"}}",
            "Idempotency-Key",
            "order-1001");
    assertEquals(201, again.status());
    assertEquals(created.raw().body(), again.raw().body(), "the retry returns the original");

    Merchant.Reply succeeded = merchant.post("/v1/test_helpers/payments/" + id + "/succeed", null);
    assertEquals(200, succeeded.status(), succeeded.raw().body());
    assertEquals("succeeded", succeeded.json().get("status").asText());
    assertEquals("1462.99", succeeded.json().get("net_amount").decimalValue().toPlainString());
    assertFalse(succeeded.json().get("receipt_url").isNull());

    // The ledger credits net_amount from the payment.succeeded event (issue 5).
    String available = null;
    for (int i = 0; i < 100 && !"1462.99".equals(available); i++) {
      Merchant.Reply balance = merchant.get("/v1/balance?currency=PHP");
      assertEquals(200, balance.status(), balance.raw().body());
      assertEquals("balance", balance.json().get("object").asText());
      available = balance.json().get("available").decimalValue().toPlainString();
      sleep(50);
    }
    assertEquals("1462.99", available, "the balance is the payment's net_amount");
    Merchant.Reply all = merchant.get("/v1/balance");
    assertEquals("balance_list", all.json().get("object").asText());
    assertEquals("1462.99", all.json().at("/available/PHP").decimalValue().toPlainString());

    Merchant.Reply expanded = merchant.get("/v1/payments/" + id + "?expand=events");
    assertEquals(200, expanded.status());
    List<String> timeline = new ArrayList<>();
    expanded.json().get("events").forEach(e -> timeline.add(e.get("type").asText()));
    assertEquals(List.of("payment.processing", "payment.succeeded"), timeline);

    // An event is listed once every transaction older than it has ended; allow for that moment.
    List<JsonNode> events = reconcile();
    for (int i = 0; i < 50 && count(events, id) < 2; i++) {
      sleep(100);
      events = reconcile();
    }
    List<String> forPayment = new ArrayList<>();
    for (JsonNode event : events) {
      if (event.at("/data/object/id").asText().equals(id)) {
        forPayment.add(event.get("type").asText());
        Merchant.Reply single = merchant.get("/v1/events/" + event.get("id").asText());
        assertEquals(200, single.status());
        assertEquals(event, single.json());
      }
    }
    assertEquals(List.of("payment.processing", "payment.succeeded"), forPayment);
  }

  @Test
  void qrPaymentsCarryAMarkedTestPayloadAndAnImage() {
    Merchant.Reply created =
        merchant.post("/v1/payments", "{\"amount\":250,\"method\":\"rail1_qr\"}");
    assertEquals(201, created.status(), created.raw().body());
    String qr = created.json().get("qr_code").asText();
    assertTrue(qr.startsWith("000201010212"), qr);
    assertTrue(qr.contains("ph.sandbox.test"), "test mode payloads are marked unpayable");
    String image = created.json().get("qr_code_url").asText();
    assertTrue(image.endsWith(".png"));
    Merchant anonymous = new Merchant(system.gatewayUrl(), null);
    Merchant.Reply png = anonymous.get(image.substring(image.indexOf("/qr/")));
    assertEquals(200, png.status());
    assertEquals("image/png", png.raw().headers().firstValue("Content-Type").orElse(""));
    String checkout = created.json().get("checkout_url").asText();
    Merchant.Reply page = anonymous.get(checkout.substring(checkout.indexOf("/checkout/")));
    assertEquals(200, page.status());
    assertTrue(page.raw().body().contains("TEST MODE"));
    // The payment id opens neither the page nor the image.
    String id = created.json().get("id").asText();
    assertEquals(404, anonymous.get("/checkout/" + id).status());
    assertEquals(404, anonymous.get("/qr/" + id + ".png").status());
  }

  @Test
  void rejectionsUseTheEnvelope() {
    Merchant.Reply noRoute =
        merchant.post("/v1/payments", "{\"amount\":10,\"method\":\"carrier_pigeon\"}");
    assertEquals(400, noRoute.status());
    assertEquals("no_route", noRoute.code());

    Merchant.Reply invalid =
        merchant.post("/v1/payments", "{\"amount\":0.001,\"method\":\"card\",\"currency\":\"ph\"}");
    assertEquals(400, invalid.status());
    assertEquals("invalid_request", invalid.code());
    assertNotNull(invalid.json().at("/error/issues/amount").textValue());
    assertNotNull(invalid.json().at("/error/issues/currency").textValue());

    Merchant.Reply created = merchant.post("/v1/payments", "{\"amount\":10,\"method\":\"card\"}");
    String id = created.json().get("id").asText();
    assertEquals(200, merchant.post("/v1/test_helpers/payments/" + id + "/fail", null).status());
    Merchant.Reply illegal = merchant.post("/v1/test_helpers/payments/" + id + "/succeed", null);
    assertEquals(400, illegal.status());
    assertEquals("invalid_state", illegal.code());

    Merchant.Reply missing = merchant.get("/v1/payments/pay_00000000000000000000000000");
    assertEquals(404, missing.status());
    assertEquals("not_found", missing.code());
  }

  private static long count(List<JsonNode> events, String paymentId) {
    return events.stream().filter(e -> e.at("/data/object/id").asText().equals(paymentId)).count();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Issue 6's walk: take a payment, refund part of it, pay out the rest; every step is in the event
   * log and the balance follows.
   */
  @Test
  void aMerchantTakesAPaymentRefundsPartAndPaysOutTheRest() {
    Merchant operator = new Merchant(system.gatewayUrl(), system.adminToken);
    Merchant.Reply created =
        operator.post(
            "/admin/v1/merchants", "{\"name\":\"Payout Store\",\"email\":\"p@example.com\"}");
    Merchant shop =
        new Merchant(system.gatewayUrl(), created.json().at("/api_keys/0/secret").asText());

    Merchant.Reply payment = shop.post("/v1/payments", "{\"amount\":1000,\"method\":\"card\"}");
    String paymentId = payment.json().get("id").asText();
    assertEquals(
        200, shop.post("/v1/test_helpers/payments/" + paymentId + "/succeed", null).status());
    awaitBalance(shop, "950.00"); // 1000.00 − (3.5 % + 15.00)

    Merchant.Reply refund =
        shop.post(
            "/v1/refunds",
            "{\"payment\":\"" + paymentId + "\",\"amount\":200}",
            "Idempotency-Key",
            "refund-1");
    assertEquals(201, refund.status(), refund.raw().body());
    assertEquals("succeeded", refund.json().get("status").asText(), "cards refund at once");
    assertEquals("succeeded", shop.get("/v1/payments/" + paymentId).json().get("status").asText());
    awaitBalance(shop, "750.00");

    Merchant.Reply payout =
        shop.post(
            "/v1/payouts",
            "{\"amount\":750,\"method\":\"ewallet1\",\"destination\":{\"account_no\":\"09171234567\"}}",
            "Idempotency-Key",
            "payout-1");
    assertEquals(201, payout.status(), payout.raw().body());
    awaitBalance(shop, "0.00");
    Merchant.Reply tooMuch =
        shop.post(
            "/v1/payouts",
            "{\"amount\":100,\"method\":\"ewallet1\",\"destination\":{\"account_no\":\"09171234567\"}}");
    assertEquals(400, tooMuch.status());
    assertEquals("insufficient_balance", tooMuch.code());

    List<String> types = new ArrayList<>();
    for (int i = 0; i < 50 && types.size() < 5; i++) {
      types.clear();
      reconcile(shop).forEach(e -> types.add(e.get("type").asText()));
      sleep(100);
    }
    assertEquals(
        List.of(
            "payment.processing",
            "payment.succeeded",
            "refund.created",
            "refund.succeeded",
            payout.json().get("status").asText().equals("succeeded")
                ? "payout.succeeded"
                : "payout.failed"),
        types);
  }

  /** These scenarios poll; the operator gives their keys a negotiated limit (SPEC part 8). */
  @Test
  void aCustomerIsKeptAndAPaymentNamingItInheritsItsEmailAndName() {
    Merchant.Reply created =
        merchant.post(
            "/v1/customers",
            "{\"name\":\"Liza Soberano\",\"email\":\"Liza@Example.ph\","
                + "\"address\":{\"city\":\"Quezon City\"}}",
            "Idempotency-Key",
            "customer-liza");
    assertEquals(201, created.status(), created.raw().body());
    JsonNode customer = created.json();
    String id = customer.get("id").asText();
    assertTrue(id.startsWith("cus_"));
    assertEquals("PH", customer.at("/address/country").asText());
    assertTrue(
        customer
            .get("receipts_history_url")
            .asText()
            .matches(".*/receipts/history/rh_[A-Za-z0-9_-]{32}"));
    Merchant.Reply replay =
        merchant.post(
            "/v1/customers",
            "{\"name\":\"Liza Soberano\",\"email\":\"Liza@Example.ph\","
                + "\"address\":{\"city\":\"Quezon City\"}}",
            "Idempotency-Key",
            "customer-liza");
    assertEquals(created.raw().body(), replay.raw().body(), "the retry returns the original");

    Merchant.Reply taken =
        merchant.post("/v1/customers", "{\"name\":\"Other\",\"email\":\"liza@example.PH\"}");
    assertEquals(409, taken.status(), taken.raw().body());
    assertEquals("email_taken", taken.json().at("/error/code").asText());
    assertEquals(customer, merchant.get("/v1/customers/" + id).json());
    assertEquals(
        id, merchant.get("/v1/customers?email=LIZA@example.ph").json().at("/data/0/id").asText());

    Merchant.Reply updated = merchant.patch("/v1/customers/" + id, "{\"phone\":\"+639171234567\"}");
    assertEquals(200, updated.status(), updated.raw().body());
    assertEquals("+639171234567", updated.json().get("phone").asText());
    Merchant.Reply aliased = merchant.post("/v1/customers/" + id, "{\"name\":\"Liza S.\"}");
    assertEquals(200, aliased.status(), aliased.raw().body());

    Merchant.Reply payment =
        merchant.post(
            "/v1/payments", "{\"amount\":250,\"method\":\"card\",\"customer_id\":\"" + id + "\"}");
    assertEquals(201, payment.status(), payment.raw().body());
    assertEquals(id, payment.json().get("customer_id").asText());
    assertEquals("Liza@Example.ph", payment.json().at("/customer/email").asText());
    assertEquals("Liza S.", payment.json().at("/customer/name").asText());
    Merchant.Reply unknown =
        merchant.post(
            "/v1/payments",
            "{\"amount\":250,\"method\":\"card\",\"customer_id\":\"cus_01jd3k4m5n6p7q8r9s0t1v2w3x\"}");
    assertEquals(404, unknown.status(), unknown.raw().body());
    assertEquals("customer_not_found", unknown.json().at("/error/code").asText());
    JsonNode theirs = merchant.get("/v1/payments?customer_id=" + id).json();
    assertEquals(1, theirs.get("data").size());
    assertEquals(payment.json().get("id"), theirs.at("/data/0/id"));
  }

  private static void raiseRateLimit(Merchant operator, String keyId) {
    Merchant.Reply raised =
        operator.post(
            "/admin/v1/api_keys/" + keyId + "/rate_limit", "{\"rate_limit_per_minute\":5000}");
    assertEquals(200, raised.status(), raised.raw().body());
  }

  private static void awaitBalance(Merchant shop, String expected) {
    String available = null;
    for (int i = 0; i < 100 && !expected.equals(available); i++) {
      available =
          shop.get("/v1/balance?currency=PHP")
              .json()
              .get("available")
              .decimalValue()
              .toPlainString();
      sleep(50);
    }
    assertEquals(expected, available);
  }

  /**
   * Issue 7's check: a merchant's local receiver gets a signed {@code payment.succeeded} soon after
   * the test helper call, with the bytes of the event log, verified with the merchants' helper.
   */
  @Test
  void aLocalReceiverGetsASignedPaymentSucceeded() throws Exception {
    java.util.concurrent.BlockingQueue<String[]> received =
        new java.util.concurrent.LinkedBlockingQueue<>();
    com.sun.net.httpserver.HttpServer receiver =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/hooks",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          received.add(
              new String[] {
                new String(body, java.nio.charset.StandardCharsets.UTF_8),
                exchange.getRequestHeaders().getFirst("X-Service-Signature"),
                exchange.getRequestHeaders().getFirst("X-Service-Event"),
                exchange.getRequestHeaders().getFirst("X-Service-Delivery"),
                exchange.getRequestHeaders().getFirst("User-Agent")
              });
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    receiver.start();
    // A merchant of its own, so this payment does not move the other scenarios' balances.
    Merchant operator = new Merchant(system.gatewayUrl(), system.adminToken);
    Merchant.Reply signedUp =
        operator.post(
            "/admin/v1/merchants", "{\"name\":\"Hooked Store\",\"email\":\"h@example.com\"}");
    Merchant merchant =
        new Merchant(system.gatewayUrl(), signedUp.json().at("/api_keys/0/secret").asText());
    try {
      String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hooks";
      Merchant.Reply endpoint =
          merchant.post(
              "/v1/webhooks/endpoints",
              "{\"url\":\"" + url + "\",\"events\":[\"payment.succeeded\"]}");
      assertEquals(201, endpoint.status(), endpoint.raw().body());
      String secret = endpoint.json().get("secret").asText();

      Merchant.Reply payment =
          merchant.post("/v1/payments", "{\"amount\":99.99,\"method\":\"ewallet1\"}");
      String id = payment.json().get("id").asText();
      long helperCalled = System.nanoTime();
      assertEquals(
          200, merchant.post("/v1/test_helpers/payments/" + id + "/succeed", null).status());

      String[] delivery = null;
      while (delivery == null || !delivery[0].contains(id)) {
        delivery = received.poll(10, java.util.concurrent.TimeUnit.SECONDS);
        assertNotNull(delivery, "no webhook within 10 s");
      }
      long millis = (System.nanoTime() - helperCalled) / 1_000_000;
      System.out.println(
          "payment.succeeded reached the receiver " + millis + " ms after the helper call");
      ph.payments.webhooks.verify.WebhookSignature.verify(delivery[0], delivery[1], secret, 300);
      assertEquals("payment.succeeded", delivery[2]);
      assertTrue(delivery[3].matches("\\d+"), "numeric delivery id");
      assertTrue(delivery[4].contains("1.0"), delivery[4]);
      JsonNode event = Merchant.JSON.readTree(delivery[0]);
      Merchant.Reply stored = merchant.get("/v1/events/" + event.get("id").asText());
      assertEquals(stored.raw().body(), delivery[0], "the webhook carries the event log's bytes");
    } finally {
      receiver.stop(0);
    }
  }

  /** SPEC part 6: keep the highest processed id, poll with starting_after, follow has_more. */
  private static List<JsonNode> reconcile() {
    return reconcile(merchant);
  }

  private static List<JsonNode> reconcile(Merchant merchant) {
    return merchant.listAll("/v1/events");
  }
}
