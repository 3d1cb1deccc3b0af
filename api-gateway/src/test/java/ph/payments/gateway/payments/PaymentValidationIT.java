package ph.payments.gateway.payments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;

/**
 * SPEC part 4's rules for {@code POST /v1/payments}, each limit at its edge, over real HTTP. A
 * rejected body never reaches payments-service (none runs here), so these answers are the gateway's
 * alone; valid bodies get past validation and are accepted as commands (202 after the short reply
 * timeout, since no owner runs in this test).
 */
@MicronautTest
class PaymentValidationIT extends GatewayTest {

  private String key;

  @Override
  protected java.util.Map<String, String> extraProperties() {
    return java.util.Map.of("gateway.commands.reply-timeout", "200ms");
  }

  @BeforeAll
  void merchant() {
    key = operator().createMerchant("Validated Payments").testSecret();
  }

  @ParameterizedTest(name = "{0} is refused on {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"method\":\"card\"}                                  | amount",
        "{\"amount\":0,\"method\":\"card\"}                     | amount",
        "{\"amount\":0.001,\"method\":\"card\"}                 | amount",
        "{\"amount\":1.005,\"method\":\"card\"}                 | amount",
        "{\"amount\":-1,\"method\":\"card\"}                    | amount",
        "{\"amount\":999999999999.01,\"method\":\"card\"}       | amount",
        "{\"amount\":\"10\",\"method\":\"card\"}                | amount",
        "{\"amount\":10}                                        | method",
        "{\"amount\":10,\"method\":\"\"}                        | method",
        "{\"amount\":10,\"method\":7}                           | method",
        "{\"amount\":10,\"method\":\"card\",\"currency\":\"PH\"}   | currency",
        "{\"amount\":10,\"method\":\"card\",\"currency\":\"PHPX\"} | currency",
        "{\"amount\":10,\"method\":\"card\",\"currency\":\"php\"}  | currency",
        "{\"amount\":10,\"method\":\"card\",\"return_url\":\"not a url\"}     | return_url",
        "{\"amount\":10,\"method\":\"card\",\"return_url\":\"ftp://x.ph/a\"}  | return_url",
        "{\"amount\":10,\"method\":\"card\",\"webhook_url\":\"/relative\"}    | webhook_url",
        "{\"amount\":10,\"method\":\"card\",\"customer\":{\"email\":\"nope\"}} | customer",
        "{\"amount\":10,\"method\":\"card\",\"customer\":{\"phone\":\"1\"}}    | customer",
        "{\"amount\":10,\"method\":\"card\",\"customer\":\"juan\"}            | customer",
        "{\"amount\":10,\"method\":\"card\",\"customer_id\":\"cust_1\"}       | customer_id",
        "{\"amount\":10,\"method\":\"card\",\"metadata\":[1]}                 | metadata",
        "{\"amount\":10,\"method\":\"card\",\"metadata\":{\"a\":{\"b\":1}}}   | metadata",
        "{\"amount\":10,\"method\":\"card\",\"description\":5}               | description",
        "{\"amount\":10,\"method\":\"card\",\"colour\":\"red\"}               | colour",
        "{\"payment_link_id\":\"pay_01jd3k4m5n6p7q8r9s0t1v2w3x\"}              | payment_link_id",
        "{\"payment_link_id\":\"plk_X\"}                              | payment_link_id",
        "{\"payment_link_id\":7}                                      | payment_link_id",
        "{\"payment_link_id\":null,\"method\":\"card\"}                 | amount",
        "{\"payment_link_id\":\"plk_1\",\"amount\":0}                   | amount",
        "{\"payment_link_id\":\"plk_1\",\"amount\":1.001}               | amount",
        "{\"payment_link_id\":\"plk_1\",\"method\":\"\"}                | method",
        "{\"payment_link_id\":\"plk_1\",\"currency\":\"php\"}           | currency"
      })
  void eachRuleNamesItsField(String body, String field) {
    Http.Response response = http().post("/v1/payments", key, body.strip());
    assertEquals(400, response.status(), response.body());
    assertEquals("invalid_request", response.errorCode());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  @ParameterizedTest(name = "{0} passes validation")
  @ValueSource(
      strings = {
        "{\"amount\":0.01,\"method\":\"card\"}",
        "{\"amount\":999999999999,\"method\":\"card\"}",
        "{\"amount\":999999999999.00,\"method\":\"card\"}",
        "{\"amount\":1.10,\"method\":\"card\",\"currency\":\"USD\"}",
        "{\"amount\":10,\"method\":\"ewallet1\",\"return_url\":\"https://shop.example.ph/done\","
            + "\"webhook_url\":\"http://localhost:9000/hook\",\"customer\":{\"email\":\"a@b.ph\","
            + "\"name\":\"Ana\"},\"customer_id\":\"cus_01jd3k4m5n6p7q8r9s0t1v2w3x\","
            + "\"metadata\":{\"order\":\"A-1\",\"qty\":2,\"gift\":true,\"note\":null},"
            + "\"description\":\"Order A-1\"}",
        // Through a payment link, amount and method may be left to the link.
        "{\"payment_link_id\":\"plk_01jd3k4m5n6p7q8r9s0t1v2w3x\"}",
        "{\"payment_link_id\":\"plk_01jd3k4m5n6p7q8r9s0t1v2w3x\",\"amount\":0.01}",
        "{\"payment_link_id\":\"plk_01jd3k4m5n6p7q8r9s0t1v2w3x\",\"method\":\"card\","
            + "\"amount\":999999999999,\"currency\":\"PHP\"}"
      })
  void validBodiesAreAccepted(String body) {
    Http.Response response = http().post("/v1/payments", key, body);
    // No payments-service runs here: a valid body is accepted as a command and times out, which
    // for a creation is 202 with the allocated id and its status URL.
    assertEquals(202, response.status(), response.body());
    String id = response.json().get("id").asText();
    assertTrue(id.startsWith("pay_"), id);
    assertEquals("/v1/payments/" + id, response.header("Location").orElse(null));
    assertTrue(response.header("Retry-After").isPresent());
  }

  @ParameterizedTest(name = "GET /v1/payments?{0} is refused on {1}")
  @CsvSource({
    "status=paid, status",
    "limit=0, limit",
    "limit=101, limit",
    "starting_after=x, starting_after"
  })
  void listParametersAreChecked(String query, String field) {
    Http.Response response = http().get("/v1/payments?" + query, key);
    assertEquals(400, response.status(), response.body());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }
}
