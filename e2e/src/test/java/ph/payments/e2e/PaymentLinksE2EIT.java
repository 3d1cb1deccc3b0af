package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Payment links and static QR codes across the real processes (issue 16), as a merchant uses them
 * through the gateway: a link with a customer, a payment through it, {@code usage_count} moving
 * only when that payment succeeds and only once; each refusal as the SPEC error envelope with its
 * status; a static QR with its link, archived for good; another merchant kept out.
 */
@ExtendWith(SharedSystem.class)
class PaymentLinksE2EIT {

  private static SystemUnderTest system;
  private static Merchant operator;
  private static Merchant merchant;

  @BeforeAll
  static void start(SystemUnderTest shared) throws Exception {
    system = shared;
    operator = new Merchant(system.gatewayUrl(), system.adminToken);
    Merchant.Reply created =
        operator.post(
            "/admin/v1/merchants", "{\"name\":\"Sari-sari\",\"email\":\"links@example.com\"}");
    assertEquals(201, created.status(), created.raw().body());
    merchant = new Merchant(system.gatewayUrl(), created.json().at("/api_keys/0/secret").asText());
  }

  @Test
  void aLinkIsPaidAndCountedOnceWhenThePaymentSucceeds() {
    Merchant.Reply customer =
        merchant.post("/v1/customers", "{\"name\":\"Ana Cruz\",\"email\":\"ana@example.ph\"}");
    assertEquals(201, customer.status(), customer.raw().body());
    String customerId = customer.json().get("id").asText();
    String body =
        "{\"description\":\"Halo-halo\",\"amount\":150.00,\"customer_id\":\""
            + customerId
            + "\",\"success_url\":\"https://shop.example/thanks\"}";
    Merchant.Reply created = merchant.post("/v1/payment_links", body, "Idempotency-Key", "link-1");
    assertEquals(201, created.status(), created.raw().body());
    JsonNode link = created.json();
    String id = link.get("id").asText();
    assertTrue(link.get("url").asText().matches("http://[^/]+/l/[A-Za-z0-9]{16}"), link.toString());
    Merchant.Reply replay = merchant.post("/v1/payment_links", body, "Idempotency-Key", "link-1");
    assertEquals(id, replay.json().get("id").asText());
    assertEquals("true", replay.raw().headers().firstValue("Idempotent-Replayed").orElse(""));
    assertEquals(link, merchant.get("/v1/payment_links/" + id).json());

    Merchant.Reply paid =
        merchant.post(
            "/v1/payments",
            "{\"payment_link_id\":\"" + id + "\",\"method\":\"rail1_qr\"}",
            "Idempotency-Key",
            "link-pay-1");
    assertEquals(201, paid.status(), paid.raw().body());
    JsonNode payment = paid.json();
    assertEquals(id, payment.get("payment_link_id").asText());
    assertEquals("150.00", payment.get("amount").decimalValue().toPlainString());
    assertEquals(customerId, payment.get("customer_id").asText());
    assertEquals("ana@example.ph", payment.at("/customer/email").asText());
    assertEquals("Halo-halo", payment.get("description").asText());
    assertEquals("https://shop.example/thanks", payment.get("return_url").asText());
    assertEquals(0, merchant.get("/v1/payment_links/" + id).json().get("usage_count").asInt());

    String paymentId = payment.get("id").asText();
    Merchant.Reply succeeded =
        merchant.post("/v1/test_helpers/payments/" + paymentId + "/succeed", null);
    assertEquals(200, succeeded.status(), succeeded.raw().body());
    JsonNode used = merchant.get("/v1/payment_links/" + id).json();
    assertEquals(1, used.get("usage_count").asInt());
    assertEquals(succeeded.json().get("succeeded_at"), used.get("last_used_at"));
    assertEquals(
        400, merchant.post("/v1/test_helpers/payments/" + paymentId + "/succeed", null).status());
    assertEquals(1, merchant.get("/v1/payment_links/" + id).json().get("usage_count").asInt());
  }

  @Test
  void eachRefusalIsTheErrorEnvelopeWithItsStatus() throws Exception {
    String open = link("{\"description\":\"Tip jar\"}");
    String fixed = link("{\"description\":\"Fixed\",\"amount\":99,\"method\":\"card\"}");
    expect(
        pay("{\"payment_link_id\":\"" + open + "\",\"method\":\"card\"}"), 400, "amount_required");
    expect(pay("{\"payment_link_id\":\"" + open + "\",\"amount\":5}"), 400, "method_required");
    Merchant.Reply mismatch = pay("{\"payment_link_id\":\"" + fixed + "\",\"amount\":100}");
    expect(mismatch, 400, "invalid_request");
    assertTrue(mismatch.json().at("/error/issues/amount").isTextual());
    expect(pay("{\"payment_link_id\":\"plk_01jd3k4m5n6p7q8r9s0t1v2w3x\"}"), 404, "not_found");

    Merchant.Reply off = merchant.patch("/v1/payment_links/" + fixed, "{\"status\":\"inactive\"}");
    assertEquals(200, off.status(), off.raw().body());
    expect(pay("{\"payment_link_id\":\"" + fixed + "\"}"), 409, "link_inactive");
    java.util.List<JsonNode> inactive = new java.util.ArrayList<>();
    merchant.get("/v1/payment_links?status=inactive").json().get("data").forEach(inactive::add);
    assertTrue(inactive.stream().anyMatch(l -> l.get("id").asText().equals(fixed)));
    assertTrue(
        inactive.stream().allMatch(l -> l.get("status").asText().equals("inactive")),
        "the list filters by status");

    String soon =
        OffsetDateTime.ofInstant(Instant.now().plusSeconds(3), ZoneOffset.ofHours(8)).toString();
    String expiring =
        link(
            "{\"description\":\"Flash\",\"amount\":5,\"method\":\"card\",\"expires_at\":\""
                + soon
                + "\"}");
    Thread.sleep(4_000);
    expect(pay("{\"payment_link_id\":\"" + expiring + "\"}"), 410, "link_expired");
  }

  @Test
  void aStaticQrEncodesItsLinkAndArchivingEndsItForGood() {
    Merchant.Reply created =
        merchant.post(
            "/v1/static_qrs",
            "{\"name\":\"Counter 1\",\"location\":\"Quiapo\",\"default_method\":\"rail1_qr\"}");
    assertEquals(201, created.status(), created.raw().body());
    JsonNode qr = created.json();
    String qrId = qr.get("id").asText();
    String linkId = qr.get("payment_link_id").asText();
    JsonNode link = merchant.get("/v1/payment_links/" + linkId).json();
    assertEquals(qr.get("url"), link.get("url"));
    assertEquals(qr.get("url").asText() + "/qr.svg", qr.get("qr_svg_url").asText());
    assertTrue(link.get("amount").isNull());
    assertEquals("Counter 1", link.get("description").asText());
    assertEquals(
        201,
        pay("{\"payment_link_id\":\"" + linkId + "\",\"amount\":35,\"method\":\"rail1_qr\"}")
            .status());

    Merchant.Reply archived = merchant.post("/v1/static_qrs/" + qrId + "/archive", "{}");
    assertEquals(200, archived.status(), archived.raw().body());
    assertTrue(archived.json().get("archived").asBoolean());
    assertEquals(
        "inactive", merchant.get("/v1/payment_links/" + linkId).json().get("status").asText());
    expect(
        pay("{\"payment_link_id\":\"" + linkId + "\",\"amount\":35,\"method\":\"rail1_qr\"}"),
        409,
        "link_inactive");
    expect(
        merchant.patch("/v1/payment_links/" + linkId, "{\"status\":\"active\"}"),
        400,
        "invalid_state");
    assertEquals(0, merchant.get("/v1/static_qrs").json().get("data").size());
    assertEquals(1, merchant.get("/v1/static_qrs?archived=true").json().get("data").size());

    Merchant.Reply otherShop =
        operator.post("/admin/v1/merchants", "{\"name\":\"Other\",\"email\":\"o@example.com\"}");
    Merchant other =
        new Merchant(system.gatewayUrl(), otherShop.json().at("/api_keys/0/secret").asText());
    assertEquals(404, other.get("/v1/static_qrs/" + qrId).status());
    assertEquals(404, other.get("/v1/payment_links/" + linkId).status());
    expect(
        other.post(
            "/v1/payments",
            "{\"payment_link_id\":\"" + linkId + "\",\"amount\":1,\"method\":\"card\"}"),
        404,
        "not_found");
  }

  private static String link(String body) {
    Merchant.Reply reply = merchant.post("/v1/payment_links", body);
    assertEquals(201, reply.status(), reply.raw().body());
    return reply.json().get("id").asText();
  }

  private static Merchant.Reply pay(String body) {
    return merchant.post("/v1/payments", body);
  }

  private static void expect(Merchant.Reply reply, int status, String code) {
    assertEquals(status, reply.status(), reply.raw().body());
    assertEquals(code, reply.code(), reply.raw().body());
    assertTrue(reply.json().at("/error/message").isTextual());
  }
}
