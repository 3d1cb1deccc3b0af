package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static ph.payments.e2e.Merchant.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.SearchContext;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.WindowType;

/**
 * The embeddable panel (issue 18) in a real browser: a merchant's page on another origin (a JDK
 * {@link HttpServer} on a second port, under a strict Content-Security-Policy) loads {@code
 * /embed/v1/panel.js} from the gateway and mounts {@code <payments-panel>} with a token its server
 * minted through {@code POST /v1/embed_tokens}. Every tab is switched and compared with what the
 * API says; payments page with "Load more"; a payment opens with its event timeline; and once the
 * token's ttl has passed the panel shows its expired state, the page hears the DOM event and hands
 * it a fresh token. A customer-audience token then sees only that customer's payments and invoices.
 *
 * <p>On the {@link SharedSystem}. The page whose token expires is opened first, in a browser tab of
 * its own, with SPEC's shortest ttl (60 s), which passes in real time while the other tests run;
 * the last test reads it. Every other token has {@link #TTL_SECONDS}. All seeded payments end
 * settled, failed or expired before the panel is read, so the shared system's checkout expiry
 * ({@link SharedSystem#PAYMENT_EXPIRY}) changes nothing on show. Screenshots go to {@code
 * e2e/target/screenshots/embed-*.png}, at 360 px and on a desktop width.
 */
@ExtendWith(SharedSystem.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EmbedPanelBrowserE2EIT {

  private static final String MERCHANT_NAME = "Kapehan ni Juan";
  private static final Duration SETTLE = Duration.ofSeconds(30);
  private static final int TTL_SECONDS = 900;

  /** SPEC's shortest embed-token ttl: the token of the page whose expiry the last test sees. */
  private static final int SHORT_TTL_SECONDS = 60;

  private static final String XSS = "<img src=x onerror=\"document.title='xss'\">";

  private static SystemUnderTest system;
  private static Browser browser;
  private static Merchant merchant;
  private static HttpServer host;
  private static String hostUrl;
  private static String publicGatewayUrl;
  private static final String PROJECT = UUID.randomUUID().toString();

  /** Shaped like an ES256 JWT of ours, signed by nobody. */
  private static final String FORGED_TOKEN =
      "eyJhbGciOiJFUzI1NiIsImtpZCI6ImZvcmdlZCIsInR5cCI6IkpXVCJ9"
          + ".eyJzdWIiOiJtZXJfZm9yZ2VkIiwiZXhwIjo0MTAyNDQ0ODAwfQ"
          + ".c2lnbmVkLWJ5LW5vYm9keQ";

  private static String unreachableOrigin;

  private static JsonNode juan;
  private static JsonNode maria;
  private static final List<String> juansPayments = new ArrayList<>();
  private static String refundedPayment;
  private static String juansInvoice;
  private static String mariasInvoice;

  /** When the short-lived token of {@code ?ttl=short} expires, by its {@code expires_at}. */
  private static volatile Instant shortTokenExpires;

  /** The browser tab of the page with that token. */
  private static String expiringTab;

  @BeforeAll
  static void start(SystemUnderTest shared) throws Exception {
    Browser.requireInstalled();
    system = shared;
    publicGatewayUrl = "http://localhost:" + system.gatewayPort; // bin/run's PUBLIC_BASE_URL
    browser = Browser.start();
    Merchant operator = new Merchant(system.gatewayUrl(), system.adminToken);
    JsonNode signedUp =
        operator
            .post(
                "/admin/v1/merchants",
                json("name", MERCHANT_NAME, "email", "juan-" + PROJECT + "@kapehan.ph"))
            .created();
    // The seeding below and the comparisons are more than the default 100 calls a minute.
    operator
        .post(
            "/admin/v1/api_keys/" + signedUp.at("/api_keys/0/id").asText() + "/rate_limit",
            json("rate_limit_per_minute", 5000))
        .ok();
    merchant = new Merchant(system.gatewayUrl(), signedUp.at("/api_keys/0/secret").asText());
    host = hostPage();
    try (java.net.ServerSocket closed = new java.net.ServerSocket(0)) {
      unreachableOrigin = "http://127.0.0.1:" + closed.getLocalPort(); // nothing listens there now
    }
    // The page whose token expires, opened first (before the seeding) and read last (the last
    // test) while its ttl passes; the other tests use a tab of their own.
    openThePage("/?as=merchant&ttl=short", "ready");
    expiringTab = browser.driver.getWindowHandle();
    browser.driver.switchTo().newWindow(WindowType.TAB);
    seed();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (host != null) {
        host.stop(0);
      }
    } finally {
      if (browser != null) {
        browser.close();
      }
    }
  }

  // ------------------------------------------------------------------ the merchant's panel

  @Test
  @Order(1)
  void theMerchantsPanelShowsEveryTabPagesAndOpensATimeline() throws Exception {
    openThePage("/?as=merchant", "ready");
    assertEquals(
        List.of("payments", "payouts", "balance", "invoices", "customers", "events"),
        attributes(panel().findElements(By.cssSelector("[data-tab]")), "data-tab"),
        "a panel token without tabs: every tab a merchant may see, in order");
    assertEquals("true", selectedTab("payments").getAttribute("aria-selected"));

    // Payments: the first page, as GET /v1/payments lists it; amounts in pesos; status badges.
    List<JsonNode> payments = merchant.listAll("/v1/payments");
    assertTrue(payments.size() > 25, "seeded more than one page: " + payments.size());
    awaitRows("payments", 25);
    assertRowsMatch("payments", payments.subList(0, 25));
    assertTrue(has("[data-action='load-more']"), "more than 25: a Load more button");
    assertEscaped();
    assertFitsThePhone("embed-1-payments");

    // Load more: starting_after the last row, appended.
    click("[data-action='load-more']");
    awaitRows("payments", payments.size());
    assertRowsMatch("payments", payments);
    assertFalse(has("[data-action='load-more']"), "the last page: no Load more");
    browser.screenshot("embed-2-payments-all");

    // A payment's detail with its event timeline, the same events the API's expand=events gives.
    JsonNode refunded = merchant.get("/v1/payments/" + refundedPayment + "?expand=events").ok();
    click("[data-list='payments'] [data-id='" + refundedPayment + "'] .line");
    waitFor(
        "the timeline of " + refundedPayment,
        () ->
            panel().findElements(By.cssSelector("[data-event-type]")).size()
                    == refunded.get("events").size()
                && !has(".detail .loading"));
    List<String> types = new ArrayList<>();
    refunded.get("events").forEach(e -> types.add(e.get("type").asText()));
    assertFalse(types.isEmpty(), refunded.toString());
    assertEquals(
        types,
        attributes(panel().findElements(By.cssSelector("[data-event-type]")), "data-event-type"));
    String detail = panel().findElement(By.cssSelector(".detail")).getText();
    assertTrue(detail.contains(peso(refunded.get("amount").decimalValue())), detail);
    assertTrue(detail.contains("Ensaymada box"), detail);
    assertTrue(detail.contains(refundedPayment), "the reference: " + detail);
    assertEquals(
        refunded.get("receipt_url").asText(),
        panel().findElement(By.cssSelector("[data-action='receipt']")).getAttribute("href"),
        "the receipt (which lists the refund)");
    assertFitsThePhone("embed-3-payment-timeline");
    click("[data-action='back']");
    awaitRows("payments", payments.size());

    // The other tabs, each against its API.
    assertTabListsWhatTheApiLists("payouts", "embed-4-payouts");

    selectTab("balance");
    JsonNode balance = merchant.get("/v1/balance").ok();
    waitFor("the balance", () -> has("[data-list='balance'] [data-currency='PHP']"));
    assertEquals(
        peso(balance.at("/available/PHP").decimalValue()),
        panel()
            .findElement(By.cssSelector("[data-list='balance'] [data-currency='PHP'] .big"))
            .getText());
    assertFitsThePhone("embed-5-balance");

    assertTabListsWhatTheApiLists("invoices", "embed-6-invoices");

    selectTab("customers");
    List<JsonNode> customers = merchant.listAll("/v1/customers");
    awaitRows("customers", customers.size());
    assertEquals(ids(customers), rowIds("customers"));
    assertTrue(rowText("customers", id(maria)).contains("Maria Clara Santos"));
    assertFitsThePhone("embed-7-customers");

    selectTab("events");
    List<JsonNode> events = merchant.listAll("/v1/events");
    List<JsonNode> firstEvents = events.subList(0, Math.min(25, events.size()));
    awaitRows("events", firstEvents.size());
    assertEquals(ids(firstEvents), rowIds("events"));
    assertFitsThePhone("embed-8-events");

    // On a desktop the rows become one line each.
    browser.resizeViewport(1280, 900);
    selectTab("payments");
    awaitRows("payments", 25);
    browser.screenshot("embed-d1-desktop-payments");
    click("[data-list='payments'] [data-id='" + refundedPayment + "'] .line");
    waitFor("the timeline", () -> has("[data-event-type]") && !has(".detail .loading"));
    browser.screenshot("embed-d2-desktop-timeline");
    selectTab("events");
    awaitRows("events", firstEvents.size());
    browser.screenshot("embed-d3-desktop-events");
    browser.resizeViewport(Browser.WIDTH, Browser.HEIGHT);

    assertEquals(List.of(), violations(), "the page's CSP was never broken");
  }

  // ------------------------------------------------------------------ a customer's panel

  @Test
  @Order(2)
  void aCustomersPanelShowsOnlyTheirOwnPaymentsAndInvoices() throws Exception {
    openThePage("/?as=customer", "ready");
    assertEquals(
        List.of("payments", "invoices"),
        attributes(panel().findElements(By.cssSelector("[data-tab]")), "data-tab"),
        "a customer sees payments and invoices only");
    assertTrue(panel().findElement(By.cssSelector(".head")).getText().contains(MERCHANT_NAME));

    awaitRows("payments", juansPayments.size());
    assertEquals(juansPayments, rowIds("payments"), "exactly Juan's payments, oldest first");
    assertRowsMatch(
        "payments",
        juansPayments.stream().map(p -> merchant.get("/v1/payments/" + p).ok()).toList());
    assertFalse(has("[data-action='load-more']"));
    assertFitsThePhone("embed-c1-customer-payments");

    click("[data-list='payments'] [data-id='" + refundedPayment + "'] .line");
    waitFor("the timeline", () -> has("[data-event-type]") && !has(".detail .loading"));
    String detail = panel().findElement(By.cssSelector(".detail")).getText();
    assertFalse(detail.contains("Fee"), "a customer is not shown the merchant's fee: " + detail);
    assertFitsThePhone("embed-c2-customer-timeline");
    click("[data-action='back']");

    selectTab("invoices");
    awaitRows("invoices", 1);
    assertEquals(List.of(juansInvoice), rowIds("invoices"));
    assertEquals(
        merchant.get("/v1/invoices/" + juansInvoice).ok().get("url").asText(),
        panel()
            .findElement(By.cssSelector("[data-id='" + juansInvoice + "'] a.line"))
            .getAttribute("href"),
        "an open invoice leads to its page, where it is paid");
    assertFalse(rowIds("invoices").contains(mariasInvoice));
    assertFitsThePhone("embed-c3-customer-invoices");
    assertEquals(List.of(), violations(), "the page's CSP was never broken");
  }

  // ------------------------------------------------------------------ when things go wrong

  @Test
  @Order(3)
  void aForgedTokenIsTheExpiredStateAndAnUnreachableGatewayOffersARetry() throws Exception {
    openThePage("/?as=merchant&token=forged", "expired");
    assertFalse(has("[data-tab]"), "nothing is shown for a token the gateway never signed");
    waitFor(
        "the host page to hear the event",
        () -> "1".equals(browser.find("body").getAttribute("data-expired-events")));

    openThePage("/?as=merchant&api=unreachable", "error");
    String error = panel().findElement(By.cssSelector("[data-state='error']")).getText();
    assertTrue(error.contains("Can't reach the server"), error);
    assertFitsThePhone("embed-e1-unreachable");
    click("[data-action='retry']");
    waitFor(
        "the retry to fail again (nothing listens there)",
        () -> "error".equals(state()) && has("[data-action='retry']"));

    // The page corrects api-base: the panel starts over with it (and the same token).
    browser.js(
        "document.getElementById('panel').setAttribute('api-base', arguments[0]);",
        publicGatewayUrl);
    awaitState("ready");
    awaitRows("payments", 25);
    assertEquals(null, browser.find("body").getAttribute("data-expired-events"));
    assertEquals(List.of(), violations(), "the page's CSP was never broken");
  }

  // ------------------------------------------------------------------ the token's end

  /**
   * The page opened before the first test, whose token has SPEC's shortest ttl: once it has passed
   * (the gateway allows no leeway on {@code exp}), the next call is 401, the panel says so, and the
   * page hears the event and renews the token.
   */
  @Test
  @Order(4)
  void theMerchantsPanelExpiresAfterItsTtlAndThePageRenewsIt() throws Exception {
    browser.driver.switchTo().window(expiringTab);
    browser.resizeViewport(Browser.WIDTH, Browser.HEIGHT);
    assertEquals("ready", state(), "the page waited on its first tab, opened before the seeding");
    assertEquals(null, browser.find("body").getAttribute("data-expired-events"));
    Duration left = Duration.between(Instant.now(), shortTokenExpires).plusSeconds(2);
    if (!left.isNegative()) {
      System.out.println("waiting " + left.toMillis() + " ms for the page's token to expire");
      Thread.sleep(left.toMillis());
    }
    selectTab("payouts");
    awaitState("expired");
    assertTrue(has("[data-state='expired']"));
    String expired = panel().findElement(By.cssSelector("[data-state='expired']")).getText();
    assertTrue(expired.contains("This session has expired"), expired);
    waitFor(
        "the host page to hear the event",
        () -> "1".equals(browser.find("body").getAttribute("data-expired-events")));
    assertEquals("true", browser.find("body").getAttribute("data-expired-event-composed"));
    assertFalse(has("[data-list]"), "nothing of the merchant's data is left on show");
    assertFitsThePhone("embed-9-expired");

    // The page asks its server for a new token and sets it: the panel starts over where it was.
    browser.find("#renew").click();
    awaitState("ready");
    assertEquals("true", selectedTab("payouts").getAttribute("aria-selected"));
    awaitRows("payouts", merchant.listAll("/v1/payouts").size());
    assertEquals("1", browser.find("body").getAttribute("data-expired-events"), "only once");
    assertEquals(List.of(), violations(), "the page's CSP was never broken");
  }

  // ------------------------------------------------------------------ the merchant's data

  /**
   * Two customers, 28 payments (Juan's three, Maria's two, 23 walk-ins; some succeeded, one failed,
   * one expired, one partly refunded, one with markup in its description), a payout and invoices.
   */
  private static void seed() throws Exception {
    juan =
        merchant
            .post("/v1/customers", json("name", "Juan dela Cruz", "email", "juan@example.ph"))
            .created();
    maria =
        merchant
            .post("/v1/customers", json("name", "Maria Clara Santos", "phone", "+63 917 123 4567"))
            .created();

    String iced = payment("1234.50", "rail1_qr", "Iced coffee ×12", juan);
    juansPayments.add(iced);
    succeed(iced);
    refundedPayment = payment("250.00", "card", "Ensaymada box", juan);
    juansPayments.add(refundedPayment);
    succeed(refundedPayment);
    merchant
        .post(
            "/v1/refunds",
            json("payment", refundedPayment, "amount", new BigDecimal("50.00")),
            "Idempotency-Key",
            "refund-" + refundedPayment)
        .created();
    succeed(payment("99.00", "rail1_qr", "Pandesal", maria));
    String declined = payment("560.00", "ewallet1", "Halo-halo for four", maria);
    fail(declined);
    fail(payment("80.00", "rail1_qr", XSS, null));
    String expiredOne = payment("1500.00", "rail1_qr", "Lechon kawali tray", juan);
    juansPayments.add(expiredOne);
    expire(expiredOne);
    for (int i = 0; i < 22; i++) {
      String id =
          payment(
              new BigDecimal("120.00")
                  .add(new BigDecimal("35.25").multiply(BigDecimal.valueOf(i)))
                  .toPlainString(),
              i % 2 == 0 ? "rail1_qr" : "card",
              "Counter order #" + (1001 + i),
              null);
      // Nothing stays pending: the shared system expires an unpaid checkout after 45 s, which
      // would change rows and events while the panel is compared with the API.
      switch (i % 4) {
        case 3 -> expire(id);
        default -> succeed(id);
      }
    }

    // The ledger hears of the successes asynchronously: pay out once the balance is there.
    BigDecimal payout = new BigDecimal("500.00");
    waitForApi(
        "a balance of " + payout,
        () ->
            merchant.get("/v1/balance").ok().at("/available/PHP").decimalValue().compareTo(payout)
                >= 0);
    JsonNode paidOut =
        merchant
            .post(
                "/v1/payouts",
                json(
                    "amount",
                    payout,
                    "method",
                    "ewallet1",
                    "description",
                    "Weekly payout",
                    "destination",
                    Map.of("account_no", "09171234567")),
                "Idempotency-Key",
                "payout-1")
            .created();
    if (!paidOut.get("status").asText().equals("succeeded")) {
      // Settled now, so that no event arrives while the Events tab is compared with the API.
      merchant.post("/v1/test_helpers/payouts/" + id(paidOut) + "/succeed", "").ok();
    }

    juansInvoice = invoice(juan, "Lechon, whole (20 kg)", "2", "2500.00");
    mariasInvoice = invoice(maria, "Pancit bilao (good for 15)", "1", "800.00");
  }

  private static String payment(String amount, String method, String description, JsonNode who) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("amount", new BigDecimal(amount));
    body.put("method", method);
    body.put("description", description);
    if (who != null) {
      body.put("customer_id", id(who));
    }
    return id(
        merchant
            .post("/v1/payments", json(body), "Idempotency-Key", UUID.randomUUID().toString())
            .created());
  }

  private static void succeed(String payment) {
    merchant.post("/v1/test_helpers/payments/" + payment + "/succeed", "").ok();
  }

  private static void fail(String payment) {
    merchant.post("/v1/test_helpers/payments/" + payment + "/fail", "").ok();
  }

  private static void expire(String payment) {
    merchant.post("/v1/test_helpers/payments/" + payment + "/expire", "").ok();
  }

  private static String invoice(JsonNode who, String item, String quantity, String unitAmount) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("description", item);
    line.put("quantity", new BigDecimal(quantity));
    line.put("unit_amount", new BigDecimal(unitAmount));
    String id =
        id(
            merchant
                .post(
                    "/v1/invoices",
                    json(
                        "customer_id",
                        id(who),
                        "line_items",
                        List.of(line),
                        "due_date",
                        "2030-12-24"),
                    "Idempotency-Key",
                    UUID.randomUUID().toString())
                .created());
    merchant.post("/v1/invoices/" + id + "/send", "").ok();
    return id;
  }

  /** What the merchant's server does: mint a token for the page (POST /v1/embed_tokens). */
  private static String mint(String as, boolean shortLived) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("project_uuid", PROJECT);
    body.put("surface", "panel");
    body.put("ttl_seconds", shortLived ? SHORT_TTL_SECONDS : TTL_SECONDS);
    if (as.equals("customer")) {
      body.put("audience", "customer");
      body.put("scope_field", "customer_id");
      body.put("scope_value", id(juan));
    } else {
      body.put("audience", "merchant");
    }
    JsonNode token =
        merchant
            .post("/v1/embed_tokens", json(body), "Idempotency-Key", UUID.randomUUID().toString())
            .created();
    assertEquals("embed_token", token.get("object").asText(), token.toString());
    assertFalse(token.has("scope_value"), "the scope value is never echoed");
    if (shortLived) {
      shortTokenExpires = Instant.parse(token.get("expires_at").asText());
    }
    return token.get("token").asText();
  }

  // ------------------------------------------------------------------ the merchant's page

  /**
   * The merchant's own site, on another origin: the page with the panel (its token minted when the
   * page is served), the page's script (renews the token when the panel says it expired), the
   * page's stylesheet, and {@code /token}, the merchant server's endpoint that mints a fresh one.
   */
  private static HttpServer hostPage() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    hostUrl = "http://127.0.0.1:" + server.getAddress().getPort();
    String csp =
        "default-src 'none'; script-src 'self' "
            + publicGatewayUrl
            + "; connect-src 'self' "
            + publicGatewayUrl
            + "; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none';"
            + " frame-ancestors 'none'";
    server.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          try {
            switch (path) {
              case "/" -> servePage(exchange, csp);
              case "/host.js" -> send(exchange, "text/javascript; charset=utf-8", HOST_JS, null);
              case "/host.css" -> send(exchange, "text/css; charset=utf-8", HOST_CSS, null);
              case "/token" ->
                  send(exchange, "text/plain; charset=utf-8", mint(as(exchange), false), null);
              default -> send(exchange, 404, "text/plain; charset=utf-8", "not found", null);
            }
          } catch (RuntimeException | AssertionError e) {
            // The browser shows it, so a failing wait's message carries it.
            send(exchange, 500, "text/plain; charset=utf-8", "the merchant's server: " + e, null);
          }
        });
    server.start();
    return server;
  }

  /**
   * The page with the panel and a token minted now; {@code ?ttl=short} mints it with SPEC's
   * shortest ttl (the renewal {@code /token} never does), {@code ?token=forged} gives it a token
   * the gateway never signed, {@code ?api=unreachable} points {@code api-base} at a closed port.
   */
  private static void servePage(HttpExchange exchange, String csp) throws IOException {
    String query = String.valueOf(exchange.getRequestURI().getQuery());
    String token =
        query.contains("token=forged")
            ? FORGED_TOKEN
            : mint(as(exchange), query.contains("ttl=short"));
    String apiBase = query.contains("api=unreachable") ? unreachableOrigin : null;
    String policy =
        apiBase == null ? csp : csp.replace("connect-src 'self'", "connect-src 'self' " + apiBase);
    send(exchange, "text/html; charset=utf-8", page(token, apiBase), policy);
  }

  private static String as(HttpExchange exchange) {
    String query = exchange.getRequestURI().getQuery();
    return query != null && query.contains("as=customer") ? "customer" : "merchant";
  }

  private static String page(String token, String apiBase) {
    return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Kapehan ni Juan · Back office</title>
        <link rel="stylesheet" href="/host.css">
        </head>
        <body>
        <header class="bar"><strong>Kapehan ni Juan</strong> <span>Back office</span></header>
        <main>
        <h1>Sales</h1>
        <div id="renew-box" hidden>
        <p>Your session ended.</p>
        <button id="renew" type="button">Renew session</button>
        </div>
        <payments-panel id="panel" token="%s"%s></payments-panel>
        </main>
        <script src="%s/embed/v1/panel.js" async></script>
        <script src="/host.js"></script>
        </body>
        </html>
        """
        .formatted(
            attribute(token),
            apiBase == null ? "" : " api-base=\"" + attribute(apiBase) + "\"",
            publicGatewayUrl);
  }

  private static final String HOST_JS =
      """
      // The merchant's page: when the panel says its session expired, offer a fresh one.
      (function () {
        var panel = document.getElementById("panel");
        var box = document.getElementById("renew-box");
        var seen = 0;
        window.__violations = [];
        document.addEventListener("securitypolicyviolation", function (e) {
          window.__violations.push(e.violatedDirective + " " + e.blockedURI);
        });
        document.addEventListener("payments-panel:token-expired", function (event) {
          seen++;
          document.body.setAttribute("data-expired-events", String(seen));
          document.body.setAttribute("data-expired-event-composed",
            String(event.bubbles && event.composed && event.target === panel));
          box.hidden = false;
        });
        document.getElementById("renew").addEventListener("click", function () {
          fetch("/token" + location.search, { cache: "no-store" })
            .then(function (r) { return r.text(); })
            .then(function (token) { box.hidden = true; panel.setAttribute("token", token); });
        });
      })();
      """;

  private static final String HOST_CSS =
      """
      body { margin: 0; background: #f6f7f9; color: #1f2933;
        font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
      .bar { background: #1f2933; color: #fff; padding: 0.75rem 1rem; }
      .bar span { color: #cbd2d9; margin-left: 0.5rem; }
      main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
      h1 { font-size: 1.25rem; margin: 0 0 1rem; }
      #renew-box { background: #fff7e6; border: 1px solid #f0c36d; border-radius: 0.5rem;
        padding: 0.75rem 1rem; margin-bottom: 1rem; }
      #renew-box[hidden] { display: none; }
      #renew-box p { margin: 0 0 0.5rem; }
      """;

  private static void send(HttpExchange exchange, String type, String body, String csp)
      throws IOException {
    send(exchange, 200, type, body, csp);
  }

  private static void send(HttpExchange exchange, int status, String type, String body, String csp)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    if (csp != null) {
      exchange.getResponseHeaders().set("Content-Security-Policy", csp);
    }
    exchange.sendResponseHeaders(status, bytes.length);
    try (var out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static String attribute(String value) {
    return value
        .replace("&", "&amp;")
        .replace("\"", "&quot;")
        .replace("<", "&lt;")
        .replace(">", "&gt;");
  }

  // ------------------------------------------------------------------ the panel, in its shadow
  // root

  /** The merchant's page at phone size, once the panel reaches {@code state}. */
  private static void openThePage(String pathAndQuery, String state) {
    browser.resizeViewport(Browser.WIDTH, Browser.HEIGHT);
    browser.open(hostUrl + pathAndQuery);
    awaitState(state);
  }

  private static SearchContext panel() {
    return browser.find("payments-panel").getShadowRoot();
  }

  private static boolean has(String css) {
    return !panel().findElements(By.cssSelector(css)).isEmpty();
  }

  private static void click(String css) {
    panel().findElement(By.cssSelector(css)).click();
  }

  private static String state() {
    return panel().findElement(By.cssSelector(".panel")).getAttribute("data-state");
  }

  private static void awaitState(String state) {
    waitFor("the panel's state " + state, () -> state.equals(state()));
  }

  private static WebElement selectedTab(String tab) {
    return panel().findElement(By.cssSelector("[data-tab='" + tab + "']"));
  }

  private static void selectTab(String tab) {
    selectedTab(tab).click();
  }

  private static List<WebElement> rows(String tab) {
    return panel().findElements(By.cssSelector("[data-list='" + tab + "'] > [data-id]"));
  }

  private static List<String> rowIds(String tab) {
    return attributes(rows(tab), "data-id");
  }

  private static String rowText(String tab, String id) {
    return panel()
        .findElement(By.cssSelector("[data-list='" + tab + "'] > [data-id='" + id + "']"))
        .getText();
  }

  private static void awaitRows(String tab, int count) {
    waitFor(
        count + " rows of " + tab,
        () -> rows(tab).size() == count && !has("[data-list='" + tab + "'] ~ div .loading"));
  }

  /** The tab's rows are what {@code GET /v1/<tab>} lists (one page), then its screenshot. */
  private static List<JsonNode> assertTabListsWhatTheApiLists(String tab, String screenshot)
      throws IOException {
    selectTab(tab);
    List<JsonNode> all = merchant.listAll("/v1/" + tab);
    awaitRows(tab, all.size());
    assertRowsMatch(tab, all);
    assertFitsThePhone(screenshot);
    return all;
  }

  /** The rows are exactly these resources, each with its amount in pesos and its status badge. */
  private static void assertRowsMatch(String tab, List<JsonNode> resources) {
    assertEquals(ids(resources), rowIds(tab), tab);
    for (JsonNode resource : resources) {
      WebElement row =
          panel()
              .findElement(
                  By.cssSelector("[data-list='" + tab + "'] > [data-id='" + id(resource) + "']"));
      String text = row.getText();
      assertTrue(
          text.contains(peso(resource.get("amount").decimalValue())),
          id(resource) + " shows " + resource.get("amount") + ": " + text);
      String status = resource.get("status").asText();
      WebElement badge = row.findElement(By.cssSelector(".badge"));
      assertTrue(
          badge.getAttribute("class").contains("status-" + status),
          id(resource) + ": " + badge.getAttribute("class"));
    }
  }

  /** A description with markup is text: no element came of it and no handler ran. */
  private static void assertEscaped() {
    assertTrue(
        rows("payments").stream().anyMatch(r -> r.getText().contains(XSS)),
        "the description as typed");
    assertTrue(panel().findElements(By.cssSelector("img")).isEmpty(), "no <img> from data");
    assertFalse("xss".equals(browser.driver.getTitle()), "no handler ran");
  }

  /** Nothing wider than the phone, then the screenshot. */
  private static void assertFitsThePhone(String screenshot) throws IOException {
    try {
      int width = browser.contentWidth();
      assertTrue(width <= Browser.WIDTH, screenshot + " is " + width + " px wide on a phone");
    } finally {
      browser.screenshot(screenshot);
    }
  }

  @SuppressWarnings("unchecked")
  private static List<Object> violations() {
    return (List<Object>) browser.js("return window.__violations || [];");
  }

  private static List<String> attributes(List<WebElement> elements, String name) {
    return elements.stream().map(e -> e.getAttribute(name)).toList();
  }

  private static int timeouts;

  private static void waitFor(String what, Supplier<Boolean> done) {
    try {
      browser
          .waitUpTo(SETTLE)
          .ignoring(StaleElementReferenceException.class)
          .until(d -> done.get());
    } catch (TimeoutException e) {
      String shows;
      try {
        shows =
            browser.has("payments-panel")
                ? browser.find("payments-panel").getText()
                : "(no panel) " + browser.find("body").getText();
        browser.screenshot("embed-timeout-" + (++timeouts));
      } catch (RuntimeException | IOException unreadable) {
        shows = "(unreadable: " + unreadable + ")";
      }
      throw new AssertionError(
          "waited " + SETTLE.toSeconds() + " s for " + what + "; the panel shows:\n" + shows, e);
    }
  }

  private static void waitForApi(String what, Supplier<Boolean> done) throws InterruptedException {
    long deadline = System.nanoTime() + SETTLE.toNanos();
    while (!done.get()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("waited " + SETTLE.toSeconds() + " s for " + what);
      }
      Thread.sleep(200);
    }
  }

  // ------------------------------------------------------------------ small things

  private static String id(JsonNode resource) {
    return resource.get("id").asText();
  }

  private static List<String> ids(List<JsonNode> resources) {
    return resources.stream().map(EmbedPanelBrowserE2EIT::id).toList();
  }

  /** As the panel writes pesos: {@code ₱1,234.50}. */
  private static String peso(BigDecimal amount) {
    return "₱"
        + new DecimalFormat("#,##0.00", DecimalFormatSymbols.getInstance(Locale.ROOT))
            .format(amount);
  }
}
