package ph.payments.gateway.payouts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;

/**
 * {@code POST /v1/payouts} body rules of SPEC parts 4 and 8, each destination shape per method, and
 * the payout routes' parameters, scopes and sandbox-only helpers, over real HTTP. A rejected
 * request never reaches payments-service (none runs here); valid ones are accepted as commands and
 * time out (202 with the id). The bank code's place in the registry is payments-service's to check.
 */
@MicronautTest
class PayoutValidationIT extends GatewayTest {

  private static final String PAYOUT = "po_01jd3k4m5n6p7q8r9s0t1v2w3x";
  private static final String W = "{\"amount\":100,\"method\":\"ewallet1\",\"destination\":";
  private static final String B = "{\"amount\":100,\"method\":\"bank_transfer\",\"destination\":";

  private Operator.Merchant merchant;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("gateway.commands.reply-timeout", "200ms");
  }

  @BeforeAll
  void merchant() {
    merchant = operator().createMerchant("Paying Store");
  }

  @ParameterizedTest(name = "{0} is refused on {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"method\":\"ewallet1\",\"destination\":{\"account_no\":\"09171234567\"}}  | amount",
        "{\"amount\":0,\"method\":\"ewallet1\",\"destination\":{\"account_no\":\"09171234567\"}} | amount",
        "{\"amount\":1.001,\"method\":\"ewallet1\",\"destination\":{\"account_no\":\"09171234567\"}} | amount",
        "{\"amount\":\"100\",\"method\":\"ewallet1\",\"destination\":{\"account_no\":\"09171234567\"}} | amount",
        "{\"amount\":100,\"destination\":{\"account_no\":\"09171234567\"}}           | method",
        "{\"amount\":100,\"method\":\"ewallet1\"}                                   | destination",
        "{\"amount\":100,\"method\":\"ewallet1\",\"destination\":\"09171234567\"}   | destination",
        // ewallet1: {account_no}, the wallet's mobile number
        W
            + "{}}                                                                     | destination.account_no",
        W
            + "{\"account_no\":\"0917123456\"}}                                        | destination.account_no",
        W
            + "{\"account_no\":\"9171234567\"}}                                        | destination.account_no",
        W
            + "{\"account_no\":\"0917-123-4567\"}}                                     | destination.account_no",
        W
            + "{\"account_no\":9171234567}}                                            | destination.account_no",
        W
            + "{\"account_no\":\"09171234567\",\"bank_code\":\"GXCHPHM2XXX\"}}         | destination.bank_code",
        // bank: {account_no, bank_code, first_name, last_name}
        B
            + "{\"account_no\":\"1234567890\"}}                                        | destination.bank_code",
        B
            + "{\"account_no\":\"1234567890\",\"bank_code\":\"BNORPHMMXXX\",\"first_name\":\"Juan\"}} | destination.last_name",
        B
            + "{\"bank_code\":\"BNORPHMMXXX\",\"first_name\":\"Juan\",\"last_name\":\"Cruz\"}} | destination.account_no",
        B
            + "{\"account_no\":\"12-3456-789\",\"bank_code\":\"BNORPHMMXXX\",\"first_name\":\"Juan\",\"last_name\":\"Cruz\"}} | destination.account_no",
        B
            + "{\"account_no\":\"12345\",\"bank_code\":\"BNORPHMMXXX\",\"first_name\":\"Juan\",\"last_name\":\"Cruz\"}} | destination.account_no",
        B
            + "{\"account_no\":\"1234567890\",\"bank_code\":\"BNOR PHMM\",\"first_name\":\"Juan\",\"last_name\":\"Cruz\"}} | destination.bank_code",
        B
            + "{\"account_no\":\"1234567890\",\"bank_code\":\"BNORPHMMXXX\",\"first_name\":\" \",\"last_name\":\"Cruz\"}} | destination.first_name",
        B
            + "{\"account_no\":\"1234567890\",\"bank_code\":\"BNORPHMMXXX\",\"first_name\":\"Juan\",\"last_name\":\"Cruz\",\"account_name\":\"Juan Cruz\"}} | destination.account_name",
        // bank: {account_no, bankCode, account_name}
        B
            + "{\"account_no\":\"1234567890\",\"bankCode\":\"BNORPHMMXXX\"}}           | destination.account_name",
        B
            + "{\"account_no\":\"1234567890\",\"bankCode\":\"BNORPHMMXXX\",\"account_name\":\"Juan Cruz\",\"first_name\":\"Juan\"}} | destination.first_name",
        B
            + "{\"account_no\":\"1234567890\",\"bankCode\":7,\"account_name\":\"Juan Cruz\"}} | destination.bankCode",
        B
            + "{\"account_no\":\"1234567890\",\"bank_code\":\"BNORPHMMXXX\",\"bankCode\":\"BNORPHMMXXX\",\"account_name\":\"J\"}} | destination",
        "{\"amount\":100,\"method\":\"bank_transfer_nrt\",\"destination\":{\"account_no\":\"1234567890\"}} | destination.bank_code",
        // the rest of the body
        W + "{\"account_no\":\"09171234567\"},\"currency\":\"php\"}                   | currency",
        W
            + "{\"account_no\":\"09171234567\"},\"description\":5}                      | description",
        W + "{\"account_no\":\"09171234567\"},\"metadata\":[1]}                       | metadata",
        W + "{\"account_no\":\"09171234567\"},\"metadata\":{\"a\":{\"b\":1}}}         | metadata",
        W + "{\"account_no\":\"09171234567\"},\"fee_amount\":0}                       | fee_amount"
      })
  void eachRuleNamesItsField(String body, String field) {
    Http.Response response = http().post("/v1/payouts", merchant.testSecret(), body.strip());
    assertEquals(400, response.status(), response.body());
    assertEquals("invalid_request", response.errorCode());
    assertTrue(
        response.json().at("/error/issues/" + field.replace("/", "~1")).isTextual(),
        response.body());
  }

  @ParameterizedTest(name = "{0} passes validation")
  @ValueSource(
      strings = {
        W + "{\"account_no\":\"09171234567\"}}",
        B
            + "{\"account_no\":\"001234567890\",\"bank_code\":\"BNORPHMMXXX\",\"first_name\":\"Juan\","
            + "\"last_name\":\"Dela Cruz\"}}",
        "{\"amount\":0.01,\"method\":\"bank_transfer_nrt\",\"destination\":{\"account_no\":\"123456\","
            + "\"bankCode\":\"GXCHPHM2XXX\",\"account_name\":\"Ana Reyes\"},\"currency\":\"PHP\","
            + "\"description\":\"Rebate\",\"metadata\":{\"batch\":\"m-5\",\"n\":3}}",
        "{\"amount\":999999999999,\"method\":\"some_future_rail\",\"destination\":{\"anything\":1}}"
      })
  void validBodiesAreAccepted(String body) {
    Http.Response response = http().post("/v1/payouts", merchant.testSecret(), body);
    assertEquals(202, response.status(), response.body());
    assertEquals("payout", response.json().get("object").asText());
    assertEquals("pending", response.json().get("status").asText());
    assertTrue(response.header("Location").orElse("").startsWith("/v1/payouts/po_"));
  }

  @ParameterizedTest(name = "GET /v1/payouts?{0} is refused on {1}")
  @CsvSource({"status=paid, status", "limit=101, limit", "starting_after=x, starting_after"})
  void listParametersAreChecked(String query, String field) {
    Http.Response response = http().get("/v1/payouts?" + query, merchant.testSecret());
    assertEquals(400, response.status(), response.body());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  @Test
  void theBankListIsPagedLikeEveryList() {
    String key = merchant.testSecret();
    for (String[] bad :
        new String[][] {
          {"limit=0", "limit"},
          {"limit=101", "limit"},
          {"limit=x", "limit"},
          {"starting_after=pay_01jd3k4m5n6p7q8r9s0t1v2w3x", "starting_after"},
          {"starting_after=bnorphmmxxx", "starting_after"},
          {"starting_after=", "starting_after"}
        }) {
      Http.Response response = http().get("/v1/payout-banks?" + bad[0], key);
      assertEquals(400, response.status(), bad[0] + " → " + response);
      assertTrue(response.json().at("/error/issues/" + bad[1]).isTextual(), response.toString());
    }
    // Valid parameters pass to the owner (none runs here).
    assertEquals(
        503, http().get("/v1/payout-banks?limit=100&starting_after=BNORPHMMXXX", key).status());
  }

  @Test
  void helperBodiesAreChecked() {
    String key = merchant.testSecret();
    String helpers = "/v1/test_helpers/";
    for (String[] bad :
        new String[][] {
          {"payouts/" + PAYOUT + "/fail", "{\"code\":\"Not Snake\"}", "code"},
          {"payouts/" + PAYOUT + "/fail", "{\"code\":\"" + "a".repeat(65) + "\"}", "code"},
          {"payouts/" + PAYOUT + "/fail", "{\"message\":\"\"}", "message"},
          {"payouts/" + PAYOUT + "/fail", "{\"message\":7}", "message"},
          {"payouts/" + PAYOUT + "/fail", "{\"reason\":\"x\"}", "reason"},
          {"payouts/" + PAYOUT + "/fail", "[]", "body"},
          {"payouts/" + PAYOUT + "/succeed", "{\"code\":\"x\"}", "code"},
          {"refunds/re_01jd3k4m5n6p7q8r9s0t1v2w3x/fail", "{\"code\":1}", "code"},
          {"payments/pay_01jd3k4m5n6p7q8r9s0t1v2w3x/fail", "{\"colour\":\"red\"}", "colour"},
          {"payments/pay_01jd3k4m5n6p7q8r9s0t1v2w3x/process", "{\"code\":\"x\"}", "code"}
        }) {
      Http.Response response = http().post(helpers + bad[0], key, bad[1]);
      assertEquals(400, response.status(), bad[0] + " " + bad[1] + " → " + response);
      assertEquals("invalid_request", response.errorCode());
      assertTrue(response.json().at("/error/issues/" + bad[2]).isTextual(), response.toString());
    }
  }

  @Test
  void routesCheckIdsScopesAndSandboxOnlyHelpers() {
    assertEquals(
        404,
        http().get("/v1/payouts/re_01jd3k4m5n6p7q8r9s0t1v2w3x", merchant.testSecret()).status());
    assertEquals(
        404,
        http()
            .post("/v1/test_helpers/payouts/" + PAYOUT + "/process", merchant.testSecret(), null)
            .status());
    Operator.Key live = operator().activate(merchant.id());
    assertEquals(
        404,
        http()
            .post("/v1/test_helpers/payouts/" + PAYOUT + "/succeed", live.secret(), null)
            .status());

    Operator.Key refundsOnly = operator().createKey(merchant.id(), "test", List.of("refunds:read"));
    assertEquals(403, http().get("/v1/payout-banks", refundsOnly.secret()).status());
    assertEquals(
        403,
        http()
            .post("/v1/payouts", refundsOnly.secret(), W + "{\"account_no\":\"09171234567\"}}")
            .status());
    Operator.Key readOnly = operator().createKey(merchant.id(), "test", List.of("payouts:read"));
    Http.Response banks =
        http().get("/v1/payout-banks", readOnly.secret(), "X-Service-Key-Id", readOnly.id());
    // Authenticated and in scope (with the key-id hint); no payments-service runs here.
    assertEquals(503, banks.status(), banks.body());
    assertEquals(
        403,
        http()
            .post("/v1/payouts", readOnly.secret(), W + "{\"account_no\":\"09171234567\"}}")
            .status());
  }
}
