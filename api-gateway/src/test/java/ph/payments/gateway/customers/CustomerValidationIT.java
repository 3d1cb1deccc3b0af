package ph.payments.gateway.customers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;

/**
 * SPEC part 2's rules for customer bodies ({@code POST /v1/customers}, {@code PATCH} and {@code
 * POST /v1/customers/{id}}), each limit at its edge, over real HTTP; the routes' ids, parameters,
 * scopes and idempotent replay. No payments-service runs here: a rejected body is the gateway's
 * answer alone, and a valid creation is accepted as a command (202 after the short reply timeout).
 */
@MicronautTest
class CustomerValidationIT extends GatewayTest {

  private static final String CUSTOMER = "cus_01jd3k4m5n6p7q8r9s0t1v2w3x";

  private Operator.Merchant merchant;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("gateway.commands.reply-timeout", "200ms");
  }

  @BeforeAll
  void merchant() {
    merchant = operator().createMerchant("Validated Customers");
  }

  static String repeat(String s, int n) {
    return s.repeat(n);
  }

  /** An email address of exactly {@code length} characters. */
  static String email(int length) {
    return "a".repeat(length - "@example.ph".length()) + "@example.ph";
  }

  static List<String[]> refusedCreations() {
    return List.of(
        new String[] {"{}", "name"},
        new String[] {"{\"name\":null}", "name"},
        new String[] {"{\"name\":\"\"}", "name"},
        new String[] {"{\"name\":\"" + repeat("n", 201) + "\"}", "name"},
        new String[] {"{\"name\":7}", "name"},
        new String[] {"{\"name\":\"N\",\"email\":\"nope\"}", "email"},
        new String[] {"{\"name\":\"N\",\"email\":\"a@b\"}", "email"},
        new String[] {"{\"name\":\"N\",\"email\":\"" + email(256) + "\"}", "email"},
        new String[] {"{\"name\":\"N\",\"email\":5}", "email"},
        new String[] {"{\"name\":\"N\",\"phone\":\"" + repeat("1", 41) + "\"}", "phone"},
        new String[] {"{\"name\":\"N\",\"phone\":639171234567}", "phone"},
        new String[] {"{\"name\":\"N\",\"address\":\"Makati\"}", "address"},
        new String[] {
          "{\"name\":\"N\",\"address\":{\"line1\":\"" + repeat("l", 201) + "\"}}", "address.line1"
        },
        new String[] {
          "{\"name\":\"N\",\"address\":{\"line2\":\"" + repeat("l", 201) + "\"}}", "address.line2"
        },
        new String[] {
          "{\"name\":\"N\",\"address\":{\"city\":\"" + repeat("c", 101) + "\"}}", "address.city"
        },
        new String[] {
          "{\"name\":\"N\",\"address\":{\"region\":\"" + repeat("r", 101) + "\"}}", "address.region"
        },
        new String[] {
          "{\"name\":\"N\",\"address\":{\"postal_code\":\"" + repeat("1", 21) + "\"}}",
          "address.postal_code"
        },
        new String[] {"{\"name\":\"N\",\"address\":{\"country\":\"P\"}}", "address.country"},
        new String[] {"{\"name\":\"N\",\"address\":{\"country\":\"PHL\"}}", "address.country"},
        new String[] {"{\"name\":\"N\",\"address\":{\"country\":\"ph\"}}", "address.country"},
        new String[] {"{\"name\":\"N\",\"address\":{\"country\":\"P1\"}}", "address.country"},
        new String[] {"{\"name\":\"N\",\"address\":{\"country\":null}}", "address.country"},
        new String[] {"{\"name\":\"N\",\"address\":{\"street\":\"x\"}}", "address.street"},
        new String[] {"{\"name\":\"N\",\"metadata\":[1]}", "metadata"},
        new String[] {"{\"name\":\"N\",\"metadata\":{\"a\":{\"b\":1}}}", "metadata"},
        new String[] {"{\"name\":\"N\",\"metadata\":{\"" + repeat("k", 41) + "\":1}}", "metadata"},
        new String[] {"{\"name\":\"N\",\"colour\":\"red\"}", "colour"},
        new String[] {"[1]", "body"});
  }

  @ParameterizedTest(name = "{0} is refused on {1}")
  @MethodSource("refusedCreations")
  void eachCreationRuleNamesItsField(String body, String field) {
    Http.Response response = http().post("/v1/customers", merchant.testSecret(), body);
    assertEquals(400, response.status(), response.body());
    assertEquals("invalid_request", response.errorCode());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  static List<String> acceptedCreations() {
    return List.of(
        "{\"name\":\"N\"}",
        "{\"name\":\"" + repeat("n", 200) + "\"}",
        "{\"name\":\"N\",\"email\":\"" + email(255) + "\"}",
        "{\"name\":\"N\",\"email\":\"\"}",
        "{\"name\":\"N\",\"email\":null,\"phone\":null,\"address\":null,\"metadata\":null}",
        "{\"name\":\"N\",\"phone\":\"" + repeat("1", 40) + "\"}",
        "{\"name\":\"N\",\"address\":{}}",
        "{\"name\":\"N\",\"address\":{\"line1\":\""
            + repeat("l", 200)
            + "\",\"line2\":\""
            + repeat("l", 200)
            + "\",\"city\":\""
            + repeat("c", 100)
            + "\",\"region\":\""
            + repeat("r", 100)
            + "\",\"postal_code\":\""
            + repeat("1", 20)
            + "\",\"country\":\"US\"}}",
        "{\"name\":\"N\",\"address\":{\"line1\":null,\"city\":null}}",
        "{\"name\":\"N\",\"metadata\":{\"" + repeat("k", 40) + "\":\"" + repeat("v", 500) + "\"}}");
  }

  @ParameterizedTest(name = "{0} passes validation")
  @MethodSource("acceptedCreations")
  void validCreationsAreAcceptedAsCommands(String body) {
    Http.Response response = http().post("/v1/customers", merchant.testSecret(), body);
    assertEquals(202, response.status(), response.body());
    assertEquals("customer", response.json().get("object").asText());
    assertTrue(response.json().get("id").asText().startsWith("cus_"));
    assertEquals(
        "/v1/customers/" + response.json().get("id").asText(),
        response.header("Location").orElseThrow());
  }

  @ParameterizedTest(name = "{1} {0} is refused on {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"name\":null}                         | PATCH | name",
        "{\"name\":\"\"}                         | POST  | name",
        "{\"name\":7}                            | PATCH | name",
        "{\"email\":\"nope\"}                    | POST  | email",
        "{\"phone\":\"12345678901234567890123456789012345678901\"} | PATCH | phone",
        "{\"address\":{\"country\":\"PHL\"}}     | PATCH | address.country",
        "{\"address\":{\"postal_code\":\"123456789012345678901\"}} | POST | address.postal_code",
        "{\"address\":7}                         | PATCH | address",
        "{\"metadata\":7}                        | PATCH | metadata",
        "{\"id\":\"cus_x\"}                      | POST  | id",
        "{\"receipts_history_url\":\"x\"}        | PATCH | receipts_history_url"
      })
  void eachUpdateRuleNamesItsField(String body, String method, String field) {
    Http.Response response =
        http().send(method, "/v1/customers/" + CUSTOMER, merchant.testSecret(), body.strip());
    assertEquals(400, response.status(), response.body());
    assertEquals("invalid_request", response.errorCode());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  @ParameterizedTest(name = "{0} passes update validation")
  @ValueSource(
      strings = {
        "{}",
        "{\"name\":\"N\"}",
        "{\"email\":\"\"}",
        "{\"email\":null,\"phone\":null,\"address\":null,\"metadata\":null}",
        "{\"address\":{\"country\":null}}",
        "{\"address\":{\"city\":\"Cebu\"}}"
      })
  void validUpdatesPassValidation(String body) {
    for (String method : List.of("PATCH", "POST")) {
      Http.Response response =
          http().send(method, "/v1/customers/" + CUSTOMER, merchant.testSecret(), body);
      // No owner runs here: past validation the command waits for a reply that never comes.
      assertEquals(503, response.status(), method + " " + response.body());
    }
  }

  @ParameterizedTest(name = "{0} {1} is 404 not_found")
  @CsvSource({
    "GET, cus_x",
    "PATCH, cus_x",
    "POST, cus_x",
    "GET, pay_01jd3k4m5n6p7q8r9s0t1v2w3x",
    "PATCH, pay_01jd3k4m5n6p7q8r9s0t1v2w3x",
    "POST, CUS_01JD3K4M5N6P7Q8R9S0T1V2W3X"
  })
  void malformedIdsAreNotFound(String method, String id) {
    Http.Response response =
        http()
            .send(
                method,
                "/v1/customers/" + id,
                merchant.testSecret(),
                method.equals("GET") ? null : "{\"name\":\"N\"}");
    assertEquals(404, response.status(), response.body());
    assertEquals("not_found", response.errorCode());
  }

  @ParameterizedTest(name = "GET {0} is refused on {1}")
  @CsvSource({
    "/v1/customers?limit=0, limit",
    "/v1/customers?limit=101, limit",
    "/v1/customers?starting_after=x, starting_after",
    "/v1/customers?email=, email",
    "/v1/payments?customer_id=x, customer_id",
    "/v1/payments?customer_id=cust_1, customer_id"
  })
  void listParametersAreChecked(String path, String field) {
    Http.Response response = http().get(path, merchant.testSecret());
    assertEquals(400, response.status(), response.body());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  @Test
  void anOverlongEmailFilterIsRefused() {
    Http.Response response =
        http().get("/v1/customers?email=" + "a".repeat(256), merchant.testSecret());
    assertEquals(400, response.status(), response.body());
    assertTrue(response.json().at("/error/issues/email").isTextual());
  }

  @Test
  void scopesDecideWhoMayReadAndWriteCustomers() {
    Operator.Key paymentsOnly =
        operator().createKey(merchant.id(), "test", List.of("payments:read", "payments:write"));
    Operator.Key reader = operator().createKey(merchant.id(), "test", List.of("customers:read"));
    Operator.Key writer = operator().createKey(merchant.id(), "test", List.of("customers:write"));
    for (Operator.Key key : List.of(paymentsOnly, reader)) {
      for (String[] request :
          List.of(
              new String[] {"POST", "/v1/customers"},
              new String[] {"PATCH", "/v1/customers/" + CUSTOMER},
              new String[] {"POST", "/v1/customers/" + CUSTOMER})) {
        Http.Response refused =
            http().send(request[0], request[1], key.secret(), "{\"name\":\"N\"}");
        assertEquals(403, refused.status(), request[0] + " " + request[1]);
        assertEquals("insufficient_scope", refused.errorCode());
      }
    }
    for (Operator.Key key : List.of(paymentsOnly, writer)) {
      assertEquals(403, http().get("/v1/customers", key.secret()).status());
      assertEquals(403, http().get("/v1/customers/" + CUSTOMER, key.secret()).status());
    }
    assertNotEquals(403, http().get("/v1/customers", reader.secret()).status());
    assertNotEquals(403, http().get("/v1/customers/" + CUSTOMER, reader.secret()).status());
    assertEquals(202, http().post("/v1/customers", writer.secret(), "{\"name\":\"N\"}").status());
    assertEquals(401, http().post("/v1/customers", null, "{\"name\":\"N\"}").status());
  }

  @Test
  void aCreationRepeatedWithItsIdempotencyKeyAnswersTheSameCustomer() {
    String key = "cust-replay-" + System.nanoTime();
    Http.Response first =
        http()
            .post(
                "/v1/customers",
                merchant.testSecret(),
                "{\"name\":\"Once\"}",
                "Idempotency-Key",
                key);
    Http.Response again =
        http()
            .post(
                "/v1/customers",
                merchant.testSecret(),
                "{\"name\":\"Once\"}",
                "Idempotency-Key",
                key);
    assertEquals(202, first.status(), first.body());
    assertEquals(202, again.status(), again.body());
    assertEquals(first.json().get("id"), again.json().get("id"), "the first request's customer");
    Http.Response other =
        http()
            .post(
                "/v1/customers",
                merchant.testSecret(),
                "{\"name\":\"Twice\"}",
                "Idempotency-Key",
                key);
    assertEquals(409, other.status(), other.body());
    assertEquals("conflict", other.errorCode());
  }
}
