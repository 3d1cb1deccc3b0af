package ph.payments.gateway.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import ph.payments.gateway.embed.tokens.Surface;
import ph.payments.gateway.embed.tokens.Tab;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;

/**
 * The embed-token body rules are written twice, in the OpenAPI schema {@code EmbedTokenCreate} and
 * in {@link EmbedTokenRequest}; this test proves they agree, as {@code CustomerSchemaAgreementTest}
 * does for customers: the fields, the required ones, every enum (each value accepted, another
 * refused), every length, bound and item rule at the limit and one past it, and the defaults.
 */
class EmbedTokenSchemaAgreementTest {

  private final Map<String, Object> schema = schema("EmbedTokenCreate");
  private final Map<String, Map<String, Object>> properties = properties(schema);

  @Test
  void theFieldsAndTheRequiredOnesAgree() {
    assertEquals(EmbedTokenRequest.FIELDS, new ArrayList<>(properties.keySet()));
    assertEquals(Boolean.FALSE, schema.get("additionalProperties"));
    assertRefusedOn("colour", body -> body.put("colour", "blue"));
    List<String> required = strings(schema.get("required"));
    for (String field : EmbedTokenRequest.FIELDS) {
      boolean refused = issue(body -> body.remove(field)).containsKey(field);
      assertEquals(required.contains(field), refused, field + " required");
    }
  }

  @Test
  void everyEnumAgreesValueByValue() {
    for (String field : List.of("audience", "surface", "scope_field")) {
      List<String> values = strings(properties.get(field).get("enum"));
      assertTrue(values.size() >= 2, field);
      for (String value : values) {
        assertNull(issue(body -> scoped(body).put(field, value)).get(field), field + "=" + value);
      }
      assertRefusedOn(field, body -> scoped(body).put(field, values.get(0) + "x"));
    }
    assertEquals(
        Arrays.stream(Tab.values()).map(Tab::wire).toList(),
        strings(((Map<?, ?>) properties.get("tabs").get("items")).get("enum")));
  }

  @Test
  void lengthsBoundsAndItemRulesAgreeAtTheLimitAndOnePast() {
    Map<String, Object> value = properties.get("scope_value");
    int min = (Integer) value.get("minLength");
    int max = (Integer) value.get("maxLength");
    assertEquals(EmbedTokenRequest.SCOPE_VALUE_MAX, max);
    assertNull(issue(body -> scoped(body).put("scope_value", "x".repeat(max))).get("scope_value"));
    assertNull(issue(body -> scoped(body).put("scope_value", "x".repeat(min))).get("scope_value"));
    assertRefusedOn("scope_value", body -> scoped(body).put("scope_value", "x".repeat(max + 1)));
    assertRefusedOn("scope_value", body -> scoped(body).put("scope_value", "x".repeat(min - 1)));

    Map<String, Object> ttl = properties.get("ttl_seconds");
    int low = (Integer) ttl.get("minimum");
    int high = (Integer) ttl.get("maximum");
    assertNull(issue(body -> body.put("ttl_seconds", low)).get("ttl_seconds"));
    assertNull(issue(body -> body.put("ttl_seconds", high)).get("ttl_seconds"));
    assertRefusedOn("ttl_seconds", body -> body.put("ttl_seconds", low - 1));
    assertRefusedOn("ttl_seconds", body -> body.put("ttl_seconds", high + 1));
    assertEquals(EmbedTokenRequest.TTL_DEFAULT, ttl.get("default"));
    assertEquals(EmbedTokenRequest.TTL_DEFAULT, EmbedTokenRequest.from(base()).ttlSeconds());
    assertEquals(
        Surface.PAYMENTS.wire(),
        properties.get("surface").get("default"),
        "the schema's default surface");
    assertEquals(Surface.PAYMENTS, EmbedTokenRequest.from(base()).surface());

    Map<String, Object> project = properties.get("project_uuid");
    assertEquals(36, project.get("minLength"));
    assertEquals(36, project.get("maxLength"));
    assertRefusedOn(
        "project_uuid", body -> body.put("project_uuid", "123e4567e89b12d3a456426614174000"));

    Map<String, Object> tabs = properties.get("tabs");
    assertEquals(1, tabs.get("minItems"));
    assertEquals(Tab.values().length, tabs.get("maxItems"));
    assertEquals(Boolean.TRUE, tabs.get("uniqueItems"));
    assertRefusedOn("tabs", body -> body.putArray("tabs"));
    assertNull(
        issue(
                body -> {
                  ArrayNode all = body.putArray("tabs");
                  Arrays.stream(Tab.values()).forEach(tab -> all.add(tab.wire()));
                })
            .get("tabs"));
    assertRefusedOn("tabs", body -> body.putArray("tabs").add("payments").add("payments"));
  }

  // ---------------------------------------------------------------------------------------------

  private static ObjectNode base() {
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("project_uuid", "123e4567-e89b-12d3-a456-426614174000");
    body.put("audience", "merchant");
    return body;
  }

  /** The body with a scope, so scope_field and scope_value can each be tried alone. */
  private static ObjectNode scoped(ObjectNode body) {
    body.put("scope_field", "external_id");
    body.put("scope_value", "u-17");
    return body;
  }

  private static Map<String, String> issue(Consumer<ObjectNode> change) {
    ObjectNode body = base();
    change.accept(body);
    try {
      EmbedTokenRequest.from(body);
      return Map.of();
    } catch (ApiException e) {
      return e.issues();
    }
  }

  private static void assertRefusedOn(String field, Consumer<ObjectNode> change) {
    assertTrue(issue(change).containsKey(field), field + ": " + issue(change));
  }

  @SuppressWarnings("unchecked")
  private static List<String> strings(Object list) {
    return list == null ? List.of() : ((List<Object>) list).stream().map(String::valueOf).toList();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Map<String, Object>> properties(Map<String, Object> schema) {
    return (Map<String, Map<String, Object>>) schema.get("properties");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> schema(String name) {
    try (InputStream in =
        EmbedTokenSchemaAgreementTest.class.getResourceAsStream("/openapi/openapi.yaml")) {
      Map<String, Object> document = new Yaml().load(in);
      Map<String, Object> schemas =
          (Map<String, Object>) ((Map<String, Object>) document.get("components")).get("schemas");
      return (Map<String, Object>) schemas.get(name);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
