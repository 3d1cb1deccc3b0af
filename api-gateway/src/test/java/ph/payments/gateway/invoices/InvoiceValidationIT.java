package ph.payments.gateway.invoices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;

/**
 * The invoice routes' body rules and limits at their edges (SPEC parts 2 and 8), list parameters,
 * ids, scopes and the command path, over real HTTP, as {@code PaymentLinkValidationIT}: a refused
 * request never reaches payments-service (none runs here); a valid creation times out as 202 with
 * the id, a valid update or action as 503.
 */
@MicronautTest
class InvoiceValidationIT extends GatewayTest {

  private static final String INVOICE = "inv_01jd3k4m5n6p7q8r9s0t1v2w3x";
  private static final String LINE =
      "{\"description\":\"Lechon\",\"quantity\":1,\"unit_amount\":100}";

  private Operator.Merchant merchant;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("gateway.commands.reply-timeout", "200ms");
  }

  @BeforeAll
  void merchant() {
    merchant = operator().createMerchant("Invoice Store");
    operator().setRateLimit(merchant.testKeyId(), 10_000);
  }

  /** A valid body with one line and {@code extra} (a JSON fragment) appended. */
  private static String with(String extra) {
    return "{\"line_items\":[" + LINE + "]" + (extra.isEmpty() ? "" : "," + extra) + "}";
  }

  private static String lineWith(String fragment) {
    return "{\"line_items\":[{\"description\":\"x\",\"quantity\":1,\"unit_amount\":1,"
        + fragment
        + "}]}";
  }

  private static String lines(int count) {
    return "{\"line_items\":["
        + String.join(",", java.util.Collections.nCopies(count, LINE))
        + "]}";
  }

  static Stream<Arguments> refusedCreations() {
    return Stream.of(
        Arguments.of("{}", "line_items"),
        Arguments.of("{\"line_items\":null}", "line_items"),
        Arguments.of("{\"line_items\":[]}", "line_items"),
        Arguments.of(lines(51), "line_items"),
        Arguments.of("{\"line_items\":{}}", "line_items"),
        Arguments.of(
            "{\"line_items\":[{\"quantity\":1,\"unit_amount\":1}]}", "line_items[0].description"),
        Arguments.of(
            "{\"line_items\":[{\"description\":\"\",\"quantity\":1,\"unit_amount\":1}]}",
            "line_items[0].description"),
        Arguments.of(
            "{\"line_items\":[{\"description\":\""
                + "d".repeat(501)
                + "\",\"quantity\":1,"
                + "\"unit_amount\":1}]}",
            "line_items[0].description"),
        Arguments.of(
            "{\"line_items\":[{\"description\":\"x\",\"unit_amount\":1}]}",
            "line_items[0].quantity"),
        Arguments.of(
            lineWith("\"quantity\":0").replace("\"quantity\":1,", ""), "line_items[0].quantity"),
        Arguments.of(
            "{\"line_items\":[{\"description\":\"x\",\"quantity\":-1,\"unit_amount\":1}]}",
            "line_items[0].quantity"),
        Arguments.of(
            "{\"line_items\":[{\"description\":\"x\",\"quantity\":\"2\",\"unit_amount\":1}]}",
            "line_items[0].quantity"),
        Arguments.of(
            "{\"line_items\":[{\"description\":\"x\",\"quantity\":1}]}",
            "line_items[0].unit_amount"),
        Arguments.of(
            "{\"line_items\":[{\"description\":\"x\",\"quantity\":1,\"unit_amount\":-0.01}]}",
            "line_items[0].unit_amount"),
        Arguments.of(lineWith("\"amount\":-0.01"), "line_items[0].amount"),
        Arguments.of(lineWith("\"amount\":0.001"), "line_items[0].amount"),
        Arguments.of(lineWith("\"tax\":1"), "line_items[0].tax"),
        Arguments.of(with("\"description\":\"" + "d".repeat(501) + "\""), "description"),
        Arguments.of(with("\"notes\":\"" + "n".repeat(2001) + "\""), "notes"),
        Arguments.of(with("\"terms\":\"" + "t".repeat(2001) + "\""), "terms"),
        Arguments.of(with("\"tax_amount\":-0.01"), "tax_amount"),
        Arguments.of(with("\"discount_amount\":-1"), "discount_amount"),
        Arguments.of(with("\"currency\":\"php\""), "currency"),
        Arguments.of(with("\"due_date\":\"2030-02-30\""), "due_date"),
        Arguments.of(with("\"due_date\":\"2030-1-01\""), "due_date"),
        Arguments.of(with("\"due_date\":\"2030-01-01T00:00:00Z\""), "due_date"),
        Arguments.of(with("\"deposit_rate\":0"), "deposit_rate"),
        Arguments.of(with("\"deposit_rate\":1"), "deposit_rate"),
        Arguments.of(with("\"deposit_rate\":-0.5"), "deposit_rate"),
        Arguments.of(with("\"deposit_rate\":\"0.5\""), "deposit_rate"),
        Arguments.of(with("\"allow_partial_payment\":\"yes\""), "allow_partial_payment"),
        Arguments.of(with("\"customer_id\":\"cust_1\""), "customer_id"),
        Arguments.of(with("\"shipment_id\":\"shipment_1\""), "shipment_id"),
        Arguments.of(with("\"shipment_id\":\"shp_\""), "shipment_id"),
        Arguments.of(with("\"metadata\":[]"), "metadata"),
        Arguments.of(with("\"status\":\"paid\""), "status"),
        Arguments.of(with("\"number\":\"INV-2026-0001\""), "number"));
  }

  @ParameterizedTest(name = "[{index}] refused on {1}")
  @MethodSource("refusedCreations")
  void eachCreationRuleNamesItsField(String body, String field) {
    Http.Response response = http().post("/v1/invoices", merchant.testSecret(), body);
    assertEquals(400, response.status(), response.body());
    assertEquals("invalid_request", response.errorCode());
    assertTrue(
        response.json().get("error").get("issues").has(field), field + ": " + response.body());
  }

  static Stream<String> acceptedCreations() {
    return Stream.of(
        with(""),
        lines(1),
        lines(50),
        "{\"line_items\":[{\"description\":\""
            + "d".repeat(500)
            + "\",\"quantity\":0.0001,"
            + "\"unit_amount\":0}]}",
        lineWith("\"amount\":0"),
        lineWith("\"amount\":999999999999"),
        with("\"description\":\"" + "d".repeat(500) + "\""),
        with("\"notes\":\"" + "n".repeat(2000) + "\",\"terms\":\"" + "t".repeat(2000) + "\""),
        with("\"tax_amount\":0,\"discount_amount\":0"),
        with("\"currency\":\"USD\""),
        with("\"due_date\":\"2030-12-31\""),
        with("\"deposit_rate\":0.0001"),
        with("\"deposit_rate\":0.9999"),
        with("\"allow_partial_payment\":true"),
        with("\"customer_id\":\"cus_01jd3k4m5n6p7q8r9s0t1v2w3x\""),
        with("\"shipment_id\":\"shp_01jd3k4m5n6p7q8r9s0t1v2w3x\""),
        with("\"metadata\":{\"order\":\"A-1\"}"));
  }

  @ParameterizedTest(name = "[{index}] accepted")
  @MethodSource("acceptedCreations")
  void bodiesAtTheLimitsAreAccepted(String body) {
    Http.Response response = http().post("/v1/invoices", merchant.testSecret(), body);
    assertEquals(202, response.status(), response.body());
    assertEquals("invoice", response.json().get("object").asText());
    assertTrue(response.json().get("id").asText().startsWith("inv_"));
    assertTrue(response.header("Location").orElse("").startsWith("/v1/invoices/inv_"));
  }

  @ParameterizedTest(name = "update {0} refused on {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"line_items\":null}           | line_items",
        "{\"line_items\":[]}             | line_items",
        "{\"allow_partial_payment\":null} | allow_partial_payment",
        "{\"metadata\":null}             | metadata",
        "{\"currency\":\"PHP\"}          | currency",
        "{\"deposit_rate\":0.5}          | deposit_rate",
        "{\"shipment_id\":\"shp_1\"}     | shipment_id",
        "{\"tax_amount\":-1}             | tax_amount",
        "{\"due_date\":\"31/12/2030\"}   | due_date"
      })
  void eachUpdateRuleNamesItsField(String body, String field) {
    for (String method : List.of("PATCH", "POST")) {
      Http.Response response =
          http().send(method, "/v1/invoices/" + INVOICE, merchant.testSecret(), body.strip());
      assertEquals(400, response.status(), method + " " + response.body());
      assertTrue(response.json().get("error").get("issues").has(field), response.body());
    }
  }

  @ParameterizedTest(name = "update {0} passes validation")
  @ValueSource(
      strings = {
        "{}",
        "{\"notes\":null,\"terms\":null,\"description\":null,\"due_date\":null,"
            + "\"customer_id\":null}",
        "{\"line_items\":[{\"description\":\"x\",\"quantity\":2,\"unit_amount\":5}],"
            + "\"tax_amount\":1,\"discount_amount\":1,\"allow_partial_payment\":false}"
      })
  void validUpdatesReachTheOwner(String body) {
    for (String method : List.of("PATCH", "POST")) {
      Http.Response response =
          http().send(method, "/v1/invoices/" + INVOICE, merchant.testSecret(), body);
      assertEquals(503, response.status(), method + " " + response.body());
    }
  }

  @Test
  void actionsTakeNoBodyAndReachTheOwner() {
    for (String action : List.of("send", "void")) {
      String path = "/v1/invoices/" + INVOICE + "/" + action;
      assertEquals(503, http().post(path, merchant.testSecret(), "").status(), action);
      assertEquals(503, http().post(path, merchant.testSecret(), "{}").status(), action);
      Http.Response body = http().post(path, merchant.testSecret(), "{\"x\":1}");
      assertEquals(400, body.status(), action);
    }
  }

  @ParameterizedTest(name = "GET /v1/invoices?{0} is refused on {1}")
  @CsvSource({
    "status=open, status",
    "status=, status",
    "customer_id=cust_1, customer_id",
    "limit=0, limit",
    "limit=101, limit",
    "starting_after=x, starting_after"
  })
  void listParametersAreChecked(String query, String field) {
    Http.Response response = http().get("/v1/invoices?" + query, merchant.testSecret());
    assertEquals(400, response.status(), response.body());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  @ParameterizedTest(name = "{0} {1} is 404")
  @CsvSource({
    "GET, /v1/invoices/inv_x",
    "GET, /v1/invoices/pay_01jd3k4m5n6p7q8r9s0t1v2w3x",
    "PATCH, /v1/invoices/inv_x",
    "POST, /v1/invoices/inv_x",
    "POST, /v1/invoices/inv_x/send",
    "POST, /v1/invoices/plk_01jd3k4m5n6p7q8r9s0t1v2w3x/void"
  })
  void malformedIdsAreNotFound(String method, String path) {
    Http.Response response = http().send(method, path, merchant.testSecret(), "{}");
    assertEquals(404, response.status(), response.body());
    assertEquals("not_found", response.errorCode());
  }

  @Test
  void scopesAreRequired() {
    Operator.Key readOnly = operator().createKey(merchant.id(), "test", List.of("invoices:read"));
    Operator.Key paymentsOnly =
        operator().createKey(merchant.id(), "test", List.of("payments:read", "payments:write"));
    for (Operator.Key key : List.of(readOnly, paymentsOnly)) {
      assertEquals(403, http().post("/v1/invoices", key.secret(), with("")).status());
      assertEquals(
          403, http().send("PATCH", "/v1/invoices/" + INVOICE, key.secret(), "{}").status());
      assertEquals(
          403, http().post("/v1/invoices/" + INVOICE + "/send", key.secret(), "").status());
      assertEquals(
          403, http().post("/v1/invoices/" + INVOICE + "/void", key.secret(), "").status());
    }
    assertEquals(403, http().get("/v1/invoices", paymentsOnly.secret()).status());
    assertEquals(403, http().get("/v1/invoices/" + INVOICE, paymentsOnly.secret()).status());
    assertNotEquals(403, http().get("/v1/invoices", readOnly.secret()).status());
    Operator.Key writer = operator().createKey(merchant.id(), "test", List.of("invoices:write"));
    assertEquals(202, http().post("/v1/invoices", writer.secret(), with("")).status());
  }

  @ParameterizedTest(name = "payment body {0} refused on {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"invoice_id\":\"inv_x\",\"method\":\"card\"} | invoice_id",
        "{\"invoice_id\":\"plk_01jd3k4m5n6p7q8r9s0t1v2w3x\",\"method\":\"card\"} | invoice_id",
        "{\"invoice_id\":\"inv_01jd3k4m5n6p7q8r9s0t1v2w3x\"} | method",
        "{\"invoice_id\":\"inv_01jd3k4m5n6p7q8r9s0t1v2w3x\",\"method\":\"card\",\"amount\":0} "
            + "| amount",
        "{\"invoice_id\":\"inv_01jd3k4m5n6p7q8r9s0t1v2w3x\",\"method\":\"card\","
            + "\"payment_link_id\":\"plk_01jd3k4m5n6p7q8r9s0t1v2w3x\"} | invoice_id"
      })
  void invoicePaymentsAreCheckedAtTheEdge(String body, String field) {
    Http.Response response = http().post("/v1/payments", merchant.testSecret(), body.strip());
    assertEquals(400, response.status(), response.body());
    assertTrue(response.json().get("error").get("issues").has(field), response.body());
  }

  @Test
  void anInvoicePaymentWithoutAnAmountReachesTheOwner() {
    Http.Response response =
        http()
            .post(
                "/v1/payments",
                merchant.testSecret(),
                "{\"invoice_id\":\"" + INVOICE + "\",\"method\":\"card\"}");
    assertEquals(202, response.status(), response.body());
  }
}
