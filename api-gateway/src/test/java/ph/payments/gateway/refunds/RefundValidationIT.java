package ph.payments.gateway.refunds;

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
 * {@code POST /v1/refunds} body rules and the refund routes' parameters, scopes and sandbox-only
 * helpers, over real HTTP. A rejected request never reaches payments-service (none runs here);
 * valid ones are accepted as commands and time out (202 with the id), as in {@code
 * PaymentValidationIT}.
 */
@MicronautTest
class RefundValidationIT extends GatewayTest {

  private static final String PAYMENT = "pay_01jd3k4m5n6p7q8r9s0t1v2w3x";
  private static final String REFUND = "re_01jd3k4m5n6p7q8r9s0t1v2w3x";

  private Operator.Merchant merchant;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("gateway.commands.reply-timeout", "200ms");
  }

  @BeforeAll
  void merchant() {
    merchant = operator().createMerchant("Refunding Store");
  }

  @ParameterizedTest(name = "{0} is refused on {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{}                                                                    | payment",
        "{\"payment\":\"\"}                                                    | payment",
        "{\"payment\":\"pay_x\"}                                               | payment",
        "{\"payment\":\"re_01jd3k4m5n6p7q8r9s0t1v2w3x\"}                       | payment",
        "{\"payment\":7}                                                       | payment",
        "{\"payment\":\"" + PAYMENT + "\",\"amount\":0}                        | amount",
        "{\"payment\":\"" + PAYMENT + "\",\"amount\":-5}                       | amount",
        "{\"payment\":\"" + PAYMENT + "\",\"amount\":0.001}                    | amount",
        "{\"payment\":\"" + PAYMENT + "\",\"amount\":\"10\"}                   | amount",
        "{\"payment\":\"" + PAYMENT + "\",\"amount\":999999999999.01}          | amount",
        "{\"payment\":\"" + PAYMENT + "\",\"reason\":\"changed_mind\"}         | reason",
        "{\"payment\":\"" + PAYMENT + "\",\"reason\":1}                        | reason",
        "{\"payment\":\"" + PAYMENT + "\",\"currency\":\"PHP\"}                | currency"
      })
  void eachRuleNamesItsField(String body, String field) {
    Http.Response response = http().post("/v1/refunds", merchant.testSecret(), body.strip());
    assertEquals(400, response.status(), response.body());
    assertEquals("invalid_request", response.errorCode());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  @ParameterizedTest(name = "{0} passes validation")
  @ValueSource(
      strings = {
        "{\"payment\":\"" + PAYMENT + "\"}",
        "{\"payment\":\"" + PAYMENT + "\",\"amount\":0.01,\"reason\":\"requested_by_customer\"}",
        "{\"payment\":\"" + PAYMENT + "\",\"amount\":250.5,\"reason\":null}"
      })
  void validBodiesAreAccepted(String body) {
    Http.Response response = http().post("/v1/refunds", merchant.testSecret(), body);
    assertEquals(202, response.status(), response.body());
    assertEquals("refund", response.json().get("object").asText());
    assertTrue(response.header("Location").orElse("").startsWith("/v1/refunds/re_"));
  }

  @ParameterizedTest(name = "GET /v1/refunds?{0} is refused on {1}")
  @CsvSource({
    "status=refunded, status",
    "payment=x, payment",
    "limit=0, limit",
    "starting_after=x, starting_after"
  })
  void listParametersAreChecked(String query, String field) {
    Http.Response response = http().get("/v1/refunds?" + query, merchant.testSecret());
    assertEquals(400, response.status(), response.body());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  @Test
  void routesCheckIdsScopesAndSandboxOnlyHelpers() {
    assertEquals(404, http().get("/v1/refunds/" + PAYMENT, merchant.testSecret()).status());
    assertEquals(
        404,
        http()
            .post("/v1/test_helpers/refunds/" + REFUND + "/explode", merchant.testSecret(), null)
            .status());
    Operator.Key live = operator().activate(merchant.id());
    Http.Response liveHelper =
        http().post("/v1/test_helpers/refunds/" + REFUND + "/succeed", live.secret(), null);
    assertEquals(404, liveHelper.status());
    assertEquals("not_found", liveHelper.errorCode());

    Operator.Key paymentsOnly =
        operator().createKey(merchant.id(), "test", List.of("payments:read", "payments:write"));
    Http.Response refused =
        http().post("/v1/refunds", paymentsOnly.secret(), "{\"payment\":\"" + PAYMENT + "\"}");
    assertEquals(403, refused.status());
    assertEquals("insufficient_scope", refused.errorCode());
    assertEquals(403, http().get("/v1/refunds", paymentsOnly.secret()).status());
  }
}
