package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Year;
import java.time.ZoneId;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Invoices across the real processes (issue 17), as a merchant uses them through the gateway: a
 * two-stage invoice created, sent (numbered), paid deposit then balance through {@code POST
 * /v1/payments} with {@code invoice_id}; {@code invoice.balance_due} delivered by webhook once the
 * deposit is paid; each payment refusal as the SPEC error envelope with its status.
 */
class InvoicesE2EIT {

  private static SystemUnderTest system;
  private static WebhookReceiver receiver;
  private static Merchant merchant;

  @BeforeAll
  static void start() throws Exception {
    system = SystemUnderTest.start("invoices", Map.of("INVOICE_SWEEP", "1s"));
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
    if (system != null) {
      system.close();
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
}
