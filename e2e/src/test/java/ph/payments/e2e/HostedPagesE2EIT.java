package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The hosted pages on the real system (docs/hosted-pages.md), over HTTP as a browser without
 * JavaScript uses them: cookies kept, redirects looked at rather than followed. What a page does on
 * the server is pinned here (sandbox buttons only in test mode, CSRF, escaping, the card scenarios
 * and the 3-D Secure step, receipts); the real-browser scenarios live beside them in the browser
 * suite.
 */
@ExtendWith(SharedSystem.class)
class HostedPagesE2EIT {

  private static SystemUnderTest system;
  private static Merchant shop;
  private static Merchant live;

  @BeforeAll
  static void start(SystemUnderTest shared) throws Exception {
    // The shared system takes live payments (LIVE_CONNECTORS) and many forms from 127.0.0.1.
    system = shared;
    Merchant operator = new Merchant(system.gatewayUrl(), system.adminToken);
    Merchant.Reply created =
        operator.post(
            "/admin/v1/merchants", "{\"name\":\"Kapehan ni Juan\",\"email\":\"juan@example.com\"}");
    assertEquals(201, created.status(), created.raw().body());
    shop = new Merchant(system.gatewayUrl(), created.json().at("/api_keys/0/secret").asText());
    Merchant.Reply activated =
        operator.post("/admin/v1/merchants/" + created.json().get("id").asText() + "/activate", "");
    assertEquals(200, activated.status(), activated.raw().body());
    for (JsonNode key : activated.json().get("api_keys")) {
      if ("live".equals(key.get("environment").asText()) && key.hasNonNull("secret")) {
        live = new Merchant(system.gatewayUrl(), key.get("secret").asText());
      }
    }
    assertNotNull(live);
  }

  @Test
  void aQrCheckoutShowsTheMerchantTheAmountTheQrAndTheSandboxAndBecomesTheReceiptWhenPaid() {
    JsonNode payment = pay("test", "{\"amount\":1500,\"method\":\"rail1_qr\"}");
    Browser browser = new Browser();
    Page page = browser.get(path(payment.get("checkout_url").asText()));
    assertEquals(200, page.status());
    assertEquals("no-store", page.header("Cache-Control"));
    assertTrue(page.header("Content-Security-Policy").startsWith("default-src 'self'"));
    assertEquals("nosniff", page.header("X-Content-Type-Options"));
    assertEquals("same-origin", page.header("Referrer-Policy"));
    assertTrue(page.body().contains("<html lang=\"en\">"));
    assertTrue(page.body().contains("class=\"test-banner\""));
    assertEquals("Kapehan ni Juan", page.text("merchant"));
    assertEquals("₱1,500.00", page.text("amount"));
    assertTrue(page.body().contains("data-status=\"pending\""));
    assertTrue(page.body().contains("Scan with any QR Ph bank or e-wallet app"));
    assertTrue(page.body().contains("id=\"qr\""));
    assertTrue(page.body().contains("<script src=\"/assets/checkout.js\""));
    assertFalse(page.body().contains("<script>"), "no inline script");
    assertFalse(page.body().contains("style="), "no inline style");
    assertFalse(page.body().contains(payment.get("id").asText()), "no payment id on the page");
    assertFalse(page.body().contains("fee_amount"), "no fee on the page");
    assertTrue(page.body().contains("value=\"pay\""));
    assertTrue(page.body().contains("value=\"decline\""));

    String token = path(payment.get("checkout_url").asText()).substring("/checkout/".length());
    assertEquals("{\"status\":\"pending\"}", browser.get("/checkout/" + token + "/status").body());

    Page paid = browser.post(page, "sandbox", Map.of("action", "pay"));
    assertEquals(303, paid.status());
    assertEquals("/checkout/" + token, paid.header("Location"));
    Page again = browser.get("/checkout/" + token);
    assertEquals(303, again.status(), "a paid checkout is its receipt");
    assertEquals("/receipts/" + token, again.header("Location"));
    assertEquals(
        "/receipts/" + token,
        path(
            shop.get("/v1/payments/" + payment.get("id").asText())
                .json()
                .get("receipt_url")
                .asText()));

    // The same form sent twice (a double click) changes nothing more.
    assertEquals(303, browser.post(page, "sandbox", Map.of("action", "pay")).status());
    assertEquals(
        "succeeded",
        shop.get("/v1/payments/" + payment.get("id").asText()).json().get("status").asText());
  }

  @Test
  void aFormWithoutOrWithAWrongCsrfTokenIsRefused() {
    JsonNode payment = pay("test", "{\"amount\":20,\"method\":\"rail1_qr\"}");
    String checkout = path(payment.get("checkout_url").asText());
    Browser browser = new Browser();
    Page page = browser.get(checkout);
    String csrf = page.csrf();

    Page none = browser.postForm(checkout + "/sandbox", Map.of("action", "pay"));
    assertEquals(403, none.status());
    assertTrue(none.body().contains("data-code=\"invalid_token\""), none.body());

    String forged = "A".repeat(43) + csrf.substring(csrf.indexOf('.'));
    Page wrong = browser.postForm(checkout + "/sandbox", Map.of("action", "pay", "csrf", forged));
    assertEquals(403, wrong.status());

    // Another browser's valid token does not fit this browser's cookie.
    Browser other = new Browser();
    other.get(checkout);
    Page crossed = other.postForm(checkout + "/sandbox", Map.of("action", "pay", "csrf", csrf));
    assertEquals(403, crossed.status());
    assertEquals(
        "pending",
        shop.get("/v1/payments/" + payment.get("id").asText()).json().get("status").asText());
  }

  @Test
  void aLivePaymentPageHasNoSandboxAndAForgedSandboxPostIsRefused() {
    JsonNode payment = pay("live", "{\"amount\":250,\"method\":\"rail1_qr\"}");
    String checkout = path(payment.get("checkout_url").asText());
    Browser browser = new Browser();
    Page page = browser.get(checkout);
    assertEquals(200, page.status());
    assertFalse(page.body().contains("test-banner"));
    assertFalse(page.body().contains("id=\"sandbox\""));
    assertFalse(page.body().contains("name=\"action\""));

    JsonNode card = pay("live", "{\"amount\":250,\"method\":\"card\"}");
    Page cardPage = browser.get(path(card.get("checkout_url").asText()));
    assertFalse(cardPage.body().contains("id=\"card-form\""), "no sandbox card form in live mode");

    // A CSRF token of this browser is easy to get (any test checkout page has one); the sandbox
    // still refuses a live payment.
    String csrf =
        browser
            .get(
                path(
                    pay("test", "{\"amount\":1,\"method\":\"card\"}").get("checkout_url").asText()))
            .csrf();
    assertNotNull(csrf);
    Page forged = browser.postForm(checkout + "/sandbox", Map.of("action", "pay", "csrf", csrf));
    assertEquals(404, forged.status());
    Page forgedCard =
        browser.postForm(
            path(card.get("checkout_url").asText()) + "/card",
            Map.of(
                "csrf", csrf,
                "card_number", "4242424242424242",
                "expiry", "12/39",
                "cvc", "123"));
    assertEquals(404, forgedCard.status());
    assertEquals(
        "pending",
        live.get("/v1/payments/" + payment.get("id").asText()).json().get("status").asText());
    assertEquals(
        "pending",
        live.get("/v1/payments/" + card.get("id").asText()).json().get("status").asText());
  }

  @Test
  void aDescriptionIsShownAsTextNeverAsMarkup() {
    JsonNode payment =
        pay(
            "test",
            "{\"amount\":1,\"method\":\"ewallet1\",\"description\":\"<script>alert(1)</script>\"}");
    Page page = new Browser().get(path(payment.get("checkout_url").asText()));
    assertEquals("&lt;script&gt;alert(1)&lt;/script&gt;", page.text("description"));
    assertFalse(page.body().contains("<script>alert(1)"));
    assertTrue(page.body().contains("id=\"open-app\""));
    assertTrue(page.body().contains("value=\"approve\""));
  }

  @Test
  void cardsAreDeclinedWithTheirReasonOrChallengedWithThreeDSecure() {
    Browser browser = new Browser();
    JsonNode declined = pay("test", "{\"amount\":75.5,\"method\":\"card\"}");
    String checkout = path(declined.get("checkout_url").asText());
    Page form = browser.get(checkout);
    assertTrue(form.body().contains("id=\"card-form\""));
    assertTrue(form.body().contains("4000 0000 0000 0002"), "test cards are documented");

    Page bad = browser.post(form, "card-form", card("1234 5678 9012 3456"));
    assertEquals(400, bad.status(), "not a card number");
    assertFalse(bad.body().contains("1234 5678"), "the number is never echoed");

    Page sent = browser.post(browser.get(checkout), "card-form", card("4000 0000 0000 9995"));
    assertEquals(303, sent.status());
    Page failed = browser.get(checkout);
    assertTrue(failed.body().contains("data-status=\"failed\""));
    assertTrue(
        failed
            .text("state-message")
            .contains("The card ending 9995 was declined: insufficient funds."),
        failed.body());
    assertFalse(failed.body().contains("id=\"card-form\""), "a failed payment shows no form");

    JsonNode challenged = pay("test", "{\"amount\":3220,\"method\":\"card\"}");
    String secure = path(challenged.get("checkout_url").asText());
    assertEquals(
        303, browser.post(browser.get(secure), "card-form", card("4000000000003220")).status());
    Page challenge = browser.get(secure);
    assertTrue(challenge.body().contains("id=\"challenge\""), challenge.body());
    assertTrue(challenge.body().contains("value=\"3ds_complete\""));
    assertFalse(challenge.body().contains("id=\"card-form\""));
    Page completed = browser.post(challenge, "challenge", Map.of("action", "3ds_complete"));
    assertEquals(303, completed.status(), completed.body());
    assertEquals(303, browser.get(secure).status(), "paid: on to the receipt");
    JsonNode after = shop.get("/v1/payments/" + challenged.get("id").asText()).json();
    assertEquals("succeeded", after.get("status").asText());
  }

  @Test
  void theReceiptShowsTheRefundLinesAndUnknownTokensAreNotFoundPages() {
    JsonNode payment =
        pay(
            "test",
            "{\"amount\":1500,\"method\":\"card\",\"description\":\"2 × Kape Barako\","
                + "\"return_url\":\"https://shop.example.com/thanks\"}");
    String id = payment.get("id").asText();
    assertEquals(200, shop.post("/v1/test_helpers/payments/" + id + "/succeed", "").status());
    assertEquals(
        201, shop.post("/v1/refunds", "{\"payment\":\"" + id + "\",\"amount\":500}").status());
    String receiptUrl = shop.get("/v1/payments/" + id).json().get("receipt_url").asText();
    Page receipt = new Browser().get(path(receiptUrl));
    assertEquals(200, receipt.status());
    assertTrue(receipt.body().contains("id=\"receipt\""));
    assertEquals("₱1,500.00", receipt.text("receipt-amount"));
    assertEquals("Card", receipt.text("method"));
    assertEquals(id, receipt.text("reference"));
    assertTrue(
        receipt.text("date").matches("\\d{1,2} [A-Z][a-z]{2} \\d{4}, \\d{1,2}:\\d{2} [AP]M"));
    assertEquals(1, count(receipt.body(), "class=\"refund-line\""));
    assertTrue(receipt.body().contains("−₱500.00"));
    assertTrue(receipt.body().contains("href=\"https://shop.example.com/thanks\""));
    assertFalse(receipt.body().contains("fee_amount"));

    Browser browser = new Browser();
    for (String unknown :
        new String[] {
          "/checkout/ct_" + "x".repeat(32),
          "/receipts/ct_" + "x".repeat(32),
          "/receipts/history/rh_" + "x".repeat(32),
          "/checkout/" + id,
          "/receipts/" + id
        }) {
      Page missing = browser.get(unknown);
      assertEquals(404, missing.status(), unknown);
      assertTrue(missing.body().contains("data-code=\"not_found\""), unknown);
      assertTrue(missing.header("Content-Type").startsWith("text/html"), unknown);
    }
  }

  @Test
  void aCustomersReceiptHistoryListsTheirReceipts() {
    Merchant.Reply customer =
        shop.post("/v1/customers", "{\"name\":\"Ana Reyes\",\"email\":\"ana@example.com\"}");
    assertEquals(201, customer.status(), customer.raw().body());
    String customerId = customer.json().get("id").asText();
    for (int i = 1; i <= 2; i++) {
      JsonNode payment =
          pay(
              "test",
              "{\"amount\":"
                  + (100 * i)
                  + ",\"method\":\"rail1_qr\",\"customer_id\":\""
                  + customerId
                  + "\"}");
      shop.post("/v1/test_helpers/payments/" + payment.get("id").asText() + "/succeed", "");
    }
    Page history = new Browser().get(path(customer.json().get("receipts_history_url").asText()));
    assertEquals(200, history.status(), history.body());
    assertEquals("Ana Reyes", history.text("customer-name"));
    assertEquals(2, count(history.body(), "class=\"receipt-row\""));
    assertFalse(history.body().contains("ana@example.com"));
  }

  @Test
  void aLinkPageTakesAnAmountAndAMethodAndLeadsToTheCheckoutThenTheReceipt() {
    Merchant.Reply link =
        shop.post(
            "/v1/payment_links",
            "{\"description\":\"Pasalubong <b>box</b>\",\"cancel_url\":\"https://shop.example/cart\","
                + "\"success_url\":\"https://shop.example/thanks\"}");
    assertEquals(201, link.status(), link.raw().body());
    String page = path(link.json().get("url").asText());
    Browser browser = new Browser();
    Page form = browser.get(page);
    assertEquals(200, form.status(), form.body());
    assertEquals("Kapehan ni Juan", form.text("merchant"));
    assertEquals("Pasalubong &lt;b&gt;box&lt;/b&gt;", form.text("description"));
    assertTrue(form.body().contains("name=\"amount\""));
    assertTrue(form.body().contains("value=\"rail1_qr\""));
    assertFalse(form.body().contains(link.json().get("id").asText()), "no link id on the page");

    Page missing = browser.post(form, "link-form", Map.of("method", "rail1_qr"));
    assertEquals(400, missing.status());
    assertTrue(missing.body().contains("data-code=\"amount_required\""));
    Page noMethod = browser.post(form, "link-form", Map.of("amount", "250"));
    assertEquals(400, noMethod.status());
    assertTrue(noMethod.body().contains("data-code=\"method_required\""));

    Page form2 = browser.get(page);
    Map<String, String> fields = Map.of("amount", "1,250.50", "method", "rail1_qr");
    Page created = browser.post(form2, "link-form", fields);
    assertEquals(303, created.status(), created.body());
    String checkout = created.header("Location");
    assertTrue(checkout.matches("/checkout/ct_[A-Za-z0-9_-]{32}"), checkout);
    assertEquals(checkout, browser.post(form2, "link-form", fields).header("Location"), "once");

    Page pay = browser.get(checkout);
    assertEquals("₱1,250.50", pay.text("amount"));
    assertTrue(pay.body().contains("id=\"cancel\" href=\"https://shop.example/cart\""), pay.body());
    assertEquals(303, browser.post(pay, "sandbox", Map.of("action", "pay")).status());
    String token = checkout.substring("/checkout/".length());
    Page receipt = browser.get("/receipts/" + token);
    assertEquals("₱1,250.50", receipt.text("receipt-amount"));
    assertTrue(
        receipt
            .body()
            .contains(
                "id=\"return\" class=\"button button-primary\" href=\"https://shop.example/thanks\""),
        receipt.body());
    JsonNode after = shop.get("/v1/payment_links/" + link.json().get("id").asText()).json();
    assertEquals(1, after.get("usage_count").asInt());
    assertEquals(
        1,
        shop.listAll("/v1/payments").stream()
            .filter(p -> link.json().get("id").asText().equals(p.path("payment_link_id").asText()))
            .count());
  }

  @Test
  void closedLinksAndArchivedStaticQrsSayWhyAndThePrintViewShowsTheQr() throws Exception {
    String soon =
        java.time.OffsetDateTime.ofInstant(
                java.time.Instant.now().plusSeconds(2), java.time.ZoneOffset.ofHours(8))
            .toString();
    Merchant.Reply expiring =
        shop.post(
            "/v1/payment_links",
            "{\"description\":\"Flash\",\"amount\":5,\"expires_at\":\"" + soon + "\"}");
    assertEquals(201, expiring.status(), expiring.raw().body());

    Merchant.Reply fixed =
        shop.post(
            "/v1/payment_links",
            "{\"description\":\"Halo-halo\",\"amount\":150,\"method\":\"card\"}");
    String fixedPage = path(fixed.json().get("url").asText());
    Page shown = new Browser().get(fixedPage);
    assertEquals("₱150.00", shown.text("amount"));
    assertFalse(shown.body().contains("name=\"amount\""));
    assertTrue(shown.body().contains("type=\"hidden\" name=\"method\" value=\"card\""));
    Browser browser = new Browser();
    Page open = browser.get(fixedPage);
    assertEquals(
        200,
        shop.patch(
                "/v1/payment_links/" + fixed.json().get("id").asText(), "{\"status\":\"inactive\"}")
            .status());
    Page inactive = new Browser().get(fixedPage);
    assertEquals(409, inactive.status());
    assertTrue(inactive.body().contains("data-code=\"link_inactive\""));
    Page lateForm = browser.post(open, "link-form", Map.of());
    assertEquals(409, lateForm.status(), "a form opened before is refused too");

    Merchant.Reply qr =
        shop.post(
            "/v1/static_qrs",
            "{\"name\":\"Counter 1\",\"location\":\"Ground floor\",\"default_method\":\"rail1_qr\"}");
    assertEquals(201, qr.status(), qr.raw().body());
    String qrPage = path(qr.json().get("url").asText());
    Page counter = new Browser().get(qrPage);
    assertTrue(
        Pattern.compile("value=\"rail1_qr\"[^>]*checked").matcher(counter.body()).find(),
        "the default method is preselected");
    Page print = new Browser().get(qrPage + "/print");
    assertEquals(200, print.status());
    assertEquals("Counter 1", print.text("qr-name"));
    assertEquals("Ground floor", print.text("qr-location"));
    Page svg = new Browser().get(path(qr.json().get("qr_svg_url").asText()));
    assertEquals(200, svg.status());
    assertTrue(svg.header("Content-Type").startsWith("image/svg+xml"));
    assertEquals(
        200, shop.post("/v1/static_qrs/" + qr.json().get("id").asText() + "/archive", "").status());
    Page archived = new Browser().get(qrPage);
    assertEquals(409, archived.status());
    assertTrue(archived.body().contains("data-code=\"link_inactive\""));
    assertTrue(archived.body().contains("no longer in use"));

    assertEquals(404, new Browser().get("/l/AAAAAAAAAAAAAAAA").status());

    Thread.sleep(
        Math.max(
            0,
            java.time.OffsetDateTime.parse(soon).toInstant().toEpochMilli()
                - System.currentTimeMillis()
                + 1_200));
    Page expired = new Browser().get(path(expiring.json().get("url").asText()));
    assertEquals(410, expired.status());
    assertTrue(expired.body().contains("data-code=\"link_expired\""));
  }

  private static Map<String, String> card(String number) {
    return Map.of("card_number", number, "expiry", "12/39", "cvc", "123", "name", "Juan Dela Cruz");
  }

  private static JsonNode pay(String environment, String body) {
    Merchant.Reply created = (environment.equals("live") ? live : shop).post("/v1/payments", body);
    assertEquals(201, created.status(), created.raw().body());
    return created.json();
  }

  private static String path(String url) {
    return URI.create(url).getPath();
  }

  private static int count(String text, String needle) {
    int count = 0;
    for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
      count++;
    }
    return count;
  }

  /** A response of a page. */
  record Page(int status, HttpResponse<String> raw) {
    String body() {
      return raw.body();
    }

    String header(String name) {
      return raw.headers().firstValue(name).orElse("");
    }

    /** The text of the element with {@code id} (its escaped source, tags stripped). */
    String text(String id) {
      Matcher m =
          Pattern.compile("id=\"" + Pattern.quote(id) + "\"[^>]*>(.*?)</", Pattern.DOTALL)
              .matcher(body());
      return m.find() ? m.group(1).replaceAll("<[^>]+>", "").replaceAll("\\s+", " ").trim() : null;
    }

    String csrf() {
      Matcher m = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(body());
      return m.find() ? m.group(1) : null;
    }

    /** The {@code action} of the form with {@code id}, or of the form around it. */
    String action(String id) {
      int at = body().indexOf("id=\"" + id + "\"");
      int tag = body().lastIndexOf('<', at);
      int form = body().startsWith("<form", tag) ? tag : body().indexOf("<form", at);
      Matcher m = Pattern.compile("action=\"([^\"]+)\"").matcher(body().substring(form));
      return m.find() ? m.group(1) : null;
    }
  }

  /** A browser without JavaScript: keeps cookies, shows redirects instead of following them. */
  static final class Browser {
    private final HttpClient http =
        HttpClient.newBuilder()
            .cookieHandler(new CookieManager())
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    Page get(String path) {
      return send(HttpRequest.newBuilder(URI.create(system.gatewayUrl() + path)).GET());
    }

    /** Submits the form {@code formId} of {@code page} with its CSRF token and {@code fields}. */
    Page post(Page page, String formId, Map<String, String> fields) {
      Map<String, String> all = new LinkedHashMap<>(fields);
      all.put("csrf", page.csrf());
      return postForm(page.action(formId), all);
    }

    Page postForm(String path, Map<String, String> fields) {
      String body =
          fields.entrySet().stream()
              .map(
                  e ->
                      URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8)
                          + "="
                          + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
              .collect(Collectors.joining("&"));
      return send(
          HttpRequest.newBuilder(URI.create(system.gatewayUrl() + path))
              .header("Content-Type", "application/x-www-form-urlencoded")
              .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private Page send(HttpRequest.Builder request) {
      try {
        HttpResponse<String> response =
            http.send(
                request.timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        return new Page(response.statusCode(), response);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
