package ph.payments.gateway.invoices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;
import ph.payments.platform.json.Json;

/**
 * The invoice limits are written twice, in the OpenAPI schemas ({@code InvoiceCreate}, {@code
 * InvoiceUpdate}, {@code InvoiceLineItemInput}) and in {@code InvoicesController}; this test proves
 * they agree field by field, as {@code LinkSchemaAgreementIT} does for links: for every {@code
 * maxLength}/{@code minLength}, {@code minimum}/{@code maximum} (exclusive or not) and {@code
 * minItems}/{@code maxItems} the served document states, a value at the limit passes the gateway
 * and one past it is 400 naming the field. Lists of fields agree too.
 */
@MicronautTest
class InvoiceSchemaAgreementIT extends GatewayTest {

  private static final String INVOICE = "inv_01jd3k4m5n6p7q8r9s0t1v2w3x";

  private Operator.Merchant merchant;
  private Map<String, Object> schemas;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("gateway.commands.reply-timeout", "100ms");
  }

  @BeforeAll
  @SuppressWarnings("unchecked")
  void setUp() {
    merchant = operator().createMerchant("Invoice Schema Store");
    operator().setRateLimit(merchant.testKeyId(), 10_000);
    Map<String, Object> document = new Yaml().load(http().get("/openapi.yaml", null).body());
    schemas =
        (Map<String, Object>) ((Map<String, Object>) document.get("components")).get("schemas");
  }

  @Test
  void creationLimitsAgree() {
    int checked = agree("InvoiceCreate", "POST", "/v1/invoices", 202, false);
    assertTrue(checked >= 20, "limits checked: " + checked);
  }

  @Test
  void updateLimitsAgree() {
    int checked = agree("InvoiceUpdate", "PATCH", "/v1/invoices/" + INVOICE, 503, false);
    assertTrue(checked >= 14, "limits checked: " + checked);
  }

  @Test
  void lineItemLimitsAgree() {
    int checked = agree("InvoiceLineItemInput", "POST", "/v1/invoices", 202, true);
    assertTrue(checked >= 9, "limits checked: " + checked);
  }

  @Test
  @SuppressWarnings("unchecked")
  void everyDocumentedFieldIsAcceptedAndNoOtherIs() {
    for (String[] c :
        new String[][] {
          {"InvoiceCreate", "POST", "/v1/invoices"},
          {"InvoiceUpdate", "PATCH", "/v1/invoices/" + INVOICE}
        }) {
      Map<String, Object> schema = (Map<String, Object>) schemas.get(c[0]);
      assertEquals(false, schema.get("additionalProperties"), c[0]);
      for (String field : ((Map<String, Object>) schema.get("properties")).keySet()) {
        ObjectNode body = base(c[0]);
        body.putNull(field);
        Http.Response response = http().send(c[1], c[2], merchant.testSecret(), Json.toText(body));
        String issue =
            response.json() == null ? "" : response.json().at("/error/issues/" + field).asText();
        assertTrue(
            !issue.equals("unknown field"), c[0] + "." + field + " is unknown to the gateway");
      }
      ObjectNode extra = base(c[0]);
      extra.put("not_a_field", 1);
      Http.Response response = http().send(c[1], c[2], merchant.testSecret(), Json.toText(extra));
      assertEquals(400, response.status(), c[0]);
      assertEquals("unknown field", response.json().at("/error/issues/not_a_field").asText());
    }
  }

  @SuppressWarnings("unchecked")
  private int agree(String schemaName, String method, String path, int accepted, boolean line) {
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
          cases.add(
              new Object[] {
                "a".repeat(max).replace("a", field.equals("currency") ? "A" : "a"), true
              });
          cases.add(new Object[] {"a".repeat(max + 1), false});
        }
        if (rules.get("minLength") instanceof Integer min) {
          cases.add(new Object[] {(field.equals("currency") ? "A" : "a").repeat(min), true});
          if (min > 0) {
            cases.add(new Object[] {"a".repeat(min - 1), false});
          }
        }
      } else if ("number".equals(type)) {
        BigDecimal step = new BigDecimal("0.01");
        if (rules.get("minimum") != null) {
          BigDecimal min = new BigDecimal(rules.get("minimum").toString());
          if (Boolean.TRUE.equals(rules.get("exclusiveMinimum"))) {
            cases.add(new Object[] {min.add(step), true});
            cases.add(new Object[] {min, false});
          } else {
            cases.add(new Object[] {min, true});
            cases.add(new Object[] {min.subtract(step), false});
          }
        }
        if (rules.get("maximum") != null) {
          BigDecimal max = new BigDecimal(rules.get("maximum").toString());
          if (Boolean.TRUE.equals(rules.get("exclusiveMaximum"))) {
            cases.add(new Object[] {max.subtract(step), true});
            cases.add(new Object[] {max, false});
          } else {
            cases.add(new Object[] {max, true});
            cases.add(new Object[] {max.add(step), false});
          }
        }
      } else if ("array".equals(type)) {
        if (rules.get("minItems") instanceof Integer min) {
          cases.add(new Object[] {min, true});
          cases.add(new Object[] {min - 1, false});
        }
        if (rules.get("maxItems") instanceof Integer max) {
          cases.add(new Object[] {max, true});
          cases.add(new Object[] {max + 1, false});
        }
      }
      for (Object[] c : cases) {
        ObjectNode body = base(schemaName);
        ObjectNode target = line ? (ObjectNode) body.get("line_items").get(0) : body;
        Consumer<ObjectNode> set =
            node -> {
              if (c[0] instanceof BigDecimal number) {
                node.put(field, number);
              } else if (c[0] instanceof Integer count) {
                ArrayNode items = node.putArray(field);
                for (int i = 0; i < count; i++) {
                  items.add(line());
                }
              } else {
                node.put(field, (String) c[0]);
              }
            };
        set.accept(target);
        Http.Response response =
            http().send(method, path, merchant.testSecret(), Json.toText(body));
        String issueField = line ? "line_items[0]." + field : field;
        boolean pass = (Boolean) c[1];
        boolean ok =
            pass
                ? response.status() == accepted
                : response.status() == 400
                    && response.json().get("error").get("issues").has(issueField);
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
                  + abbreviate(response.body()));
        }
        checked++;
      }
    }
    assertEquals(List.of(), failures);
    return checked;
  }

  private static ObjectNode line() {
    ObjectNode line = Json.mapper().createObjectNode();
    line.put("description", "Lechon");
    line.put("quantity", 1);
    line.put("unit_amount", 100);
    return line;
  }

  /** A valid body (with one line item for creation and line item checks). */
  private static ObjectNode base(String schemaName) {
    ObjectNode body = Json.mapper().createObjectNode();
    if (!schemaName.equals("InvoiceUpdate")) {
      body.putArray("line_items").add(line());
    }
    return body;
  }

  private static String abbreviate(String value) {
    return value.length() <= 200 ? value : value.substring(0, 200) + "…(" + value.length() + ")";
  }
}
