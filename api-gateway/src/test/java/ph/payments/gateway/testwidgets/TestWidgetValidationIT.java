package ph.payments.gateway.testwidgets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.util.List;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;

/**
 * Body validation on a command endpoint: every problem is a 400 {@code invalid_request} naming the
 * field in {@code issues}, and nothing reaches the command path.
 */
@MicronautTest(transactional = false)
class TestWidgetValidationIT extends WidgetGatewayTest {

  @Test
  void aValidBodyCreatesAWidgetWithDefaults() {
    Operator.Merchant merchant = operator().createMerchant("Valid Store");
    Http.Response created = createWidget(merchant.testSecret(), "{\"amount\":999999999999}", null);
    assertEquals(201, created.status(), created.body());
    assertEquals("test_widget", created.json().get("object").asText());
    assertEquals("999999999999.00", created.json().get("amount").decimalValue().toPlainString());
    assertEquals("PHP", created.json().get("currency").asText());
    assertTrue(created.json().get("description").isNull());
    assertTrue(created.json().get("metadata").isObject());
    assertEquals("test", created.json().get("environment").asText());
  }

  @Test
  void malformedJsonIsInvalid() {
    Operator.Merchant merchant = operator().createMerchant("Malformed Store");
    long commandsBefore = commands();
    for (String body : List.of("{\"amount\":", "{amount: 1}", "not json")) {
      Http.Response response = createWidget(merchant.testSecret(), body, "malformed");
      assertInvalid(response, null);
    }
    assertEquals(commandsBefore, commands());
  }

  @Test
  void wrongTypesAndValuesAreNamed() {
    Operator.Merchant merchant = operator().createMerchant("Typed Store");
    long commandsBefore = commands();
    assertInvalid(createWidget(merchant.testSecret(), "[1,2]", null), "body");
    assertInvalid(createWidget(merchant.testSecret(), "{}", null), "amount");
    assertInvalid(createWidget(merchant.testSecret(), "{\"amount\":\"10.00\"}", null), "amount");
    assertInvalid(createWidget(merchant.testSecret(), "{\"amount\":0}", null), "amount");
    assertInvalid(createWidget(merchant.testSecret(), "{\"amount\":1.005}", null), "amount");
    assertInvalid(
        createWidget(merchant.testSecret(), "{\"amount\":1000000000000}", null), "amount");
    assertInvalid(
        createWidget(merchant.testSecret(), "{\"amount\":1,\"currency\":\"php\"}", null),
        "currency");
    assertInvalid(
        createWidget(
            merchant.testSecret(),
            "{\"amount\":1,\"description\":\"" + "d".repeat(501) + "\"}",
            null),
        "description");
    assertInvalid(
        createWidget(merchant.testSecret(), "{\"amount\":1,\"description\":7}", null),
        "description");
    assertInvalid(
        createWidget(merchant.testSecret(), "{\"amount\":1,\"metadata\":[\"x\"]}", null),
        "metadata");
    assertEquals(commandsBefore, commands(), "no invalid request reaches the command path");
  }

  @Test
  void unknownFieldsAreRejectedAndEveryProblemIsNamed() {
    Operator.Merchant merchant = operator().createMerchant("Strict Store");
    Http.Response response =
        createWidget(
            merchant.testSecret(),
            "{\"amount\":-1,\"colour\":\"blue\",\"metadata\":1,\"merchant_id\":\"mer_x\"}",
            null);
    assertInvalid(response, "colour");
    assertTrue(response.json().at("/error/issues/merchant_id").isTextual(), response.body());
    assertTrue(response.json().at("/error/issues/amount").isTextual(), response.body());
    assertTrue(response.json().at("/error/issues/metadata").isTextual(), response.body());
  }

  private static void assertInvalid(Http.Response response, String field) {
    assertEquals(400, response.status(), response.body());
    assertEquals("invalid_request", response.errorCode());
    assertTrue(response.json().at("/error/issues").isObject(), response.body());
    if (field != null) {
      assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
    }
  }
}
