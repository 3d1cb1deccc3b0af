package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;

/**
 * A customer pays a two-stage invoice (issue 17) on its public page in a real browser (headless
 * Chromium at 360 px, the {@link Browser} fixture), against the whole system started by {@code
 * bin/run}: the merchant creates a customer and an invoice with a 50 % deposit and two line items
 * and sends it through the API; the customer opens the invoice's {@code url}, pays the deposit by
 * card through the checkout, comes back from the receipt to the invoice (the payment's {@code
 * return_url} is the invoice's url), pays the balance by QR Ph with the sandbox button, and the
 * invoice reads {@code paid} with both payments listed, on the page and through the API. Every page
 * is saved as {@code e2e/target/screenshots/inv-*.png}.
 */
@ExtendWith(SharedSystem.class)
class InvoiceBrowserE2EIT {

  private static final String MERCHANT_NAME = "Lutong Bahay ni Aling Nena";
  private static final Duration PAGE_SETTLE = Duration.ofSeconds(30);

  private static Browser browser;
  private static SystemUnderTest system;
  private static Merchant merchant;

  @BeforeAll
  static void start(SystemUnderTest shared) throws Exception {
    system = shared;
    browser = Browser.start();
    Merchant operator = new Merchant(system.gatewayUrl(), system.adminToken);
    JsonNode signedUp =
        created(
            operator.post(
                "/admin/v1/merchants", json("name", MERCHANT_NAME, "email", "nena@example.ph")));
    merchant = new Merchant(system.gatewayUrl(), signedUp.at("/api_keys/0/secret").asText());
  }

  @AfterAll
  static void stop() throws Exception {
    if (browser != null) {
      browser.close();
    }
  }

  @Test
  void aCustomerPaysTheDepositByCardThenTheBalanceByQrAndTheInvoiceReadsPaid() throws Exception {
    JsonNode customer =
        created(
            merchant.post(
                "/v1/customers", json("name", "Juan dela Cruz", "email", "juan@example.ph")));
    Map<String, Object> lechon = new LinkedHashMap<>();
    lechon.put("description", "Lechon, whole (20 kg)");
    lechon.put("quantity", 1);
    lechon.put("unit_amount", new BigDecimal("8000.00"));
    Map<String, Object> pancit = new LinkedHashMap<>();
    pancit.put("description", "Pancit bilao (good for 15)");
    pancit.put("quantity", 2);
    pancit.put("unit_amount", new BigDecimal("1500.00"));
    LocalDate due = LocalDate.now(ZoneId.of("Asia/Manila")).plusDays(30);
    JsonNode draft =
        created(
            merchant.post(
                "/v1/invoices",
                json(
                    "customer_id",
                    id(customer),
                    "line_items",
                    List.of(lechon, pancit),
                    "deposit_rate",
                    new BigDecimal("0.5"),
                    "due_date",
                    due.toString(),
                    "notes",
                    "Salamat po! Delivery on the morning of the party.",
                    "terms",
                    "50% down to confirm the order, balance before delivery.")));
    assertEquals("draft", draft.get("status").asText(), draft.toString());
    assertAmount("11000.00", draft.get("amount"));
    JsonNode sent = ok(merchant.post("/v1/invoices/" + id(draft) + "/send", ""));
    assertEquals("sent", sent.get("status").asText(), sent.toString());
    String number = sent.get("number").asText();
    assertTrue(number.matches("INV-\\d{4}-\\d{4}"), number);
    String url = sent.get("url").asText();
    assertTrue(url.matches("https?://[^/]+/i/it_[A-Za-z0-9_-]{32}"), "url is /i/{token}: " + url);

    // The deposit, by card.
    browser.open(url);
    assertPage("inv-1-sent");
    assertEquals(MERCHANT_NAME, text("#merchant"));
    assertEquals(number, text("#invoice-number"));
    assertEquals("sent", invoiceStatus());
    assertEquals(2, browser.findAll(".line-item").size());
    assertTrue(text(".line-item").contains("Lechon, whole (20 kg)"), text(".line-item"));
    assertEquals("₱11,000.00", text("#total"));
    assertEquals("₱0.00", text("#amount-paid"));
    assertEquals("₱11,000.00", text("#amount-remaining"));
    assertEquals("₱5,500.00", text("#amount-due"));
    assertTrue(bodyText().contains("Deposit due now"), bodyText());
    assertTrue(bodyText().contains("Juan dela Cruz"), "the customer's name");
    assertFalse(browser.has("#invoice-form input[name=amount]"), "the deposit is fixed");
    assertTrue(browser.has("#invoice-form input[name=csrf]"));
    assertEquals(0, browser.findAll(".invoice-payment").size());
    assertInputsLabelled();
    chooseMethod("card");
    browser.find("#pay").click();

    awaitUrl("/checkout/ct_");
    assertPage("inv-2-checkout-card");
    assertEquals("₱5,500.00", text("#amount"));
    fillCard("4242 4242 4242 4242");
    browser.find("#pay-card").click();
    awaitReceipt();
    assertPage("inv-3-receipt-deposit");
    assertEquals("₱5,500.00", text("#receipt-amount"));
    String depositId = text("#reference");
    assertEquals(url, browser.find("#return").getAttribute("href"), "the receipt leads back");
    browser.find("#return").click();

    // Back on the invoice: the deposit is paid, the balance due now, by QR Ph.
    awaitUrl("/i/it_");
    assertPage("inv-4-partial");
    assertEquals("partial", invoiceStatus());
    assertEquals("₱5,500.00", text("#amount-paid"));
    assertEquals("₱5,500.00", text("#amount-remaining"));
    assertEquals("₱5,500.00", text("#amount-due"));
    List<WebElement> payments = browser.findAll(".invoice-payment");
    assertEquals(1, payments.size(), bodyText());
    assertTrue(payments.get(0).getText().contains("₱5,500.00"), payments.get(0).getText());
    chooseMethod("rail1_qr");
    browser.find("#pay").click();

    awaitUrl("/checkout/ct_");
    assertPage("inv-5-checkout-qr");
    assertEquals("₱5,500.00", text("#amount"));
    browser.find("#sandbox button[name=action][value=pay]").click();
    awaitReceipt();
    assertPage("inv-6-receipt-balance");
    String balanceId = text("#reference");
    browser.find("#return").click();

    awaitUrl("/i/it_");
    assertPage("inv-7-paid");
    assertEquals("paid", invoiceStatus());
    assertEquals("Paid", text("#invoice-status"));
    assertFalse(browser.has("#invoice-form"), "a paid invoice takes no payment");
    assertEquals("₱11,000.00", text("#amount-paid"));
    assertEquals("₱0.00", text("#amount-remaining"));
    payments = browser.findAll(".invoice-payment");
    assertEquals(2, payments.size(), bodyText());
    List<String> receipts = new ArrayList<>();
    for (WebElement payment : payments) {
      receipts.add(payment.findElement(By.cssSelector("a")).getAttribute("href"));
    }
    assertEquals(
        List.of(
            ok(merchant.get("/v1/payments/" + depositId)).get("receipt_url").asText(),
            ok(merchant.get("/v1/payments/" + balanceId)).get("receipt_url").asText()),
        receipts,
        "both payments, oldest first, each with its receipt");

    JsonNode paid = ok(merchant.get("/v1/invoices/" + id(draft)));
    assertEquals("paid", paid.get("status").asText(), paid.toString());
    assertAmount("11000.00", paid.get("amount_paid"));
    assertAmount("0", paid.get("amount_remaining"));
    assertTrue(paid.get("paid_at").isIntegralNumber(), paid.toString());
    assertEquals(balanceId, paid.get("payment_id").asText());
    JsonNode deposit = ok(merchant.get("/v1/payments/" + depositId));
    assertEquals("card", deposit.get("method").asText());
    assertEquals(url, deposit.get("return_url").asText());
    assertEquals(id(customer), deposit.get("customer_id").asText());
    assertFalse(browser.driver.getPageSource().contains(id(draft)), "no invoice id on the page");
  }

  /**
   * A payment that succeeds elsewhere (a QR paid from the phone while the invoice is open on a
   * laptop) shows on the open page without a reload by hand: the page polls its status.
   */
  @Test
  void anOpenInvoicePageShowsAPaymentThatSucceedsElsewhere() throws Exception {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("description", "Ube cake");
    line.put("quantity", 1);
    line.put("unit_amount", new BigDecimal("950.00"));
    JsonNode draft = created(merchant.post("/v1/invoices", json("line_items", List.of(line))));
    JsonNode sent = ok(merchant.post("/v1/invoices/" + id(draft) + "/send", ""));
    browser.open(sent.get("url").asText());
    assertEquals("sent", invoiceStatus());
    JsonNode payment =
        created(
            merchant.post(
                "/v1/payments", json("invoice_id", id(draft), "method", "bank_transfer")));
    ok(merchant.post("/v1/test_helpers/payments/" + id(payment) + "/succeed", ""));
    waitFor(
        "the open page to show the invoice paid",
        d -> {
          try {
            return "paid".equals(invoiceStatus());
          } catch (org.openqa.selenium.WebDriverException reloading) {
            return false;
          }
        });
    assertPage("inv-8-paid-elsewhere");
    assertEquals("₱950.00", text("#amount-paid"));
    assertEquals(1, browser.findAll(".invoice-payment").size());
  }

  // ------------------------------------------------------------------ page checks

  /**
   * What every page must be at phone width: English, the one stylesheet loaded, a {@code <main>},
   * nothing wider than 360 px, the test banner. Then the screenshot.
   */
  private static void assertPage(String screenshot) throws IOException {
    try {
      assertEquals("en", browser.find("html").getAttribute("lang"), screenshot);
      assertTrue(browser.has("main"), screenshot + ": a <main>");
      int width = browser.contentWidth();
      assertTrue(width <= Browser.WIDTH, screenshot + " is " + width + " px wide on a phone");
      assertEquals(
          Boolean.TRUE,
          browser.js(
              "const s = Array.from(document.styleSheets)"
                  + ".filter(x => x.href && x.href.endsWith('/assets/pages.css'));"
                  + "return s.length === 1 && s[0].cssRules.length > 0;"),
          screenshot + ": /assets/pages.css loaded");
      assertTrue(browser.find(".test-banner").isDisplayed(), screenshot + ": the test banner");
      assertFalse(browser.has("#error"), screenshot + ": " + bodyText());
    } finally {
      browser.screenshot(screenshot);
    }
  }

  private static void assertInputsLabelled() {
    Object unlabelled =
        browser.js(
            "return Array.from(document.querySelectorAll('input, select, textarea'))"
                + ".filter(i => i.type !== 'hidden' && i.type !== 'submit')"
                + ".filter(i => i.labels.length === 0 && !i.getAttribute('aria-label'))"
                + ".map(i => i.name + '=' + i.value);");
    assertEquals(List.of(), unlabelled, "form controls without a label");
  }

  private static String invoiceStatus() {
    return browser.find("#invoice-status").getAttribute("data-status");
  }

  private static String text(String css) {
    return browser.find(css).getText().strip();
  }

  private static String bodyText() {
    return browser.find("body").getText();
  }

  /** Chooses a method by its label, as a person taps it. */
  private static void chooseMethod(String method) {
    WebElement radio = browser.find("#invoice-form input[name=method][value='" + method + "']");
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

  private static void awaitUrl(String part) {
    waitFor("a page at …" + part, d -> d.getCurrentUrl().contains(part));
  }

  private static int timeouts;

  private static void waitFor(String what, java.util.function.Function<WebDriver, Boolean> done) {
    try {
      browser.waitUpTo(PAGE_SETTLE).until(done::apply);
    } catch (TimeoutException e) {
      String shows;
      try {
        shows = bodyText();
        browser.screenshot("inv-timeout-" + (++timeouts));
      } catch (RuntimeException | IOException unreadable) {
        shows = "(unreadable: " + unreadable + ")";
      }
      throw new AssertionError(
          "waited "
              + PAGE_SETTLE.toSeconds()
              + " s for "
              + what
              + "; the browser is at "
              + browser.driver.getCurrentUrl()
              + " showing:\n"
              + shows,
          e);
    }
  }

  // ------------------------------------------------------------------ the API side

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

  private static String json(Object... keysAndValues) {
    Map<String, Object> body = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      body.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    try {
      return Merchant.JSON.writeValueAsString(body);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
