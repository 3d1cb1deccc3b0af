package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Year;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Invoices across the real processes (issue 17), as a merchant uses them through the gateway: a
 * two-stage invoice created, sent (numbered), paid deposit then balance through {@code POST
 * /v1/payments} with {@code invoice_id}; {@code invoice.balance_due} delivered by webhook once the
 * deposit is paid; each payment refusal as the SPEC error envelope with its status; and the state
 * machine of docs/invoices.md walked over HTTP, every merchant action from every status.
 */
@ExtendWith(SharedSystem.class)
class InvoicesE2EIT {

  private static SystemUnderTest system;
  private static WebhookReceiver receiver;
  private static Merchant merchant;

  @BeforeAll
  static void start(SystemUnderTest shared) throws Exception {
    system = shared; // its invoice deadline job runs every second (INVOICE_SWEEP)
    receiver = WebhookReceiver.start();
    Merchant operator = new Merchant(system.gatewayUrl(), system.adminToken);
    Merchant.Reply created =
        operator.post(
            "/admin/v1/merchants", "{\"name\":\"Catering\",\"email\":\"inv@example.com\"}");
    assertEquals(201, created.status(), created.raw().body());
    merchant = new Merchant(system.gatewayUrl(), created.json().at("/api_keys/0/secret").asText());
  }

  @AfterAll
  static void stop() throws Exception {
    if (receiver != null) {
      receiver.close();
    }
  }

  private static JsonNode ok(Merchant.Reply reply, int status) {
    assertEquals(status, reply.status(), reply.raw().body());
    return reply.json();
  }

  private static void expect(Merchant.Reply reply, int status, String code) {
    assertEquals(status, reply.status(), reply.raw().body());
    assertEquals(code, reply.json().at("/error/code").asText(), reply.raw().body());
  }

  @Test
  void aTwoStageInvoiceIsPaidDepositThenBalanceAndItsBalanceDueArrivesByWebhook() throws Exception {
    JsonNode endpoint =
        ok(
            merchant.post(
                "/v1/webhooks/endpoints",
                "{\"url\":\"" + receiver.url() + "\",\"events\":[\"invoice.balance_due\"]}"),
            201);
    String secret = endpoint.get("secret").asText();
    String body =
        "{\"line_items\":[{\"description\":\"Lechon\",\"quantity\":2,\"unit_amount\":2500}],"
            + "\"deposit_rate\":0.5,\"notes\":\"Salamat po\"}";
    JsonNode draft = ok(merchant.post("/v1/invoices", body, "Idempotency-Key", "inv-1"), 201);
    String id = draft.get("id").asText();
    assertEquals(
        id,
        ok(merchant.post("/v1/invoices", body, "Idempotency-Key", "inv-1"), 201)
            .get("id")
            .asText());
    assertEquals("draft", draft.get("status").asText());
    expect(
        merchant.post("/v1/payments", "{\"invoice_id\":\"" + id + "\",\"method\":\"card\"}"),
        409,
        "invoice_not_sent");

    JsonNode sent = ok(merchant.post("/v1/invoices/" + id + "/send", null), 200);
    int year = Year.now(ZoneId.of("Asia/Manila")).getValue();
    assertEquals("INV-" + year + "-0001", sent.get("number").asText());
    assertEquals(sent, ok(merchant.get("/v1/invoices/" + id), 200));
    assertEquals(1, ok(merchant.get("/v1/invoices?status=sent"), 200).get("data").size());

    expect(
        merchant.post(
            "/v1/payments", "{\"invoice_id\":\"" + id + "\",\"method\":\"card\",\"amount\":4000}"),
        400,
        "partial_not_allowed");
    JsonNode deposit =
        ok(
            merchant.post("/v1/payments", "{\"invoice_id\":\"" + id + "\",\"method\":\"card\"}"),
            201);
    assertEquals("2500.00", deposit.get("amount").decimalValue().toPlainString());
    ok(
        merchant.post("/v1/test_helpers/payments/" + deposit.get("id").asText() + "/succeed", null),
        200);
    JsonNode partial = ok(merchant.get("/v1/invoices/" + id), 200);
    assertEquals("partial", partial.get("status").asText());
    assertEquals("2500.00", partial.get("amount_remaining").decimalValue().toPlainString());

    WebhookReceiver.Delivery due =
        receiver.await(
            e -> "invoice.balance_due".equals(e.path("type").asText()),
            secret,
            Duration.ofSeconds(60));
    assertEquals(id, due.event().at("/data/object/id").asText());
    assertEquals("partial", due.event().at("/data/object/status").asText());

    JsonNode balance =
        ok(
            merchant.post("/v1/payments", "{\"invoice_id\":\"" + id + "\",\"method\":\"card\"}"),
            201);
    ok(
        merchant.post("/v1/test_helpers/payments/" + balance.get("id").asText() + "/succeed", null),
        200);
    JsonNode paid = ok(merchant.get("/v1/invoices/" + id), 200);
    assertEquals("paid", paid.get("status").asText());
    assertEquals(balance.get("id").asText(), paid.get("payment_id").asText());
    expect(
        merchant.post("/v1/payments", "{\"invoice_id\":\"" + id + "\",\"method\":\"card\"}"),
        409,
        "invoice_paid");
    assertTrue(paid.get("paid_at").isNumber());

    JsonNode other = ok(merchant.post("/v1/invoices", body), 201);
    ok(merchant.post("/v1/invoices/" + other.get("id").asText() + "/void", null), 200);
    expect(
        merchant.post(
            "/v1/payments",
            "{\"invoice_id\":\"" + other.get("id").asText() + "\",\"method\":\"card\"}"),
        409,
        "invoice_void");
    expect(
        merchant.post(
            "/v1/payments",
            "{\"invoice_id\":\"inv_01jd3k4m5n6p7q8r9s0t1v2w3x\",\"method\":\"card\"}"),
        404,
        "not_found");
  }

  /** What one action answers from one status: HTTP status, error code (null: none), then status. */
  private record Outcome(int http, String code, String then) {}

  private static Outcome ok(int http, String then) {
    return new Outcome(http, null, then);
  }

  private static Outcome no(int http, String code, String then) {
    return new Outcome(http, code, then);
  }

  /** One row of the table: a status and what each action does from it. */
  private record Row(
      String status,
      Outcome updateMoney,
      Outcome updateText,
      Outcome send,
      Outcome voids,
      Outcome pay) {}

  /**
   * docs/invoices.md "State machine" (merchant actions; anything else 400 {@code invalid_state})
   * and "Paying" ({@code Invoice.charge}). Paying here is {@code POST /v1/payments} with the
   * invoice and no amount (the amount due now), then, when created, the sandbox helper's success:
   * the fixture's sent and partial invoices have one stage, so the amount due now is the remaining
   * and they end paid.
   */
  private static final List<Row> TABLE =
      List.of(
          new Row(
              "draft",
              ok(200, "draft"),
              ok(200, "draft"),
              ok(200, "sent"),
              ok(200, "void"),
              no(409, "invoice_not_sent", "draft")),
          new Row(
              "sent",
              no(400, "invalid_state", "sent"),
              ok(200, "sent"),
              no(400, "invalid_state", "sent"),
              ok(200, "void"),
              ok(201, "paid")),
          new Row(
              "partial",
              no(400, "invalid_state", "partial"),
              ok(200, "partial"),
              no(400, "invalid_state", "partial"),
              ok(200, "void"),
              ok(201, "paid")),
          new Row(
              "paid",
              no(400, "invalid_state", "paid"),
              ok(200, "paid"),
              no(400, "invalid_state", "paid"),
              no(400, "invalid_state", "paid"),
              no(409, "invoice_paid", "paid")),
          new Row(
              "void",
              no(400, "invalid_state", "void"),
              no(400, "invalid_state", "void"),
              no(400, "invalid_state", "void"),
              no(400, "invalid_state", "void"),
              no(409, "invoice_void", "void")));

  /** 100.00 in one line, paid in parts allowed, one stage. */
  private static final String FIXTURE =
      "{\"line_items\":[{\"description\":\"Pancit\",\"quantity\":1,\"unit_amount\":100}],"
          + "\"allow_partial_payment\":true,\"notes\":\"first\"}";

  /** Pays {@code amount} (null: the amount due now) of the invoice and succeeds the payment. */
  private static Merchant.Reply pay(Merchant m, String id, String amount) {
    Merchant.Reply created =
        m.post(
            "/v1/payments",
            "{\"invoice_id\":\""
                + id
                + "\",\"method\":\"card\""
                + (amount == null ? "" : ",\"amount\":" + amount)
                + "}");
    if (created.status() == 201) {
      ok(
          m.post(
              "/v1/test_helpers/payments/" + created.json().get("id").asText() + "/succeed", null),
          200);
    }
    return created;
  }

  /** A fresh invoice of the fixture brought to {@code status} through the public API only. */
  private static String invoiceIn(Merchant m, String status) {
    String id = ok(m.post("/v1/invoices", FIXTURE), 201).get("id").asText();
    switch (status) {
      case "draft" -> {}
      case "void" -> ok(m.post("/v1/invoices/" + id + "/void", null), 200);
      default -> {
        ok(m.post("/v1/invoices/" + id + "/send", null), 200);
        if (status.equals("partial")) {
          assertEquals(201, pay(m, id, "40.00").status());
        } else if (status.equals("paid")) {
          assertEquals(201, pay(m, id, null).status());
        }
      }
    }
    assertEquals(status, ok(m.get("/v1/invoices/" + id), 200).get("status").asText(), id);
    return id;
  }

  private static Merchant merchantOfItsOwn(String name) {
    Merchant operator = new Merchant(system.gatewayUrl(), system.adminToken);
    Merchant.Reply created =
        operator.post(
            "/admin/v1/merchants",
            "{\"name\":\"Carinderia " + name + "\",\"email\":\"fsm-" + name + "@example.com\"}");
    assertEquals(201, created.status(), created.raw().body());
    return new Merchant(system.gatewayUrl(), created.json().at("/api_keys/0/secret").asText());
  }

  @Test
  void everyMerchantActionFromEveryStatusAnswersAsDocsInvoicesMdSays() {
    Map<String, java.util.function.BiFunction<Merchant, String, Merchant.Reply>> actions =
        new java.util.LinkedHashMap<>();
    actions.put(
        "update tax_amount", (c, id) -> c.patch("/v1/invoices/" + id, "{\"tax_amount\":12}"));
    actions.put("update notes", (c, id) -> c.patch("/v1/invoices/" + id, "{\"notes\":\"second\"}"));
    actions.put("send", (c, id) -> c.post("/v1/invoices/" + id + "/send", null));
    actions.put("void", (c, id) -> c.post("/v1/invoices/" + id + "/void", null));
    actions.put("pay", (c, id) -> pay(c, id, null));

    List<String> failures = new ArrayList<>();
    for (Row row : TABLE) {
      // A merchant per row: the other test counts its merchant's numbers and sent invoices, and a
      // row's ~50 requests stay under the gateway's 100 a minute per key.
      Merchant m = merchantOfItsOwn(row.status());
      List<Outcome> expected =
          List.of(row.updateMoney(), row.updateText(), row.send(), row.voids(), row.pay());
      int i = 0;
      for (var action : actions.entrySet()) {
        Outcome want = expected.get(i++);
        String id = invoiceIn(m, row.status());
        JsonNode before = ok(m.get("/v1/invoices/" + id), 200);
        Merchant.Reply reply = action.getValue().apply(m, id);
        JsonNode after = ok(m.get("/v1/invoices/" + id), 200);
        String code = reply.json() == null ? null : reply.json().at("/error/code").asText(null);
        Outcome got = new Outcome(reply.status(), code, after.get("status").asText());
        String cell = row.status() + " × " + action.getKey();
        if (!want.equals(got)) {
          failures.add(cell + ": expected " + want + ", got " + got + " " + reply.raw().body());
          continue;
        }
        if (want.code() == null && reply.status() == 200) {
          // A success answers the invoice as it now is.
          assertEquals(want.then(), reply.json().get("status").asText(), cell);
        }
        // What moved, and what did not.
        switch (action.getKey()) {
          case "update tax_amount" -> {
            String amount =
                want.code() == null
                    ? "112.00"
                    : before.get("amount").decimalValue().toPlainString();
            assertEquals(amount, after.get("amount").decimalValue().toPlainString(), cell);
          }
          case "update notes" ->
              assertEquals(
                  want.code() == null ? "second" : "first", after.get("notes").asText(), cell);
          case "send" -> {
            if (want.code() == null) {
              assertTrue(after.get("number").asText().startsWith("INV-"), cell);
              assertTrue(after.get("sent_at").isNumber(), cell);
            }
          }
          case "void" -> {
            if (want.code() == null) {
              assertTrue(after.get("void_at").isNumber(), cell);
              // A partial invoice voided keeps what was paid.
              assertEquals(before.get("amount_paid"), after.get("amount_paid"), cell);
            }
          }
          case "pay" -> {
            if (want.code() == null) {
              assertEquals(
                  "0.00", after.get("amount_remaining").decimalValue().toPlainString(), cell);
              assertEquals(reply.json().get("id").asText(), after.get("payment_id").asText(), cell);
            } else {
              assertEquals(before.get("amount_paid"), after.get("amount_paid"), cell);
            }
          }
          default -> throw new AssertionError(action.getKey());
        }
        if (want.code() != null) {
          assertEquals(before, after, cell + ": a refused action changes nothing");
        }
      }
    }
    assertTrue(failures.isEmpty(), String.join("\n", failures));
  }

  /**
   * Two things only the whole system shows: an activation fee billed through the operator API and
   * paid by the merchant lands on the platform's fee account and not on the merchant's balance; and
   * a payment that succeeds for an invoice another payment has paid already is refunded at once, so
   * the balance holds only what the invoice asked for.
   */
  @Test
  void anActivationFeeCreditsThePlatformAndAnInvoiceOverpaymentIsRefunded() throws Exception {
    Merchant operator = new Merchant(system.gatewayUrl(), system.adminToken);
    JsonNode signedUp =
        ok(
            operator.post(
                "/admin/v1/merchants", "{\"name\":\"Sari-sari\",\"email\":\"fee@example.com\"}"),
            201);
    String merchantId = signedUp.get("id").asText();
    Merchant store = new Merchant(system.gatewayUrl(), signedUp.at("/api_keys/0/secret").asText());

    expect(
        operator.post(
            "/admin/v1/merchants/" + merchantId + "/activation_fee_invoices",
            "{\"amount\":0,\"environment\":\"test\"}"),
        400,
        "invalid_request");
    expect(
        operator.post(
            "/admin/v1/merchants/mer_nope/activation_fee_invoices",
            "{\"amount\":500,\"environment\":\"test\"}"),
        404,
        "not_found");
    expect(
        store.post(
            "/admin/v1/merchants/" + merchantId + "/activation_fee_invoices",
            "{\"amount\":500,\"environment\":\"test\"}"),
        401,
        "unauthenticated");
    JsonNode fee =
        ok(
            operator.post(
                "/admin/v1/merchants/" + merchantId + "/activation_fee_invoices",
                "{\"amount\":500,\"environment\":\"test\",\"due_date\":\"2099-12-31\"}"),
            201);
    String feeId = fee.get("id").asText();
    assertEquals("activation_fee", fee.get("kind").asText());
    assertTrue(fee.get("number").isNull());
    assertEquals(fee, ok(store.get("/v1/invoices/" + feeId), 200));
    expect(store.post("/v1/invoices/" + feeId + "/void", null), 400, "invalid_state");

    JsonNode feePayment =
        ok(
            store.post(
                "/v1/payments", "{\"invoice_id\":\"" + feeId + "\",\"method\":\"bank_transfer\"}"),
            201);
    expect(
        store.post("/v1/payments", "{\"invoice_id\":\"" + feeId + "\",\"method\":\"card\"}"),
        409,
        "conflict");
    String feePaymentId = feePayment.get("id").asText();
    ok(store.post("/v1/test_helpers/payments/" + feePaymentId + "/succeed", null), 200);
    assertEquals("paid", ok(store.get("/v1/invoices/" + feeId), 200).get("status").asText());
    expect(
        store.post("/v1/refunds", "{\"payment\":\"" + feePaymentId + "\"}"), 400, "invalid_state");

    // An invoice of the store's own, paid twice from two tabs.
    JsonNode invoice =
        ok(
            store.post(
                "/v1/invoices",
                "{\"line_items\":[{\"description\":\"Rice\",\"quantity\":2,\"unit_amount\":50}]}"),
            201);
    String invoiceId = invoice.get("id").asText();
    ok(store.post("/v1/invoices/" + invoiceId + "/send", null), 200);
    String pay = "{\"invoice_id\":\"" + invoiceId + "\",\"method\":\"card\"}";
    JsonNode first = ok(store.post("/v1/payments", pay), 201);
    JsonNode second = ok(store.post("/v1/payments", pay), 201);
    ok(store.post("/v1/test_helpers/payments/" + first.get("id").asText() + "/succeed", null), 200);
    ok(
        store.post("/v1/test_helpers/payments/" + second.get("id").asText() + "/succeed", null),
        200);
    JsonNode paid = ok(store.get("/v1/invoices/" + invoiceId), 200);
    assertEquals("paid", paid.get("status").asText());
    assertEquals("100.00", paid.get("amount_paid").decimalValue().toPlainString());
    List<JsonNode> refunds = new ArrayList<>();
    for (JsonNode refund : store.listAll("/v1/refunds")) {
      if (refund.get("payment").asText().equals(second.get("id").asText())) {
        refunds.add(refund);
      }
    }
    assertEquals(1, refunds.size(), refunds.toString());
    assertEquals("100.00", refunds.get(0).get("amount").decimalValue().toPlainString());
    assertEquals("duplicate", refunds.get(0).get("reason").asText());
    assertEquals("succeeded", refunds.get(0).get("status").asText());

    // A refund the merchant makes reopens the invoice for what it gave back.
    JsonNode giveBack =
        ok(
            store.post(
                "/v1/refunds", "{\"payment\":\"" + first.get("id").asText() + "\",\"amount\":30}"),
            201);
    assertEquals("succeeded", giveBack.get("status").asText());
    JsonNode reopened = ok(store.get("/v1/invoices/" + invoiceId), 200);
    assertEquals("partial", reopened.get("status").asText());
    assertEquals("70.00", reopened.get("amount_paid").decimalValue().toPlainString());
    assertEquals("30.00", reopened.get("amount_remaining").decimalValue().toPlainString());
    assertTrue(reopened.get("paid_at").isNull());

    // The ledger: the fee's whole amount on the platform's fee account, nothing on the merchant's
    // available balance; the invoice's money net of fees once, the duplicate in and back out.
    String statement = "";
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline
        && !(statement.contains(feePaymentId)
            && statement.contains(first.get("id").asText())
            && statement.contains(second.get("id").asText())
            && statement.contains(refunds.get(0).get("id").asText())
            && statement.contains(giveBack.get("id").asText()))) {
      Thread.sleep(200);
      statement =
          operator
              .get("/admin/v1/merchants/" + merchantId + "/statement?environment=test")
              .raw()
              .body();
    }
    List<String> feeLines = new ArrayList<>();
    for (String line : statement.split("\n")) {
      String[] column = line.split(",");
      if (column.length > 9 && column[5].equals(feePaymentId)) {
        feeLines.add(column[7] + " " + column[9]);
      }
    }
    assertEquals(
        List.of("platform_fees 500.00", "provider_clearing -500.00"),
        feeLines.stream().sorted().toList(),
        "the activation fee's postings");
    JsonNode balance = ok(store.get("/v1/balance?currency=PHP"), 200);
    java.math.BigDecimal nets =
        first
            .get("amount")
            .decimalValue()
            .subtract(
                ok(store.get("/v1/payments/" + first.get("id").asText()), 200)
                    .get("fee_amount")
                    .decimalValue());
    java.math.BigDecimal secondNet =
        second
            .get("amount")
            .decimalValue()
            .subtract(
                ok(store.get("/v1/payments/" + second.get("id").asText()), 200)
                    .get("fee_amount")
                    .decimalValue());
    assertEquals(
        0,
        nets.add(secondNet)
            .subtract(new java.math.BigDecimal("130"))
            .compareTo(balance.get("available").decimalValue()),
        "available is the two nets less the two refunds, and no activation fee: " + balance);
  }
}
