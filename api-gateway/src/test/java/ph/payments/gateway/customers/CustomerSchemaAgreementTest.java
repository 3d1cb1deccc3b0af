package ph.payments.gateway.customers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import ph.payments.gateway.web.Fields;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;

/**
 * The customer body limits are written twice, in the OpenAPI schemas and in {@link
 * CustomersController}'s checks; this test proves they agree field by field: for every string
 * property of {@code CustomerCreate} and {@code CustomerUpdate} (and their address objects) a value
 * of the schema's {@code maxLength} passes the gateway's check and one character more is refused
 * naming the field, the schema's {@code minLength} is the shortest accepted, and the schema's
 * required and nullable properties are the ones the checks require and let be null.
 */
class CustomerSchemaAgreementTest {

  @Test
  void creationLimitsAgreeWithTheOpenApiSchema() {
    agree("CustomerCreate", true);
  }

  @Test
  void updateLimitsAgreeWithTheOpenApiSchema() {
    agree("CustomerUpdate", false);
  }

  @SuppressWarnings("unchecked")
  private static void agree(String schemaName, boolean create) {
    Map<String, Object> schemas = schemas();
    Map<String, Object> schema = (Map<String, Object>) schemas.get(schemaName);
    Map<String, Object> properties = (Map<String, Object>) schema.get("properties");
    List<String> required = (List<String>) schema.getOrDefault("required", List.of());
    assertEquals(
        List.of("name", "email", "phone", "address", "metadata"),
        new ArrayList<>(properties.keySet()),
        "the fields the controller allows");
    List<String> checked = new ArrayList<>();
    for (Map.Entry<String, Object> property : properties.entrySet()) {
      String name = property.getKey();
      Map<String, Object> spec = (Map<String, Object>) property.getValue();
      if (name.equals("address")) {
        Map<String, Object> ref = (Map<String, Object>) ((List<Object>) spec.get("allOf")).get(0);
        String target = ((String) ref.get("$ref")).replace("#/components/schemas/", "");
        Map<String, Object> address =
            (Map<String, Object>) ((Map<String, Object>) schemas.get(target)).get("properties");
        for (Map.Entry<String, Object> part : address.entrySet()) {
          checkString(
              create, "address", part.getKey(), (Map<String, Object>) part.getValue(), checked);
        }
        assertNullable(create, null, name, Boolean.TRUE.equals(spec.get("nullable")));
        continue;
      }
      if ("string".equals(spec.get("type"))) {
        checkString(create, null, name, spec, checked);
      }
      if (!name.equals("email")) { // an empty email is also accepted; covered by checkString
        boolean requiredHere = required.contains(name);
        assertEquals(
            requiredHere,
            issueOn(create, base(create), name, null, true) != null,
            name + " required");
      }
    }
    assertTrue(checked.size() >= 9, "every string limit was checked: " + checked);
  }

  /** One string property's limits: at max passes, max + 1 fails, min passes, min − 1 fails. */
  private static void checkString(
      boolean create, String parent, String name, Map<String, Object> spec, List<String> checked) {
    String field = parent == null ? name : parent + "." + name;
    Integer max = (Integer) spec.get("maxLength");
    Integer min = (Integer) spec.getOrDefault("minLength", 0);
    assertTrue(max != null, field + " has a maxLength in the schema");
    String pattern = (String) spec.get("pattern");
    assertEquals(null, issue(create, parent, name, valueOf(name, max, pattern)), field + " at max");
    assertTrue(
        issue(create, parent, name, valueOf(name, max + 1, pattern)) != null, field + " over max");
    if (min > 0) {
      assertTrue(
          issue(create, parent, name, valueOf(name, min - 1, pattern)) != null,
          field + " under min");
    }
    assertEquals(null, issue(create, parent, name, valueOf(name, min, pattern)), field + " at min");
    boolean nullable = Boolean.TRUE.equals(spec.get("nullable"));
    assertNullable(create, parent, name, nullable);
    checked.add(field);
  }

  private static void assertNullable(boolean create, String parent, String name, boolean nullable) {
    String field = parent == null ? name : parent + "." + name;
    if (!create && parent == null && name.equals("name")) {
      assertFalse(nullable);
    }
    assertEquals(nullable, issue(create, parent, name, null) == null, field + " nullable");
  }

  /** A value of {@code length} characters valid in form for the field. */
  private static String valueOf(String name, int length, String pattern) {
    if (name.equals("email") && length > 0) {
      return length < 5 ? "a".repeat(length) : "a".repeat(length - 4) + "@b.c";
    }
    if (pattern != null && pattern.equals("^[A-Z]{2}$")) {
      return "P".repeat(length);
    }
    return "x".repeat(length);
  }

  private static ObjectNode base(boolean create) {
    ObjectNode body = Json.mapper().createObjectNode();
    if (create) {
      body.put("name", "N");
    }
    return body;
  }

  /** The issue the controller's check records for the field set to {@code value}, or null. */
  private static String issue(boolean create, String parent, String name, String value) {
    ObjectNode body = base(create);
    ObjectNode target = parent == null ? body : body.putObject(parent);
    if (value == null) {
      target.putNull(name);
    } else {
      target.put(name, value);
    }
    return issueOn(create, body, parent == null ? name : parent + "." + name, value, false);
  }

  private static String issueOn(
      boolean create, ObjectNode body, String field, String value, boolean remove) {
    if (remove) {
      body.remove(field);
    }
    Fields fields = CustomersController.fields(body, create);
    try {
      fields.validate();
      return null;
    } catch (ApiException e) {
      return e.issues().get(field);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> schemas() {
    try (InputStream in =
        CustomerSchemaAgreementTest.class.getResourceAsStream("/openapi/openapi.yaml")) {
      Map<String, Object> document = new Yaml().load(in);
      return (Map<String, Object>)
          ((Map<String, Object>) document.get("components")).get("schemas");
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
