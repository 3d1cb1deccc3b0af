package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;

/**
 * The customer-facing pages (issue 16) in a real browser: Debian's Chromium, headless, at 360 px
 * wide as on a phone, against the whole system started by {@code bin/run} (the shared system, and
 * one browser for the class). A customer opens payment links and static QR codes, pays in test mode
 * through the pages' sandbox buttons and card form, lands on receipts and the receipt history; the
 * merchant sees the same through the API and a signed webhook. Every page is saved as a PNG under
 * {@code e2e/target/screenshots/} (named after the scenario letter) to be looked at.
 *
 * <p>The selectors are the contract between the pages and these tests (docs/hosted-pages.md).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(SharedSystem.class)
class HostedPagesBrowserE2EIT {

  private static final String MERCHANT_NAME = "Kapihan ni Aling Rosa";
  private static final Duration PAGE_SETTLE = Duration.ofSeconds(30);
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();

  private static Browser browser;
  private static SystemUnderTest system;
  private static WebhookReceiver receiver;
  private static Merchant operator;
  private static Merchant merchant;
  private static String merchantId;
  private static String webhookSecret;

  @BeforeAll
  static void start(SystemUnderTest shared) throws Exception {
    // The live-mode scenario takes a live payment through the shared system's simulated connector.
    system = shared;
    browser = Browser.start();
    receiver = WebhookReceiver.start();
    operator = new Merchant(system.gatewayUrl(), system.adminToken);
    JsonNode signedUp =
        created(
            operator.post(
                "/admin/v1/merchants", json("name", MERCHANT_NAME, "email", "rosa@example.ph")));
    merchantId = signedUp.get("id").asText();
    JsonNode testKey = signedUp.at("/api_keys/0");
    raiseRateLimit(testKey.get("id").asText());
    merchant = new Merchant(system.gatewayUrl(), testKey.get("secret").asText());
    JsonNode endpoint =
        created(
            merchant.post(
                "/v1/webhooks/endpoints",
                json("url", receiver.url(), "events", List.of("payment.succeeded"))));
    webhookSecret = endpoint.get("secret").asText();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (browser != null) {
        browser.close();
      }
    } finally {
      if (receiver != null) {
        receiver.close();
      }
    }
  }

  // ------------------------------------------------------------------ scenarios

  /**
   * The checkout page of a QR Ph payment at phone width: it shows the amount, the QR image and the
   * status, and follows the payment as the sandbox moves it (test helpers here, as a provider
   * would).
   */
  @Test
  @Order(1)
  void theCheckoutPageOfAQrPaymentFollowsThePayment() throws Exception {
    JsonNode payment = pay("1500.00", "rail1_qr", "Order 17: 2 × kapeng barako");
    browser.open(payment.get("checkout_url").asText());
    assertPage("0-checkout-rail1_qr-pending");
    assertEquals(MERCHANT_NAME, text("#merchant"));
    assertEquals("₱1,500.00", text("#amount"));
    assertEquals("Order 17: 2 × kapeng barako", text("#description"));
    assertEquals("pending", checkoutStatus());
    assertImageLoaded("#qr");
    assertTrue(
        bodyText().contains("Scan with any QR Ph bank or e-wallet app"), "the QR's instruction");

    // The page polls its status and reloads itself: no reload by the test.
    helper(payment, "process");
    awaitCheckoutStatus("processing");
    browser.screenshot("0-checkout-rail1_qr-processing");

    // Paid: the checkout becomes the receipt by itself.
    helper(payment, "succeed");
    awaitReceipt();
    assertPage("0-receipt-rail1_qr");
    assertEquals("₱1,500.00", text("#receipt-amount"));
    assertEquals(id(payment), text("#reference"));
    assertEquals(
        browser.driver.getCurrentUrl(),
        ok(merchant.get("/v1/payments/" + id(payment))).get("receipt_url").asText(),
        "the receipt page is the payment's receipt_url");
  }

  /**
   * (a) An open-amount payment link at 360 px: the customer enters an amount, chooses QR Ph, pays
   * with the page's sandbox button and lands on the receipt; the merchant sees the link's {@code
   * usage_count} become 1 and receives a signed {@code payment.succeeded} webhook.
   */
  @Test
  @Order(2)
  void aCustomerPaysAnOpenAmountLinkAndTheMerchantSeesItCountedAndSigned() throws Exception {
    JsonNode link =
        created(
            merchant.post(
                "/v1/payment_links",
                json(
                    "description", "Halo-halo for two",
                    "success_url", "https://shop.example.ph/salamat",
                    "cancel_url", "https://shop.example.ph/cart")));
    assertTrue(link.get("amount").isNull(), link.toString());
    assertEquals(0, link.get("usage_count").asInt());
    String url = link.get("url").asText();
    assertTrue(url.matches("https?://[^/]+/l/[A-Za-z0-9]{16}"), "url is /l/{slug}: " + url);

    browser.open(url);
    assertPage("a1-link-open-amount");
    assertEquals(MERCHANT_NAME, text("#merchant"));
    assertEquals("Halo-halo for two", text("#description"));
    WebElement amount = browser.find("#link-form input[name=amount]");
    assertEquals("decimal", amount.getAttribute("inputmode"));
    List<String> methods = methodChoices();
    assertTrue(
        methods.containsAll(List.of("rail1_qr", "ewallet1", "card", "bank_transfer")),
        "the methods test mode can route in PHP: " + methods);
    assertInputsLabelled();
    browser.find("#pay").click();
    assertEquals(
        Boolean.TRUE,
        browser.js("return arguments[0].validity.valueMissing;", amount),
        "the browser asks for the amount before sending the form");
    assertEquals(url, browser.driver.getCurrentUrl());
    amount.sendKeys("250.50");
    chooseMethod("rail1_qr");
    browser.screenshot("a2-link-filled");
    browser.find("#pay").click();

    awaitUrl("/checkout/ct_");
    assertPage("a3-link-checkout-rail1_qr");
    assertEquals("₱250.50", text("#amount"));
    assertEquals("Halo-halo for two", text("#description"));
    assertEquals("pending", checkoutStatus());
    assertImageLoaded("#qr");
    assertEquals("https://shop.example.ph/cart", browser.find("#cancel").getAttribute("href"));
    browser.find("#sandbox button[name=action][value=pay]").click();

    awaitReceipt();
    assertPage("a4-link-receipt");
    assertEquals("₱250.50", text("#receipt-amount"));
    assertEquals(
        "https://shop.example.ph/salamat",
        browser.find("#return").getAttribute("href"),
        "back to the link's success_url");
    String paymentId = text("#reference");
    JsonNode payment = ok(merchant.get("/v1/payments/" + paymentId));
    assertEquals("succeeded", payment.get("status").asText());
    assertEquals(id(link), payment.get("payment_link_id").asText());
    assertAmount("250.50", payment.get("amount"));
    assertEquals("rail1_qr", payment.get("method").asText());
    assertEquals("https://shop.example.ph/salamat", payment.get("return_url").asText());
    assertEquals(browser.driver.getCurrentUrl(), payment.get("receipt_url").asText());
    assertRevealsNothingPrivate(payment);

    JsonNode counted =
        await(
            () -> ok(merchant.get("/v1/payment_links/" + id(link))),
            l -> l.get("usage_count").asInt() == 1,
            "the link's usage_count becomes 1");
    assertTrue(counted.get("last_used_at").isIntegralNumber(), counted.toString());

    WebhookReceiver.Delivery delivery =
        receiver.await(
            e ->
                "payment.succeeded".equals(e.path("type").asText())
                    && paymentId.equals(e.at("/data/object/id").asText()),
            webhookSecret,
            Duration.ofSeconds(30));
    assertEquals("payment.succeeded", delivery.eventType());
    assertEquals(id(link), delivery.event().at("/data/object/payment_link_id").asText());

    // Back on the checkout URL, a paid payment shows its receipt, not the form again.
    browser.open(payment.get("checkout_url").asText());
    awaitReceipt();
    assertEquals(1, ok(merchant.get("/v1/payment_links/" + id(link))).get("usage_count").asInt());
  }

  /**
   * (b) An inactive link and an expired link show their error pages, with the HTTP status of the
   * API error; an unknown slug is 404. The API answers the same codes in the error envelope.
   */
  @Test
  @Order(3)
  void inactiveExpiredAndUnknownLinksShowTheirErrorPages() throws Exception {
    // The expiring link first, so its few seconds pass while the inactive one is checked.
    OffsetDateTime expiresAt =
        OffsetDateTime.now(ZoneOffset.ofHours(8)).plusSeconds(10).truncatedTo(ChronoUnit.SECONDS);
    JsonNode expiring =
        created(
            merchant.post(
                "/v1/payment_links",
                json(
                    "description",
                    "Flash sale: tsokolate",
                    "amount",
                    new BigDecimal("99.00"),
                    "expires_at",
                    expiresAt.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME))));
    browser.open(expiring.get("url").asText());
    assertTrue(browser.has("#link-form"), "before expires_at the link takes payments");
    assertFalse(browser.has("#error"));

    JsonNode inactive =
        created(
            merchant.post(
                "/v1/payment_links",
                json("description", "Pre-order: ube cheesecake", "amount", new BigDecimal("450"))));
    JsonNode deactivated =
        ok(merchant.patch("/v1/payment_links/" + id(inactive), json("status", "inactive")));
    assertEquals("inactive", deactivated.get("status").asText());
    String inactiveUrl = inactive.get("url").asText();
    browser.open(inactiveUrl);
    assertErrorPage("link_inactive", "b1-link-inactive");
    assertEquals(409, httpStatus(inactiveUrl));
    Merchant.Reply refusedInactive =
        merchant.post("/v1/payments", json("payment_link_id", id(inactive), "method", "card"));
    assertEquals(409, refusedInactive.status(), refusedInactive.raw().body());
    assertEquals("link_inactive", refusedInactive.code());

    while (OffsetDateTime.now().isBefore(expiresAt.plusSeconds(1))) {
      Thread.sleep(200);
    }
    String expiredUrl = expiring.get("url").asText();
    browser.open(expiredUrl);
    assertErrorPage("link_expired", "b2-link-expired");
    assertEquals(410, httpStatus(expiredUrl));
    Merchant.Reply refusedExpired =
        merchant.post("/v1/payments", json("payment_link_id", id(expiring), "method", "card"));
    assertEquals(410, refusedExpired.status(), refusedExpired.raw().body());
    assertEquals("link_expired", refusedExpired.code());

    String unknown = system.gatewayUrl() + "/l/ZZZZzzzzZZZZzzzz";
    browser.open(unknown);
    assertErrorPage("not_found", "b3-link-unknown");
    assertEquals(404, httpStatus(unknown));
    assertEquals(
        404, httpStatus(system.gatewayUrl() + "/l/" + id(inactive)), "a plk_ id is no slug");
  }

  /**
   * (c) A static QR code: its SVG, drawn by the browser and read by ZXing as a phone camera would,
   * is the link URL; that URL opens the link page with the default method chosen; the print view
   * carries the same code; an archived QR takes no payment.
   */
  @Test
  @Order(4)
  void aStaticQrDecodesToItsLinkPageWithTheDefaultMethodChosen() throws Exception {
    JsonNode qr =
        created(
            merchant.post(
                "/v1/static_qrs",
                json(
                    "name", "Counter 1",
                    "location", "Stall 12, Salcedo Saturday Market",
                    "default_method", "rail1_qr")));
    String url = qr.get("url").asText();
    String svgUrl = qr.get("qr_svg_url").asText();
    String slug = url.substring(url.lastIndexOf('/') + 1);
    assertTrue(slug.matches("[A-Za-z0-9]{16}"), url);
    HttpResponse<String> svg = get(svgUrl);
    assertEquals(200, svg.statusCode());
    assertTrue(
        svg.headers().firstValue("Content-Type").orElse("").startsWith("image/svg+xml"),
        svg.headers().toString());

    browser.open(svgUrl);
    byte[] drawn = browser.viewportPng();
    Files.createDirectories(Browser.SCREENSHOTS);
    Files.write(Browser.SCREENSHOTS.resolve("c1-static-qr-svg.png"), drawn);
    String decoded = QrCodes.decode(drawn);
    assertEquals(url, decoded, "the printed QR code opens the link page");

    browser.open(decoded);
    assertPage("c2-static-qr-link-page");
    assertEquals(MERCHANT_NAME, text("#merchant"));
    assertTrue(browser.has("#link-form input[name=amount]"), "a static QR is open-amount");
    assertEquals(
        "rail1_qr",
        browser.find("#link-form input[name=method]:checked").getAttribute("value"),
        "default_method preselected");
    assertTrue(methodChoices().size() > 1, "the customer may still choose another method");

    // With the keyboard only: Tab to the amount, type it, Enter pays with the preselected method.
    for (int i = 0;
        i < 15 && !"amount".equals(browser.js("return document.activeElement.name;"));
        i++) {
      new Actions(browser.driver).sendKeys(Keys.TAB).perform();
    }
    assertEquals("amount", browser.js("return document.activeElement.name;"), "Tab reaches it");
    new Actions(browser.driver).sendKeys("75").sendKeys(Keys.ENTER).perform();
    awaitUrl("/checkout/ct_");
    assertPage("c3-static-qr-checkout");
    assertEquals("₱75.00", text("#amount"));
    assertImageLoaded("#qr");
    assertFalse(browser.has("#open-app"), "QR Ph (rail1_qr), not the e-wallet QR");

    browser.open(system.gatewayUrl() + "/l/" + slug + "/print");
    assertPage("c4-static-qr-print");
    assertImageLoaded("#qr");
    assertEquals(MERCHANT_NAME, text("#merchant"));
    assertEquals("Counter 1", text("#qr-name"));
    assertEquals("Stall 12, Salcedo Saturday Market", text("#qr-location"));
    assertTrue(bodyText().contains("Scan to pay"), bodyText());
    assertEquals(
        url,
        QrCodes.decode(browser.find("#qr").getScreenshotAs(OutputType.BYTES)),
        "the print view's QR code, as the browser draws it");

    JsonNode archived = ok(merchant.post("/v1/static_qrs/" + id(qr) + "/archive", ""));
    assertTrue(archived.get("archived").asBoolean(), archived.toString());
    browser.open(url);
    assertErrorPage("link_inactive", "c5-static-qr-archived");
    assertEquals(409, httpStatus(url));
  }

  /**
   * (d) A customer's receipt history lists the receipts of their two paid payments (and not the
   * failed one), each row leading to its receipt.
   */
  @Test
  @Order(5)
  void aCustomersReceiptHistoryListsTheirTwoReceipts() throws Exception {
    JsonNode customer =
        created(
            merchant.post(
                "/v1/customers", json("name", "Maria Clara Santos", "email", "maria@example.ph")));
    JsonNode coffee = pay("120.00", "card", "Iced coffee", "customer_id", id(customer));
    JsonNode bread = pay("85.50", "rail1_qr", "Ensaymada", "customer_id", id(customer));
    JsonNode declined = pay("40.00", "card", "Pandesal", "customer_id", id(customer));
    helper(coffee, "succeed");
    helper(bread, "succeed");
    helper(declined, "fail");
    Set<String> receiptUrls = new HashSet<>();
    for (JsonNode paid : List.of(coffee, bread)) {
      JsonNode now = ok(merchant.get("/v1/payments/" + id(paid)));
      assertTrue(now.get("receipt_url").isTextual(), now.toString());
      receiptUrls.add(now.get("receipt_url").asText());
    }

    browser.open(customer.get("receipts_history_url").asText());
    assertPage("d1-receipt-history");
    assertEquals("Maria Clara Santos", text("#customer-name"));
    List<WebElement> rows = browser.findAll("a.receipt-row");
    assertEquals(2, rows.size(), "two paid payments, the failed one not listed: " + bodyText());
    Set<String> hrefs = new HashSet<>();
    for (WebElement row : rows) {
      hrefs.add(row.getAttribute("href"));
    }
    assertEquals(receiptUrls, hrefs);
    String rowsText = rows.get(0).getText() + "\n" + rows.get(1).getText();
    assertTrue(rowsText.contains("₱120.00") && rowsText.contains("₱85.50"), rowsText);

    String first = rows.get(0).getAttribute("href");
    rows.get(0).click();
    awaitUrl(first);
    assertPage("d2-receipt-from-history");
    assertTrue(browser.has("#receipt"));
    assertTrue(Set.of("₱120.00", "₱85.50").contains(text("#receipt-amount")));
  }

  /** (e) A description of {@code <script>alert(1)</script>} is shown as text and never runs. */
  @Test
  @Order(6)
  void scriptInADescriptionStaysText() throws Exception {
    String script = "<script>alert(1)</script>";
    JsonNode payment = pay("99.00", "rail1_qr", script);
    browser.open(payment.get("checkout_url").asText());
    assertNoAlert();
    assertPage("e1-xss-checkout");
    assertEquals(script, text("#description"));
    assertTrue(browser.find("#description").isDisplayed());
    assertEquals(
        0L,
        browser.js(
            "return Array.from(document.scripts)"
                + ".filter(s => s.textContent.includes('alert(1)')).length;"),
        "no script element carries the description");

    String image = "<img src=x onerror=alert(2)>";
    JsonNode link = created(merchant.post("/v1/payment_links", json("description", image)));
    browser.open(link.get("url").asText());
    assertNoAlert();
    assertPage("e2-xss-link");
    assertEquals(image, text("#description"));
    assertEquals(0L, browser.js("return document.querySelectorAll('img[src=\"x\"]').length;"));
  }

  /**
   * (f) A card payment with the 3-D Secure test card goes through the challenge to the receipt (and
   * a refund shows on it); a declined card shows the reason, and no card number reaches the API.
   */
  @Test
  @Order(7)
  void cardPaymentsThroughTheChallengeAndADecline() throws Exception {
    JsonNode card = pay("1999.00", "card", "Rice cooker");
    browser.open(card.get("checkout_url").asText());
    assertPage("f1-card-checkout");
    assertEquals("₱1,999.00", text("#amount"));
    assertTrue(
        browser.find("details").getAttribute("textContent").contains("4000 0000 0000 3220"),
        "the test cards are documented on the page");
    assertInputsLabelled();
    fillCard("4000 0000 0000 3220");
    browser.find("#pay-card").click();
    waitFor("the 3-D Secure challenge", d -> !d.findElements(By.id("challenge")).isEmpty());
    assertPage("f2-card-3ds-challenge");
    browser.find("#challenge button[name=action][value='3ds_complete']").click();
    awaitReceipt();
    assertPage("f3-card-receipt");
    assertEquals("₱1,999.00", text("#receipt-amount"));
    JsonNode paid = ok(merchant.get("/v1/payments/" + id(card)));
    assertEquals("succeeded", paid.get("status").asText());
    assertFalse(paid.toString().contains("3220"), "only the last 4 digits may travel: " + paid);

    // Card refunds succeed at once; the receipt shows the refund line.
    JsonNode refund =
        created(
            merchant.post(
                "/v1/refunds", json("payment", id(card), "amount", new BigDecimal("500.00"))));
    assertEquals("succeeded", refund.get("status").asText(), refund.toString());
    browser.driver.navigate().refresh();
    List<WebElement> refunds = browser.findAll(".refund-line");
    assertEquals(1, refunds.size(), bodyText());
    assertTrue(refunds.get(0).getText().contains("₱500.00"), refunds.get(0).getText());
    assertPage("f4-card-receipt-refunded");

    JsonNode declined = pay("75.00", "card", "Electric fan");
    browser.open(declined.get("checkout_url").asText());
    fillCard("4000 0000 0000 0002");
    browser.find("#pay-card").click();
    awaitCheckoutStatus("failed");
    assertPage("f5-card-declined");
    assertTrue(
        text("#state-message").toLowerCase(java.util.Locale.ROOT).contains("declined"),
        text("#state-message"));
    assertFalse(browser.has("#card-form"), "a failed payment shows no form");
    assertFalse(browser.has("#sandbox"), "nor sandbox buttons");
    JsonNode failed = ok(merchant.get("/v1/payments/" + id(declined)));
    assertEquals("failed", failed.get("status").asText());
    assertEquals("card_declined", failed.at("/failure/code").asText(), failed.toString());
    assertFalse(failed.toString().contains("0000 0000"), failed.toString());
  }

  /**
   * (g) An e-wallet payment's sandbox approval step, a bank transfer's instructions, and an expired
   * payment's clear state.
   */
  @Test
  @Order(8)
  void anEwalletApprovalABankTransfersInstructionsAndAnExpiredPayment() throws Exception {
    JsonNode wallet = pay("640.00", "ewallet1", "Bilao of pancit");
    browser.open(wallet.get("checkout_url").asText());
    assertPage("g1-ewallet1-checkout");
    WebElement openApp = browser.find("#open-app");
    assertEquals(wallet.get("app_link").asText(), openApp.getAttribute("href"));
    assertTrue(openApp.isDisplayed());
    assertTrue(browser.has("#sandbox button[name=action][value=decline]"));
    browser.find("#sandbox button[name=action][value=approve]").click();
    awaitReceipt();
    assertPage("g2-ewallet1-receipt");
    assertEquals("₱640.00", text("#receipt-amount"));
    assertEquals(
        "succeeded", ok(merchant.get("/v1/payments/" + id(wallet))).get("status").asText());

    JsonNode bank = pay("5000.00", "bank_transfer", "Lechon, whole");
    browser.open(bank.get("checkout_url").asText());
    assertPage("g3-bank-transfer-checkout");
    WebElement instructions = browser.find("#transfer-instructions");
    assertTrue(instructions.isDisplayed());
    assertTrue(instructions.getText().contains("₱5,000.00"), instructions.getText());
    browser.find("#sandbox button[name=action][value=pay]").click();
    awaitReceipt();
    assertPage("g4-bank-transfer-receipt");
    assertEquals("succeeded", ok(merchant.get("/v1/payments/" + id(bank))).get("status").asText());

    JsonNode late = pay("30.00", "rail1_qr", "Taho");
    helper(late, "expire");
    browser.open(late.get("checkout_url").asText());
    assertPage("g5-checkout-expired");
    assertEquals("expired", checkoutStatus());
    assertFalse(text("#state-message").isBlank());
    assertFalse(browser.has("#sandbox"), "an expired payment has nothing to press");
    assertFalse(browser.has("#qr"), "nor a QR code to scan");
  }

  /**
   * A link with a fixed amount and method shows both as text; a form posted without its CSRF token
   * (as a foreign site's form would be) is refused, and the token's cookie is out of scripts'
   * reach.
   */
  @Test
  @Order(9)
  void aFixedLinkAndAFormWithoutItsCsrfToken() throws Exception {
    JsonNode link =
        created(
            merchant.post(
                "/v1/payment_links",
                json(
                    "description",
                    "Membership, one year",
                    "amount",
                    new BigDecimal("1500"),
                    "method",
                    "card")));
    browser.open(link.get("url").asText());
    assertPage("h1-link-fixed");
    assertEquals("₱1,500.00", text("#amount"));
    assertFalse(browser.has("#link-form input[name=amount]"));
    WebElement method = browser.find("#link-form input[name=method]");
    assertEquals("hidden", method.getAttribute("type"));
    assertEquals("card", method.getAttribute("value"));
    assertFalse(
        String.valueOf(browser.js("return document.cookie;")).contains("csrf"),
        "the csrf cookie is HttpOnly");

    browser.js("document.querySelector('#link-form input[name=csrf]').remove();");
    browser.find("#pay").click();
    waitFor("an error page", d -> !d.findElements(By.id("error")).isEmpty());
    assertErrorPage("invalid_token", "h2-link-without-csrf");
    for (JsonNode payment : merchant.listAll("/v1/payments")) {
      assertFalse(
          id(link).equals(payment.path("payment_link_id").asText()),
          "a form without its token created " + payment);
    }
  }

  /** Live mode shows no test banner and no sandbox button. */
  @Test
  @Order(10)
  void aLivePaymentsCheckoutHasNothingThatCompletesIt() throws Exception {
    JsonNode activated = ok(operator.post("/admin/v1/merchants/" + merchantId + "/activate", ""));
    String liveSecret = null;
    for (JsonNode key : activated.get("api_keys")) {
      if ("live".equals(key.path("environment").asText()) && key.hasNonNull("secret")) {
        liveSecret = key.get("secret").asText();
      }
    }
    assertNotNull(liveSecret, activated.toString());
    Merchant live = new Merchant(system.gatewayUrl(), liveSecret);
    JsonNode payment =
        created(
            live.post(
                "/v1/payments",
                json(
                    "amount",
                    new BigDecimal("250.00"),
                    "method",
                    "rail1_qr",
                    "description",
                    "Live order")));
    browser.open(payment.get("checkout_url").asText());
    assertPage("i1-checkout-live", false);
    assertFalse(browser.has(".test-banner"), "live mode carries no test banner");
    assertFalse(browser.has("#sandbox"), "live mode renders no sandbox form");
    assertEquals(0, browser.findAll("button[name=action]").size());
    assertImageLoaded("#qr");
  }

  // ------------------------------------------------------------------ page checks

  /** A test-mode page: see {@link #assertPage(String, boolean)}. */
  private static void assertPage(String screenshot) throws IOException {
    assertPage(screenshot, true);
  }

  /**
   * What every page must be at phone width: English, one stylesheet that loaded, a {@code <main>},
   * nothing wider than the 360 px screen, and in test mode the visible test banner. Then the
   * screenshot.
   */
  private static void assertPage(String screenshot, boolean testMode) throws IOException {
    try {
      assertEquals("en", browser.find("html").getAttribute("lang"), screenshot);
      assertTrue(browser.has("main"), screenshot + ": a <main>");
      assertEquals(Browser.WIDTH, browser.viewportWidth());
      int width = browser.contentWidth();
      assertTrue(
          width <= Browser.WIDTH,
          screenshot + " scrolls sideways on a 360 px phone: it is " + width + " px wide");
      assertEquals(
          Boolean.TRUE,
          browser.js(
              "const s = Array.from(document.styleSheets)"
                  + ".filter(x => x.href && x.href.endsWith('/assets/pages.css'));"
                  + "return s.length === 1 && s[0].cssRules.length > 0;"),
          screenshot + ": /assets/pages.css loaded");
      if (testMode) {
        WebElement banner = browser.find(".test-banner");
        assertTrue(banner.isDisplayed(), screenshot + ": the test banner shows");
        assertTrue(banner.getText().toUpperCase().contains("TEST MODE"), banner.getText());
      }
    } finally {
      browser.screenshot(screenshot);
    }
  }

  private static void assertErrorPage(String code, String screenshot) throws IOException {
    // An unknown slug or a refused form belongs to no known mode: no banner to expect.
    assertPage(screenshot, !Set.of("not_found", "invalid_token").contains(code));
    WebElement error = browser.find("#error");
    assertEquals(code, error.getAttribute("data-code"), bodyText());
    assertTrue(error.isDisplayed());
    assertFalse(error.getText().isBlank(), "the error page says what happened");
    assertFalse(browser.has("#link-form"), "an error page takes no payment");
    assertFalse(browser.has("#sandbox"));
  }

  private static void assertNoAlert() {
    assertThrows(
        NoAlertPresentException.class,
        () -> browser.driver.switchTo().alert(),
        "a script from the description ran");
  }

  /** The image has loaded (naturalWidth is 0 for a broken image). */
  private static void assertImageLoaded(String css) {
    WebElement image = browser.find(css);
    assertTrue(image.isDisplayed(), css + " is visible");
    Number natural = (Number) browser.js("return arguments[0].naturalWidth;", image);
    assertTrue(natural.intValue() > 0, css + " did not load: " + image.getAttribute("src"));
  }

  /** Every visible form control has a label (or an aria-label). */
  private static void assertInputsLabelled() {
    Object unlabelled =
        browser.js(
            "return Array.from(document.querySelectorAll('input, select, textarea'))"
                + ".filter(i => i.type !== 'hidden' && i.type !== 'submit')"
                + ".filter(i => i.labels.length === 0 && !i.getAttribute('aria-label'))"
                + ".map(i => i.name + '=' + i.value);");
    assertEquals(List.of(), unlabelled, "form controls without a label");
  }

  /** Nothing only the merchant may see: no merchant id, no fee. */
  private static void assertRevealsNothingPrivate(JsonNode payment) {
    String source = browser.driver.getPageSource();
    assertFalse(source.contains(merchantId), "the page reveals the merchant id");
    assertFalse(source.contains("\"fee"), "the page reveals a fee field");
    String fee = peso(payment.get("fee_amount").decimalValue());
    assertFalse(bodyText().contains(fee), "the page shows the fee " + fee + ": " + bodyText());
  }

  // ------------------------------------------------------------------ driving the pages

  private static String text(String css) {
    return browser.find(css).getText().strip();
  }

  private static String bodyText() {
    return browser.find("body").getText();
  }

  private static String checkoutStatus() {
    return browser.find("#status").getAttribute("data-status");
  }

  /** Waits for the page to show the status by itself (it polls and reloads; the test does not). */
  private static void awaitCheckoutStatus(String status) {
    waitFor(
        "the checkout page's status " + status,
        d -> {
          try {
            return status.equals(d.findElement(By.id("status")).getAttribute("data-status"));
          } catch (WebDriverException e) {
            return false; // between two loads
          }
        });
  }

  /**
   * Waits until the browser shows a receipt page ({@code /receipts/ct_…} with {@code #receipt}).
   */
  private static void awaitReceipt() {
    waitFor(
        "the receipt page",
        d -> {
          try {
            return d.getCurrentUrl().contains("/receipts/ct_")
                && !d.findElements(By.id("receipt")).isEmpty();
          } catch (WebDriverException e) {
            return false;
          }
        });
  }

  /**
   * Waits until the condition holds; on a timeout, fails saying where the browser is and what it
   * shows, with a screenshot ({@code timeout-N.png}).
   */
  private static void waitFor(String what, java.util.function.Function<WebDriver, Boolean> done) {
    try {
      browser.waitUpTo(PAGE_SETTLE).until(done::apply);
    } catch (TimeoutException e) {
      String where = browser.driver.getCurrentUrl();
      String shows;
      try {
        shows = bodyText();
        browser.screenshot("timeout-" + (++timeouts));
      } catch (RuntimeException | IOException unreadable) {
        shows = "(unreadable: " + unreadable + ")";
      }
      if (shows.contains("HTTP ERROR 403") && !browser.has("main")) {
        // Chromium's own page for a 403 without a body: no page of ours answered.
        shows +=
            "\n(a bare 403 comes from a filter before the pages, e.g. Micronaut's CORS check"
                + " that refuses a request to a localhost host whose Origin is not local, such as"
                + " the Origin: null of a form posted under Referrer-Policy: no-referrer)";
      }
      throw new AssertionError(
          "waited "
              + PAGE_SETTLE.toSeconds()
              + " s for "
              + what
              + "; the browser is at "
              + where
              + " showing:\n"
              + shows,
          e);
    }
  }

  private static int timeouts;

  private static void awaitUrl(String part) {
    waitFor("a page at …" + part, d -> d.getCurrentUrl().contains(part));
  }

  private static List<String> methodChoices() {
    List<String> values = new ArrayList<>();
    for (WebElement radio : browser.findAll("#link-form input[name=method][type=radio]")) {
      values.add(radio.getAttribute("value"));
    }
    return values;
  }

  /** Chooses a method by its label, as a person taps it. */
  private static void chooseMethod(String method) {
    WebElement radio = browser.find("#link-form input[name=method][value='" + method + "']");
    WebElement label = (WebElement) browser.js("return arguments[0].labels[0];", radio);
    assertNotNull(label, method + " has a label");
    label.click();
    assertTrue(radio.isSelected(), "tapping the label of " + method + " chooses it");
  }

  private static void fillCard(String number) {
    WebElement form = browser.find("#card-form");
    form.findElement(By.name("card_number")).sendKeys(number);
    form.findElement(By.name("expiry")).sendKeys("12/30");
    form.findElement(By.name("cvc")).sendKeys("123");
    form.findElement(By.name("name")).sendKeys("Juan dela Cruz");
  }

  // ------------------------------------------------------------------ the API side

  private static JsonNode pay(String amount, String method, String description, Object... extra) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("amount", new BigDecimal(amount));
    body.put("method", method);
    body.put("description", description);
    for (int i = 0; i + 1 < extra.length; i += 2) {
      body.put((String) extra[i], extra[i + 1]);
    }
    JsonNode payment = created(merchant.post("/v1/payments", json(body)));
    assertEquals("pending", payment.get("status").asText(), payment.toString());
    assertTrue(payment.get("checkout_url").isTextual(), payment.toString());
    return payment;
  }

  private static JsonNode helper(JsonNode payment, String action) {
    return ok(merchant.post("/v1/test_helpers/payments/" + id(payment) + "/" + action, ""));
  }

  private static void raiseRateLimit(String keyId) {
    ok(
        operator.post(
            "/admin/v1/api_keys/" + keyId + "/rate_limit", json("rate_limit_per_minute", 5000)));
  }

  private static <T> T await(Supplier<T> read, java.util.function.Predicate<T> done, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + PAGE_SETTLE.toNanos();
    T value = read.get();
    while (!done.test(value)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + "; last seen: " + value);
      }
      Thread.sleep(200);
      value = read.get();
    }
    return value;
  }

  private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(15)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static int httpStatus(String url) throws IOException, InterruptedException {
    return get(url).statusCode();
  }

  private static JsonNode created(Merchant.Reply reply) {
    assertEquals(201, reply.status(), reply.raw().body());
    return reply.json();
  }

  private static JsonNode ok(Merchant.Reply reply) {
    assertEquals(200, reply.status(), reply.raw().body());
    return reply.json();
  }

  private static String id(JsonNode resource) {
    return resource.get("id").asText();
  }

  private static void assertAmount(String expected, JsonNode actual) {
    assertEquals(0, new BigDecimal(expected).compareTo(actual.decimalValue()), actual.toString());
  }

  /** {@code ₱1,500.00}. */
  private static String peso(BigDecimal amount) {
    return String.format(java.util.Locale.ROOT, "₱%,.2f", amount);
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
}
