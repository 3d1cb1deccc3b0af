package ph.payments.gateway.links;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;
import ph.payments.platform.json.Json;

/**
 * The payment link and static QR limits are written twice, in the OpenAPI schemas ({@code
 * PaymentLinkCreate}, {@code PaymentLinkUpdate}, {@code StaticQrCreate}, {@code StaticQrUpdate})
 * and in {@code PaymentLinksController} / {@code StaticQrsController}; this test proves they agree
 * field by field, as {@code ProductSchemaAgreementIT} does for products. For every {@code
 * minLength}/{@code maxLength} and {@code minimum}/{@code maximum} the served document states, a
 * value at the limit passes the gateway's checks and a value one past it is 400 naming that field.
 * It also holds the document's lists of fields to the controllers' (an unknown field is refused).
 */
@MicronautTest
class LinkSchemaAgreementIT extends GatewayTest {

  private static final String LINK = "plk_01jd3k4m5n6p7q8r9s0t1v2w3x";
  private static final String QR = "sqr_01jd3k4m5n6p7q8r9s0t1v2w3x";
  private static final String URL_PREFIX = "https://img.example/";

  private Operator.Merchant merchant;
  private Map<String, Object> schemas;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("gateway.commands.reply-timeout", "100ms");
  }

  @BeforeAll
  @SuppressWarnings("unchecked")
  void setUp() {
    merchant = operator().createMerchant("Link Schema Store");
    operator().setRateLimit(merchant.testKeyId(), 10_000);
    Map<String, Object> document = new Yaml().load(http().get("/openapi.yaml", null).body());
    schemas =
        (Map<String, Object>) ((Map<String, Object>) document.get("components")).get("schemas");
  }

  @Test
  void paymentLinkCreationLimitsAgree() {
    int checked = agree("PaymentLinkCreate", "POST", "/v1/payment_links", 202);
    assertTrue(checked >= 20, "limits checked: " + checked);
  }

  @Test
  void paymentLinkUpdateLimitsAgree() {
    int checked = agree("PaymentLinkUpdate", "PATCH", "/v1/payment_links/" + LINK, 503);
    assertTrue(checked >= 20, "limits checked: " + checked);
  }

  @Test
  void staticQrCreationLimitsAgree() {
    int checked = agree("StaticQrCreate", "POST", "/v1/static_qrs", 202);
    assertTrue(checked >= 14, "limits checked: " + checked);
  }

  @Test
  void staticQrUpdateLimitsAgree() {
    int checked = agree("StaticQrUpdate", "PATCH", "/v1/static_qrs/" + QR, 503);
    assertTrue(checked >= 14, "limits checked: " + checked);
  }

  @Test
  @SuppressWarnings("unchecked")
  void everyDocumentedFieldIsAcceptedAndNoOtherIs() {
    for (String[] c :
        new String[][] {
          {"PaymentLinkCreate", "POST", "/v1/payment_links"},
          {"PaymentLinkUpdate", "PATCH", "/v1/payment_links/" + LINK},
          {"StaticQrCreate", "POST", "/v1/static_qrs"},
          {"StaticQrUpdate", "PATCH", "/v1/static_qrs/" + QR}
        }) {
      Map<String, Object> schema = (Map<String, Object>) schemas.get(c[0]);
      assertEquals(false, schema.get("additionalProperties"), c[0]);
      for (String field : ((Map<String, Object>) schema.get("properties")).keySet()) {
        ObjectNode body = base(c[0], field);
        body.putNull(field);
        Http.Response response = http().send(c[1], c[2], merchant.testSecret(), Json.toText(body));
        String issue =
            response.json() == null ? "" : response.json().at("/error/issues/" + field).asText();
        assertTrue(
            !issue.equals("unknown field"), c[0] + "." + field + " is unknown to the gateway");
      }
      ObjectNode extra = base(c[0], "extra");
      extra.put("not_a_field", 1);
      Http.Response response = http().send(c[1], c[2], merchant.testSecret(), Json.toText(extra));
      assertEquals(400, response.status(), c[0]);
      assertEquals("unknown field", response.json().at("/error/issues/not_a_field").asText());
    }
  }

  @SuppressWarnings("unchecked")
  private int agree(String schemaName, String method, String path, int accepted) {
    Map<String, Object> schema = (Map<String, Object>) schemas.get(schemaName);
    Map<String, Map<String, Object>> properties =
        (Map<String, Map<String, Object>>) schema.get("properties");
    List<String> failures = new ArrayList<>();
    int checked = 0;
    for (Map.Entry<String, Map<String, Object>> property : properties.entrySet()) {
      String field = property.getKey();
      Map<String, Object> rules = property.getValue();
      String type = (String) rules.get("type");
      List<Object[]> cases = new ArrayList<>(); // value, should pass
      if ("string".equals(type)) {
        if (rules.get("maxLength") instanceof Integer max) {
          cases.add(new Object[] {text(field, max), true});
          cases.add(new Object[] {text(field, max + 1), false});
        }
        if (rules.get("minLength") instanceof Integer min) {
          cases.add(new Object[] {text(field, min), true});
          if (min > 0) {
            cases.add(new Object[] {text(field, min - 1), false});
          }
        }
      } else if ("integer".equals(type) || "number".equals(type)) {
        BigDecimal step = "integer".equals(type) ? BigDecimal.ONE : new BigDecimal("0.01");
        if (rules.get("minimum") != null) {
          BigDecimal min = new BigDecimal(rules.get("minimum").toString());
          cases.add(new Object[] {min, true});
          cases.add(new Object[] {min.subtract(step), false});
        }
        if (rules.get("maximum") != null) {
          BigDecimal max = new BigDecimal(rules.get("maximum").toString());
          cases.add(new Object[] {max, true});
          cases.add(new Object[] {max.add(step), false});
        }
      }
      for (Object[] c : cases) {
        ObjectNode body = base(schemaName, field);
        if (c[0] instanceof BigDecimal number) {
          body.put(field, number);
        } else {
          body.put(field, (String) c[0]);
        }
        Http.Response response =
            http().send(method, path, merchant.testSecret(), Json.toText(body));
        boolean pass = (Boolean) c[1];
        boolean ok =
            pass
                ? response.status() == accepted
                : response.status() == 400
                    && response.json().at("/error/issues/" + field).isTextual();
        if (!ok) {
          failures.add(
              schemaName
                  + "."
                  + field
                  + " = "
                  + abbreviate(String.valueOf(c[0]))
                  + " should "
                  + (pass ? "pass" : "fail")
                  + ": "
                  + response.status()
                  + " "
                  + response.body());
        }
        checked++;
      }
    }
    assertEquals(List.of(), failures);
    return checked;
  }

  /** A body that is valid without {@code field}. */
  private static ObjectNode base(String schemaName, String field) {
    ObjectNode body = Json.mapper().createObjectNode();
    if (schemaName.equals("PaymentLinkCreate") && !field.equals("description")) {
      body.put("description", "Donation");
    }
    if (schemaName.equals("StaticQrCreate") && !field.equals("name")) {
      body.put("name", "Counter 1");
    }
    return body;
  }

  /** A valid value of {@code length} characters for the field (a URL for the *_url fields). */
  private static String text(String field, int length) {
    if (field.endsWith("_url")) {
      return length < URL_PREFIX.length() + 1
          ? "x".repeat(length)
          : URL_PREFIX + "a".repeat(length - URL_PREFIX.length());
    }
    return (field.equals("currency") ? "A" : "a").repeat(length);
  }

  private static String abbreviate(String value) {
    return value.length() <= 30 ? value : value.substring(0, 30) + "…(" + value.length() + ")";
  }
}
