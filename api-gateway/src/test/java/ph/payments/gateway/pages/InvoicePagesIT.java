package ph.payments.gateway.pages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.net.CookieManager;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Operator;
import ph.payments.gateway.support.Sql;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * The invoice page ({@code /i/{token}}) against a stand-in for payments-service's public invoice
 * read (the contract's JSON, plan of issue 17; the real read and the invoice payment rules are
 * payments-service's, tested there and end to end by {@code InvoiceBrowserE2EIT}): what the page
 * renders, how it escapes, which form it offers in which state, which refusals it shows as which
 * SPEC code and status, and what command the form writes (merchant and environment from the read,
 * never the form; one command per form however often it is sent). No owner answers the commands
 * here: a form's answer is the late one, unless the test scripts the reply ({@link
 * ScriptedPageCommands}).
 */
@MicronautTest
class InvoicePagesIT extends GatewayTest {

  private static HttpServer owner;
  private static final Map<String, String> invoices = new ConcurrentHashMap<>();
  private static final AtomicInteger reads = new AtomicInteger();

  /** 1 Dec 2026, 0:30 in Manila: still 30 Nov in UTC. */
  private static final long DEPOSIT_DUE = Instant.parse("2026-11-30T16:30:00Z").getEpochSecond();

  private static final long BALANCE_DUE = Instant.parse("2026-12-31T15:59:59Z").getEpochSecond();

  @Inject Transactions transactions;
  @Inject ScriptedPageCommands scripted;

  @Override
  protected Map<String, String> extraProperties() {
    try {
      owner = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    owner.createContext("/internal/public/invoices/", InvoicePagesIT::answer);
    owner.start();
    Map<String, String> properties = new HashMap<>();
    properties.put(
        "gateway.services.payments-url", "http://127.0.0.1:" + owner.getAddress().getPort());
    properties.put("gateway.commands.reply-timeout", "300ms");
    properties.put("gateway.edge.page-forms-per-minute", "10000");
    properties.put("spec.name", "InvoicePagesIT");
    return properties;
  }

  private static void answer(com.sun.net.httpserver.HttpExchange exchange) throws IOException {
    reads.incrementAndGet();
    String path = exchange.getRequestURI().getPath();
    String body = invoices.get(path.substring(path.lastIndexOf('/') + 1));
    int status = body == null ? 404 : 200;
    if (body == null) {
      body = "{\"error\":{\"code\":\"not_found\",\"message\":\"No such invoice.\"}}";
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @AfterAll
  void stopOwner() {
    owner.stop(0);
  }

  @Test
  void aTwoStageInvoiceShowsEverythingEscapedAndAsksForTheDepositNow() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Lutong Bahay <Catering>");
    ObjectNode invoice = twoStage(merchant.id(), "test");
    String token = put(invoice);

    Browser browser = new Browser();
    HttpResponse<String> page = browser.get("/i/" + token);
    String html = page.body();
    assertEquals(200, page.statusCode(), html);
    assertEquals("Lutong Bahay &lt;Catering&gt;", text(html, "merchant"));
    assertEquals("INV-2026-0007", text(html, "invoice-number"));
    assertEquals("sent", attribute(html, "invoice-status", "data-status"));
    assertEquals("Deposit due", text(html, "invoice-status"));
    assertEquals("Juan &lt;b&gt;dela Cruz&lt;/b&gt;", text(html, "customer-name"));
    assertEquals(2, count(html, "class=\"line-item\""));
    assertTrue(html.contains("Lechon &lt;script&gt;alert(1)&lt;/script&gt;"), html);
    assertFalse(html.contains("<script>"), "no merchant text is markup");
    assertTrue(html.contains(">2</span> ×"), "the quantity");
    assertTrue(html.contains(">1.5</span> ×"), "a fractional quantity as people write it");
    assertTrue(html.contains("₱4,500.00"), "a unit price");
    assertEquals("₱10,000.00", text(html, "subtotal"));
    assertEquals("−₱500.00", text(html, "discount"));
    assertEquals("₱1,140.00", text(html, "tax"));
    assertEquals("₱10,640.00", text(html, "total"));
    assertEquals("₱0.00", text(html, "amount-paid"));
    assertEquals("₱10,640.00", text(html, "amount-remaining"));
    assertEquals("31 Dec 2026", text(html, "due-date"));
    assertEquals("Due by 1 Dec 2026", text(html, "deposit-due"), "Manila's day, not UTC's");
    assertEquals("Due by 31 Dec 2026", text(html, "balance-due"));
    assertTrue(html.contains("Deposit (<span>50%</span>)"), html);
    assertEquals("Salamat po! &amp; see you", text(html, "notes"));
    assertEquals("50% down, balance on delivery.", text(html, "terms"));
    assertTrue(html.contains("class=\"test-banner\""), "test mode");

    // The form: the deposit as text, the methods, the form's token.
    assertTrue(html.contains("id=\"invoice-form\" method=\"post\""), html);
    assertEquals("₱5,320.00", text(html, "amount-due"));
    assertTrue(html.contains(">Deposit due now<"), html);
    assertFalse(html.contains("name=\"amount\""), "no amount field when partial is not allowed");
    assertTrue(html.contains("value=\"card\""));
    assertTrue(html.contains("value=\"rail1_qr\""));
    assertTrue(html.contains("id=\"pay\""));
    assertTrue(csrf(html) != null, "a csrf field");
    assertFalse(html.contains(merchant.id()), "the merchant id is never rendered");
    assertFalse(html.contains(invoice.get("id").asText()), "nor the invoice id");
    String cookie = page.headers().firstValue("Set-Cookie").orElse("");
    assertTrue(cookie.startsWith("csrf=") && cookie.contains("SameSite=Strict"), cookie);
    assertEquals(Pages.CSP, page.headers().firstValue("Content-Security-Policy").orElse(""));
    assertEquals("no-store", page.headers().firstValue("Cache-Control").orElse(""));
  }

  @Test
  void aPartiallyPaidInvoiceListsItsPaymentsAndAsksForTheBalance() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Balance Shop");
    ObjectNode invoice = twoStage(merchant.id(), "live");
    invoice.put("status", "partial");
    invoice.put("amount_paid", new BigDecimal("5320.00"));
    invoice.put("amount_remaining", new BigDecimal("5320.00"));
    invoice.put("amount_due_now", new BigDecimal("5320.00"));
    invoice.put("stage", "balance");
    ArrayNode payments = invoice.putArray("payments");
    payments
        .addObject()
        .put("amount", new BigDecimal("5320.00"))
        .put("method", "card")
        .put("succeeded_at", DEPOSIT_DUE - 3600)
        .put("receipt_url", "http://localhost:8080/receipts/ct_" + "R".repeat(32));
    String token = put(invoice);

    HttpResponse<String> page = new Browser().get("/i/" + token);
    String html = page.body();
    assertEquals(200, page.statusCode(), html);
    assertFalse(html.contains("test-banner"), "live mode");
    assertEquals("partial", attribute(html, "invoice-status", "data-status"));
    assertEquals("₱5,320.00", text(html, "amount-paid"));
    assertEquals("Paid", text(html, "deposit-due"));
    assertEquals(1, count(html, "class=\"invoice-payment\""));
    assertTrue(html.contains("30 Nov 2026, 11:30 PM"), "the payment's time in Manila: " + html);
    assertTrue(html.contains("href=\"/receipts/ct_" + "R".repeat(32) + "\""), "its receipt");
    assertTrue(html.contains(">Balance due now<"), html);
    assertEquals("₱5,320.00", text(html, "amount-due"));
  }

  @Test
  void aPaidInvoiceAndACancelledOneOfferNoForm() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Closed Shop");
    ObjectNode paid = twoStage(merchant.id(), "test");
    paid.put("status", "paid");
    paid.put("amount_paid", new BigDecimal("10640.00"));
    paid.put("amount_remaining", new BigDecimal("0.00"));
    paid.put("amount_due_now", new BigDecimal("0.00"));
    paid.putNull("stage");
    paid.put("paid_at", BALANCE_DUE - 86400);
    String paidToken = put(paid);
    ObjectNode cancelled = twoStage(merchant.id(), "test").put("status", "void");
    cancelled.put("void_at", DEPOSIT_DUE - 86400);
    String voidToken = put(cancelled);
    ObjectNode lapsed = twoStage(merchant.id(), "test");
    lapsed.put("forfeited_at", DEPOSIT_DUE + 60);
    String lapsedToken = put(lapsed);

    Browser browser = new Browser();
    String csrf = browser.csrfFor("/i/" + put(twoStage(merchant.id(), "test")));
    HttpResponse<String> paidPage = browser.get("/i/" + paidToken);
    assertEquals(200, paidPage.statusCode());
    assertEquals("Paid", text(paidPage.body(), "invoice-status"));
    assertTrue(paidPage.body().contains("This invoice is paid in full"), paidPage.body());
    assertFalse(paidPage.body().contains("invoice-form"));
    assertFalse(paidPage.headers().firstValue("Set-Cookie").isPresent(), "no form, no cookie");

    HttpResponse<String> voidPage = browser.get("/i/" + voidToken);
    assertEquals("void", attribute(voidPage.body(), "invoice-status", "data-status"));
    assertTrue(voidPage.body().contains("This invoice was cancelled"), voidPage.body());
    assertFalse(voidPage.body().contains("invoice-form"));

    HttpResponse<String> lapsedPage = browser.get("/i/" + lapsedToken);
    assertTrue(lapsedPage.body().contains("This invoice has lapsed"), lapsedPage.body());
    assertFalse(lapsedPage.body().contains("invoice-form"));

    // A form kept open from before is refused the same way, without a command.
    Map<String, String> expected =
        Map.of(
            paidToken,
            "409 invoice_paid",
            voidToken,
            "409 invoice_void",
            lapsedToken,
            "409 invoice_void");
    for (Map.Entry<String, String> e : expected.entrySet()) {
      HttpResponse<String> posted =
          browser.post("/i/" + e.getKey(), Map.of("csrf", csrf, "method", "card"));
      assertEquals(e.getValue(), posted.statusCode() + " " + code(posted.body()), posted.body());
      assertFalse(posted.body().contains("invoice-form"));
    }
    assertEquals(0, commands(merchant.id()));
  }

  @Test
  void malformedTokensAreNotFoundWithoutAskingAndUnknownOnesAfterAsking() throws Exception {
    Browser browser = new Browser();
    int before = reads.get();
    for (String token :
        List.of(
            "it_short",
            "inv_01abcdefghijklmnopqrstuvwxyz",
            "it_" + "A".repeat(33),
            "xt_" + "A".repeat(32),
            "it_" + "A".repeat(31) + "%21")) {
      HttpResponse<String> page = browser.get("/i/" + token);
      assertEquals(404, page.statusCode(), token);
      assertEquals("not_found", code(page.body()));
    }
    assertEquals(before, reads.get(), "a malformed token never reaches payments-service");
    HttpResponse<String> unknown = browser.get("/i/it_" + "U".repeat(32));
    assertEquals("404 not_found", unknown.statusCode() + " " + code(unknown.body()));
    assertEquals(before + 1, reads.get());
  }

  @Test
  void aFormWithoutItsTokenIsRefusedAndSendsNothing() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Csrf Shop");
    String token = put(twoStage(merchant.id(), "test"));
    Browser browser = new Browser();
    String csrf = browser.csrfFor("/i/" + token);

    HttpResponse<String> none = browser.post("/i/" + token, Map.of("method", "card"));
    assertEquals("403 invalid_token", none.statusCode() + " " + code(none.body()));
    Browser other = new Browser();
    other.csrfFor("/i/" + token);
    HttpResponse<String> foreign =
        other.post("/i/" + token, Map.of("csrf", csrf, "method", "card"));
    assertEquals("403 invalid_token", foreign.statusCode() + " " + code(foreign.body()));
    HttpResponse<String> forged =
        new Browser().post("/i/" + token, Map.of("csrf", csrf, "method", "card"));
    assertEquals("403 invalid_token", forged.statusCode() + " " + code(forged.body()));
    assertEquals(0, commands(merchant.id()));
  }

  @Test
  void aPartialPaymentFormIsCheckedThenSentOnceForTheMerchantAndEnvironmentOfTheRead()
      throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Partial Shop");
    ObjectNode invoice = twoStage(merchant.id(), "live");
    invoice.put("allow_partial_payment", true);
    invoice.putNull("deposit_rate");
    invoice.putNull("deposit_due_at");
    invoice.putNull("balance_due_at");
    invoice.putNull("stage");
    invoice.put("amount_due_now", new BigDecimal("10640.00"));
    String token = put(invoice);
    Browser browser = new Browser();
    HttpResponse<String> page = browser.get("/i/" + token);
    String html = page.body();
    assertTrue(
        Pattern.compile(
                "name=\"amount\" type=\"number\"[^>]*max=\"10640.00\"[^>]*value=\"10640.00\"")
            .matcher(html)
            .find(),
        "the amount field, prefilled with the remaining, at most the remaining: " + html);
    assertFalse(html.contains("id=\"amount-due\""));
    assertFalse(html.contains("id=\"deposit-due\""), "no deposit on a one-stage invoice");
    String csrf = csrf(html);

    Map<String, String> refusals = new LinkedHashMap<>();
    refusals.put("", "400 amount_required");
    refusals.put("abc", "400 invalid_request");
    refusals.put("0", "400 invalid_request");
    refusals.put("10640.01", "400 invalid_request");
    for (Map.Entry<String, String> e : refusals.entrySet()) {
      HttpResponse<String> refused =
          browser.post("/i/" + token, Map.of("csrf", csrf, "amount", e.getKey(), "method", "card"));
      assertEquals(
          e.getValue(), refused.statusCode() + " " + code(refused.body()), "amount " + e.getKey());
      assertTrue(refused.body().contains("id=\"invoice-form\""), "the form again");
      assertTrue(
          refused.body().contains("value=\"" + e.getKey() + "\""), "what was typed, even nothing");
    }
    HttpResponse<String> noMethod =
        browser.post("/i/" + token, Map.of("csrf", csrf, "amount", "2,000"));
    assertEquals("400 method_required", noMethod.statusCode() + " " + code(noMethod.body()));
    assertTrue(noMethod.body().contains("value=\"2,000\""), "the typed amount stays");
    HttpResponse<String> badMethod =
        browser.post("/i/" + token, Map.of("csrf", csrf, "amount", "2000", "method", "cash"));
    assertEquals("400 invalid_request", badMethod.statusCode() + " " + code(badMethod.body()));
    assertEquals(0, commands(merchant.id()));

    Map<String, String> form = new LinkedHashMap<>();
    form.put("csrf", csrf);
    form.put("amount", "2,000.50");
    form.put("method", "rail1_qr");
    form.put("merchant_id", "mer_someone_else");
    form.put("environment", "test");
    form.put("invoice_id", "inv_someone_elses");
    HttpResponse<String> sent = browser.post("/i/" + token, form);
    assertEquals(503, sent.statusCode(), "no owner answers here: the late answer");
    assertEquals(1, commands(merchant.id()));
    Sql sql = new Sql(transactions);
    assertEquals(
        "live|payments.create",
        sql.text(
            "SELECT environment || '|' || command_type FROM commands WHERE merchant_id = ?",
            merchant.id()));
    JsonNode body =
        Json.tree(
            sql.text("SELECT request::text FROM commands WHERE merchant_id = ?", merchant.id()));
    assertEquals(invoice.get("id").asText(), body.get("invoice_id").asText());
    assertEquals("2000.50", body.get("amount").decimalValue().toPlainString());
    assertEquals("rail1_qr", body.get("method").asText());
    assertEquals("Partial Shop", body.get("merchant_name").asText());
    assertFalse(body.has("merchant_id"));

    // The same form again (a double click, a resend): still one command.
    browser.post("/i/" + token, form);
    assertEquals(1, commands(merchant.id()));
    assertEquals(0, commands("mer_someone_else"));
  }

  @Test
  void aFixedAmountFormSendsTheAmountDueNowUnlessItMovedSinceThePageWasShown() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Deposit Shop");
    ObjectNode invoice = twoStage(merchant.id(), "test");
    invoice.put("deposit_rate", new BigDecimal("0.4"));
    invoice.put("amount_due_now", new BigDecimal("4256.00"));
    String token = put(invoice);
    Browser browser = new Browser();
    HttpResponse<String> page = browser.get("/i/" + token);
    assertEquals("₱4,256.00", text(page.body(), "amount-due"));
    assertTrue(page.body().contains("name=\"amount_due\" value=\"4256.00\""), page.body());
    String csrf = csrf(page.body());

    // The deposit was paid from another tab: the balance is due now, another amount.
    invoice.put("status", "partial");
    invoice.put("amount_paid", new BigDecimal("4256.00"));
    invoice.put("amount_remaining", new BigDecimal("6384.00"));
    invoice.put("amount_due_now", new BigDecimal("6384.00"));
    invoice.put("stage", "balance");
    invoices.put(token, Json.toText(invoice));
    HttpResponse<String> moved =
        browser.post(
            "/i/" + token, Map.of("csrf", csrf, "method", "card", "amount_due", "4256.00"));
    assertEquals("409 conflict", moved.statusCode() + " " + code(moved.body()));
    assertEquals("₱6,384.00", text(moved.body(), "amount-due"), "the new amount is shown");
    assertEquals(0, commands(merchant.id()));

    String fresh = csrf(moved.body());
    HttpResponse<String> sent =
        browser.post(
            "/i/" + token,
            Map.of("csrf", fresh, "method", "card", "amount_due", "6384.00", "amount", "1"));
    assertEquals(503, sent.statusCode(), sent.body());
    JsonNode body =
        Json.tree(
            new Sql(transactions)
                .text("SELECT request::text FROM commands WHERE merchant_id = ?", merchant.id()));
    assertEquals(
        "6384.00",
        body.get("amount").decimalValue().toPlainString(),
        "the amount due now, whatever the form says");
  }

  @Test
  void theOwnersAnswersBecomeARedirectOrTheInvoicePageWithTheirCode() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Answered Shop");
    ObjectNode invoice = twoStage(merchant.id(), "test");
    String token = put(invoice);
    Browser browser = new Browser();

    scripted.sent().clear();
    ObjectNode created = Json.mapper().createObjectNode();
    created.put("id", "pay_01scripted");
    created.put("checkout_url", "http://localhost:8080/checkout/ct_" + "C".repeat(32));
    scripted.answerNext(201, created);
    Map<String, String> form = new HashMap<>();
    form.put("csrf", browser.csrfFor("/i/" + token));
    form.put("method", "card");
    form.put("merchant_id", "mer_forged");
    HttpResponse<String> paid = browser.post("/i/" + token, form);
    assertEquals(303, paid.statusCode(), paid.body());
    assertEquals(
        "/checkout/ct_" + "C".repeat(32), paid.headers().firstValue("Location").orElse(""));
    ScriptedPageCommands.Sent command = scripted.sent().get(0);
    assertEquals(merchant.id(), command.merchantId());
    assertEquals("test", command.environment());
    assertEquals("payments.create", command.type());
    assertEquals(invoice.get("id").asText(), command.body().get("invoice_id").asText());
    assertEquals("5320.00", command.body().get("amount").decimalValue().toPlainString());

    Map<String, Integer> answers = new LinkedHashMap<>();
    answers.put("invoice_paid", 409);
    answers.put("invoice_void", 409);
    answers.put("invoice_not_sent", 409);
    answers.put("partial_not_allowed", 400);
    answers.put("invalid_request", 400);
    for (Map.Entry<String, Integer> a : answers.entrySet()) {
      scripted.answerNext(
          a.getValue(),
          Json.tree(
              "{\"error\":{\"code\":\""
                  + a.getKey()
                  + "\",\"message\":\"Refused <b>by</b> the owner.\"}}"));
      HttpResponse<String> refused =
          browser.post(
              "/i/" + token, Map.of("csrf", browser.csrfFor("/i/" + token), "method", "card"));
      assertEquals(
          a.getValue() + " " + a.getKey(), refused.statusCode() + " " + code(refused.body()));
      assertEquals("INV-2026-0007", text(refused.body(), "invoice-number"), "the invoice again");
      assertFalse(refused.body().contains("<b>by</b>"), "escaped");
    }
    assertEquals(1 + answers.size(), scripted.sent().size());
    assertNull(scripted.answerless(), "every scripted answer was used");
  }

  // ------------------------------------------------------------------ the contract's JSON

  /** A sent two-stage invoice (deposit 50 %), nothing paid yet, as the public read answers it. */
  private static ObjectNode twoStage(String merchantId, String environment) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("id", "inv_01" + Long.toHexString(new SecureRandom().nextLong()));
    json.put("merchant_id", merchantId);
    json.put("environment", environment);
    json.put("kind", "invoice");
    json.put("number", "INV-2026-0007");
    json.put("status", "sent");
    json.put("currency", "PHP");
    json.putNull("description");
    json.put("customer_name", "Juan <b>dela Cruz</b>");
    ArrayNode items = json.putArray("line_items");
    items
        .addObject()
        .put("description", "Lechon <script>alert(1)</script>")
        .put("quantity", 2)
        .put("unit_amount", new BigDecimal("1625.00"))
        .put("amount", new BigDecimal("3250.00"));
    items
        .addObject()
        .put("description", "Pancit bilao (good for 20)")
        .put("quantity", new BigDecimal("1.5"))
        .put("unit_amount", new BigDecimal("4500.00"))
        .put("amount", new BigDecimal("6750.00"));
    json.put("subtotal", new BigDecimal("10000.00"));
    json.put("discount_amount", new BigDecimal("500.00"));
    json.put("tax_amount", new BigDecimal("1140.00"));
    json.put("amount", new BigDecimal("10640.00"));
    json.put("amount_paid", new BigDecimal("0.00"));
    json.put("amount_remaining", new BigDecimal("10640.00"));
    json.put("amount_due_now", new BigDecimal("5320.00"));
    json.put("stage", "deposit");
    json.put("allow_partial_payment", false);
    json.put("deposit_rate", new BigDecimal("0.5"));
    json.put("due_date", "2026-12-31");
    json.put("deposit_due_at", DEPOSIT_DUE);
    json.put("balance_due_at", BALANCE_DUE);
    json.put("issued_at", DEPOSIT_DUE - 7 * 86400);
    json.putNull("paid_at");
    json.putNull("void_at");
    json.putNull("forfeited_at");
    json.put("notes", "Salamat po! & see you");
    json.put("terms", "50% down, balance on delivery.");
    json.putArray("payments");
    json.putArray("methods").add("card").add("ewallet1").add("rail1_qr");
    return json;
  }

  /** Serves {@code invoice} under a fresh token, and returns the token. */
  private static String put(ObjectNode invoice) {
    byte[] random = new byte[24];
    new SecureRandom().nextBytes(random);
    String token = "it_" + Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    invoices.put(token, Json.toText(invoice));
    return token;
  }

  private long commands(String merchantId) {
    return new Sql(transactions)
        .number("SELECT count(*) FROM commands WHERE merchant_id = ?", merchantId);
  }

  private static int count(String body, String needle) {
    int n = 0;
    for (int at = body.indexOf(needle); at >= 0; at = body.indexOf(needle, at + 1)) {
      n++;
    }
    return n;
  }

  private static String text(String body, String id) {
    Matcher m =
        Pattern.compile(
                "<(\\w+)[^>]*id=\"" + Pattern.quote(id) + "\"[^>]*>(.*?)</\\1>", Pattern.DOTALL)
            .matcher(body);
    return m.find() ? m.group(2).replaceAll("<[^>]+>", "").replaceAll("\\s+", " ").trim() : null;
  }

  private static String attribute(String body, String id, String attribute) {
    Matcher m =
        Pattern.compile("id=\"" + Pattern.quote(id) + "\"[^>]*" + attribute + "=\"([^\"]*)\"")
            .matcher(body);
    return m.find() ? m.group(1) : null;
  }

  private static String code(String body) {
    Matcher m = Pattern.compile("id=\"error\"[^>]*data-code=\"([^\"]+)\"").matcher(body);
    return m.find() ? m.group(1) : "(none)";
  }

  private static String csrf(String body) {
    Matcher m = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(body);
    return m.find() ? m.group(1) : null;
  }

  /** A browser without JavaScript: keeps cookies, does not follow redirects. */
  private final class Browser {
    private final HttpClient http =
        HttpClient.newBuilder()
            .cookieHandler(new CookieManager())
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    HttpResponse<String> get(String path) throws Exception {
      return http.send(
          HttpRequest.newBuilder(URI.create(server.getURL() + path)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
    }

    String csrfFor(String path) throws Exception {
      return csrf(get(path).body());
    }

    HttpResponse<String> post(String path, Map<String, String> fields) throws Exception {
      List<String> pairs = new ArrayList<>();
      fields.forEach(
          (k, v) ->
              pairs.add(
                  URLEncoder.encode(k, StandardCharsets.UTF_8)
                      + "="
                      + URLEncoder.encode(v, StandardCharsets.UTF_8)));
      return http.send(
          HttpRequest.newBuilder(URI.create(server.getURL() + path))
              .header("Content-Type", "application/x-www-form-urlencoded")
              .POST(HttpRequest.BodyPublishers.ofString(String.join("&", pairs)))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    }
  }
}
