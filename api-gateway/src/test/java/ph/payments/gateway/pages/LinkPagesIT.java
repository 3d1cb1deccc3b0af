package ph.payments.gateway.pages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.OutputStream;
import java.net.CookieManager;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Operator;
import ph.payments.gateway.support.Sql;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * The link pages and the checkout forms against a stand-in for payments-service's public reads (the
 * real reads and the link payment rules are payments-service's, tested there and end to end): what
 * the pages render from the contract's JSON, which refusals they show as which SPEC code and
 * status, and what command a form writes (merchant and environment from the read, never the form;
 * one command per form however often it is sent; no card number in it). No owner answers the
 * commands, so a form's answer is the late one.
 */
@MicronautTest
class LinkPagesIT extends GatewayTest {

  private static final HttpClient HTTP_PLAIN = HttpClient.newHttpClient();
  private static HttpServer owner;
  private static final Map<String, String> links = new ConcurrentHashMap<>();
  private static final Map<String, String> checkouts = new ConcurrentHashMap<>();

  @Inject Transactions transactions;

  @Override
  protected Map<String, String> extraProperties() {
    try {
      owner = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    owner.createContext("/internal/public/links/", exchange -> answer(exchange, links));
    owner.createContext("/internal/public/checkouts/", exchange -> answer(exchange, checkouts));
    owner.start();
    Map<String, String> properties = new HashMap<>();
    properties.put(
        "gateway.services.payments-url", "http://127.0.0.1:" + owner.getAddress().getPort());
    properties.put("gateway.commands.reply-timeout", "300ms");
    return properties;
  }

  private static void answer(com.sun.net.httpserver.HttpExchange exchange, Map<String, String> in)
      throws IOException {
    String path = exchange.getRequestURI().getPath();
    String key = path.substring(path.lastIndexOf('/') + 1);
    String body = in.get(key);
    int status = body == null ? 404 : 200;
    if (body == null) {
      body = "{\"error\":{\"code\":\"not_found\",\"message\":\"No such thing.\"}}";
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
  void anOpenAmountStaticQrLinkAsksForTheAmountAndPreselectsItsMethod() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Kapehan ni Juan");
    ObjectNode link = link(merchant.id(), "test", null, null);
    ObjectNode qr = link.putObject("static_qr");
    qr.put("name", "Counter 1").put("location", "Ground floor").put("default_method", "rail1_qr");
    qr.put("archived", false);
    links.put(link.get("slug").asText(), Json.toText(link));

    Browser browser = new Browser();
    HttpResponse<String> page = browser.get("/l/" + link.get("slug").asText());
    assertEquals(200, page.statusCode(), page.body());
    assertEquals("Kapehan ni Juan", text(page.body(), "merchant"));
    assertEquals("Kape &amp; &lt;b&gt;pandesal&lt;/b&gt;", text(page.body(), "description"));
    assertTrue(page.body().contains("name=\"amount\""));
    assertTrue(page.body().contains("inputmode=\"decimal\""));
    assertTrue(
        Pattern.compile("value=\"rail1_qr\"[^>]*checked").matcher(page.body()).find(), page.body());
    assertFalse(Pattern.compile("value=\"card\"[^>]*checked").matcher(page.body()).find());
    assertTrue(page.body().contains("value=\"card\""));
    assertTrue(page.body().contains("id=\"link-image\""));
    assertFalse(page.body().contains(merchant.id()), "the merchant id is never rendered");
    String cookie = page.headers().firstValue("Set-Cookie").orElse("");
    assertTrue(cookie.startsWith("csrf="), cookie);
    assertTrue(cookie.toLowerCase().contains("httponly"), cookie);
    assertTrue(cookie.contains("SameSite=Strict"), cookie);

    HttpResponse<String> print = browser.get("/l/" + link.get("slug").asText() + "/print");
    assertEquals(200, print.statusCode());
    assertEquals("Counter 1", text(print.body(), "qr-name"));
    assertEquals("Ground floor", text(print.body(), "qr-location"));
    assertTrue(print.body().contains("src=\"/l/" + link.get("slug").asText() + "/qr.svg\""));
    HttpResponse<String> svg = browser.get("/l/" + link.get("slug").asText() + "/qr.svg");
    assertEquals(200, svg.statusCode());
    assertTrue(svg.body().startsWith("<svg"));
  }

  @Test
  void aFixedLinkShowsItsAmountAndMethodAndClosedLinksSayWhy() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Fixed Shop");
    ObjectNode fixed = link(merchant.id(), "test", "150.00", "card");
    links.put(fixed.get("slug").asText(), Json.toText(fixed));
    HttpResponse<String> page = new Browser().get("/l/" + fixed.get("slug").asText());
    assertEquals("₱150.00", text(page.body(), "amount"));
    assertFalse(page.body().contains("name=\"amount\""));
    assertTrue(page.body().contains("type=\"hidden\" name=\"method\" value=\"card\""));

    ObjectNode inactive = link(merchant.id(), "test", null, null).put("status", "inactive");
    ObjectNode expired = link(merchant.id(), "test", null, null).put("expired", true);
    ObjectNode archived = link(merchant.id(), "test", null, null);
    archived.putObject("static_qr").put("name", "Old").put("archived", true);
    Map<ObjectNode, String> expected =
        Map.of(
            inactive,
            "409 link_inactive",
            expired,
            "410 link_expired",
            archived,
            "409 link_inactive");
    for (Map.Entry<ObjectNode, String> e : expected.entrySet()) {
      String slug = e.getKey().get("slug").asText();
      links.put(slug, Json.toText(e.getKey()));
      Browser browser = new Browser();
      HttpResponse<String> closed = browser.get("/l/" + slug);
      assertEquals(e.getValue(), closed.statusCode() + " " + code(closed.body()), closed.body());
      // A form kept open from before is refused the same way.
      HttpResponse<String> posted =
          browser.post(
              "/l/" + slug,
              Map.of(
                  "csrf",
                  browser.csrfFor("/l/" + fixed.get("slug").asText()),
                  "amount",
                  "10",
                  "method",
                  "card"));
      assertEquals(e.getValue(), posted.statusCode() + " " + code(posted.body()));
    }
    assertEquals(404, new Browser().get("/l/AAAAAAAAAAAAAAAA").statusCode());
  }

  @Test
  void aLinkFormIsCheckedThenSentOnceWithTheMerchantAndEnvironmentOfTheLink() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Once Only");
    ObjectNode link = link(merchant.id(), "live", null, null);
    String slug = link.get("slug").asText();
    links.put(slug, Json.toText(link));
    Browser browser = new Browser();
    String csrf = browser.csrfFor("/l/" + slug);

    HttpResponse<String> noAmount =
        browser.post("/l/" + slug, Map.of("csrf", csrf, "method", "card"));
    assertEquals("400 amount_required", noAmount.statusCode() + " " + code(noAmount.body()));
    HttpResponse<String> noMethod =
        browser.post("/l/" + slug, Map.of("csrf", csrf, "amount", "1,500"));
    assertEquals("400 method_required", noMethod.statusCode() + " " + code(noMethod.body()));
    assertTrue(noMethod.body().contains("value=\"1,500\""), "the typed amount stays");
    HttpResponse<String> badAmount =
        browser.post("/l/" + slug, Map.of("csrf", csrf, "amount", "0", "method", "card"));
    assertEquals("400 invalid_request", badAmount.statusCode() + " " + code(badAmount.body()));
    HttpResponse<String> badMethod =
        browser.post("/l/" + slug, Map.of("csrf", csrf, "amount", "5", "method", "carrier_pigeon"));
    assertEquals("400 invalid_request", badMethod.statusCode() + " " + code(badMethod.body()));
    Sql sql = new Sql(transactions);
    assertEquals(
        0, sql.number("SELECT count(*) FROM commands WHERE merchant_id = ?", merchant.id()));

    Map<String, String> form = new LinkedHashMap<>();
    form.put("csrf", csrf);
    form.put("amount", "1,500");
    form.put("method", "card");
    form.put("merchant_id", "mer_someone_else");
    form.put("environment", "test");
    HttpResponse<String> sent = browser.post("/l/" + slug, form);
    assertEquals(503, sent.statusCode(), "no owner answers here: the late answer");
    assertEquals(
        1, sql.number("SELECT count(*) FROM commands WHERE merchant_id = ?", merchant.id()));
    assertEquals(
        "live|payments.create",
        sql.text(
            "SELECT environment || '|' || command_type FROM commands WHERE merchant_id = ?",
            merchant.id()));
    JsonNode body =
        Json.tree(
            sql.text("SELECT request::text FROM commands WHERE merchant_id = ?", merchant.id()));
    assertEquals(link.get("id").asText(), body.get("payment_link_id").asText());
    assertEquals("1500.00", body.get("amount").decimalValue().toPlainString());
    assertEquals("card", body.get("method").asText());
    assertEquals("Once Only", body.get("merchant_name").asText());
    assertFalse(body.has("merchant_id"));

    // The same form again (a double click, a resend): still one command.
    browser.post("/l/" + slug, form);
    assertEquals(
        1, sql.number("SELECT count(*) FROM commands WHERE merchant_id = ?", merchant.id()));
    assertEquals(
        0, sql.number("SELECT count(*) FROM commands WHERE merchant_id = 'mer_someone_else'"));
  }

  @Test
  void theCardNumberNeverLeavesTheGatewayAndLivePaymentsHaveNoSandbox() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Card Shop");
    String test = "ct_" + "T".repeat(31) + "1";
    String live = "ct_" + "L".repeat(31) + "1";
    checkouts.put(test, checkout(merchant.id(), "test", "pay_01testtesttesttesttesttest1"));
    checkouts.put(live, checkout(merchant.id(), "live", "pay_01livelivelivelivelivelive1"));

    Browser browser = new Browser();
    HttpResponse<String> page = browser.get("/checkout/" + test);
    assertEquals(200, page.statusCode(), page.body());
    assertTrue(page.body().contains("id=\"card-form\""));
    String csrf = csrf(page.body());
    HttpResponse<String> sent =
        browser.post(
            "/checkout/" + test + "/card",
            Map.of(
                "csrf",
                csrf,
                "card_number",
                "4000 0000 0000 0002",
                "expiry",
                "12/39",
                "cvc",
                "123"));
    assertEquals(303, sent.statusCode(), sent.body());
    Sql sql = new Sql(transactions);
    String request =
        sql.text("SELECT request::text FROM commands WHERE merchant_id = ?", merchant.id());
    JsonNode body = Json.tree(request);
    assertEquals("card", body.get("action").asText());
    assertEquals("card_declined", body.get("scenario").asText());
    assertEquals("0002", body.get("card_last4").asText());
    assertFalse(request.contains("4000000000000002") || request.contains("4000 0000"), request);
    assertEquals(
        "pay_01testtesttesttesttesttest1|test|checkout.sandbox_action",
        sql.text(
            "SELECT resource_id || '|' || environment || '|' || command_type FROM commands"
                + " WHERE merchant_id = ?",
            merchant.id()));
    assertEquals(
        "form_",
        sql.text(
            "SELECT left(idempotency_key, 5) FROM idempotency_keys WHERE merchant_id = ?",
            merchant.id()),
        "the form's key is a hash of its token, never the cookie");

    HttpResponse<String> livePage = browser.get("/checkout/" + live);
    assertEquals(200, livePage.statusCode());
    assertFalse(livePage.body().contains("id=\"card-form\""));
    assertFalse(livePage.body().contains("test-banner"));
    HttpResponse<String> forged =
        browser.post(
            "/checkout/" + live + "/card",
            Map.of(
                "csrf", csrf, "card_number", "4242424242424242", "expiry", "12/39", "cvc", "123"));
    assertEquals(404, forged.statusCode());
    HttpResponse<String> forgedButton =
        browser.post("/checkout/" + live + "/sandbox", Map.of("csrf", csrf, "action", "pay"));
    assertEquals(404, forgedButton.statusCode());
    assertEquals(
        0,
        sql.number(
            "SELECT count(*) FROM commands WHERE merchant_id = ? AND environment = 'live'",
            merchant.id()));
  }

  private static ObjectNode link(
      String merchantId, String environment, String amount, String method) {
    String slug = randomSlug();
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("id", "plk_01" + slug.toLowerCase());
    json.put("merchant_id", merchantId);
    json.put("environment", environment);
    json.put("slug", slug);
    json.put("url", "http://localhost:8080/l/" + slug);
    json.put("description", "Kape & <b>pandesal</b>");
    json.put("image_url", "https://images.example.com/kape.png");
    if (amount == null) {
      json.putNull("amount");
    } else {
      json.put("amount", new java.math.BigDecimal(amount));
    }
    json.put("currency", "PHP");
    json.put("method", method);
    var methods = json.putArray("methods");
    if (method != null) {
      methods.add(method);
    } else {
      methods.add("card").add("ewallet1").add("rail1_qr");
    }
    json.put("status", "active");
    json.put("expired", false);
    json.putNull("expires_at");
    json.putNull("success_url");
    json.putNull("cancel_url");
    json.putNull("static_qr");
    return json;
  }

  private static String checkout(String merchantId, String environment, String reference) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("merchant_id", merchantId);
    json.put("reference", reference);
    json.put("environment", environment);
    json.put("status", "pending");
    json.put("amount", new java.math.BigDecimal("99.00"));
    json.put("currency", "PHP");
    json.put("method", "card");
    json.putNull("description");
    json.putNull("qr_code");
    json.putNull("app_link");
    json.putNull("return_url");
    json.putNull("cancel_url");
    json.putNull("expires_at");
    json.putNull("failure");
    json.putNull("next_action");
    json.putArray("refunds");
    json.putNull("transfer");
    return Json.toText(json);
  }

  private static String randomSlug() {
    String letters = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    StringBuilder slug = new StringBuilder();
    java.util.Random random = new java.security.SecureRandom();
    for (int i = 0; i < 16; i++) {
      slug.append(letters.charAt(random.nextInt(letters.length())));
    }
    return slug.toString();
  }

  private static String text(String body, String id) {
    Matcher m =
        Pattern.compile("id=\"" + Pattern.quote(id) + "\"[^>]*>(.*?)</", Pattern.DOTALL)
            .matcher(body);
    return m.find() ? m.group(1).replaceAll("<[^>]+>", "").replaceAll("\\s+", " ").trim() : null;
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
      String body =
          fields.entrySet().stream()
              .map(
                  e ->
                      URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8)
                          + "="
                          + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
              .collect(Collectors.joining("&"));
      return http.send(
          HttpRequest.newBuilder(URI.create(server.getURL() + path))
              .header("Content-Type", "application/x-www-form-urlencoded")
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    }
  }
}
