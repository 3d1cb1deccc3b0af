package ph.payments.gateway.webhooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import ph.payments.contracts.Topics;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;
import ph.payments.gateway.support.Sql;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * The webhook endpoint API's rules at the gateway, over real HTTP: every body rule names its field,
 * scopes are enforced, ids are checked, and a valid request becomes exactly the command
 * webhook-service expects (read back from the command log). No webhook-service runs here, so
 * accepted commands time out after a short reply timeout: 202 with the id for the creation, 503 for
 * the others.
 */
@MicronautTest
class WebhookEndpointsValidationIT extends GatewayTest {

  private static final String ENDPOINT = "whe_01jd3k4m5n6p7q8r9s0t1v2w3x";

  @Inject Transactions transactions;

  private String key;
  private Operator.Merchant merchant;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of(
        "gateway.commands.reply-timeout", "200ms",
        // Nothing listens here: reads and account secrets fail fast.
        "gateway.services.webhook-url", "http://127.0.0.1:1");
  }

  @BeforeAll
  void merchant() {
    merchant = operator().createMerchant("Webhook Rules");
    key = merchant.testSecret();
  }

  @ParameterizedTest(name = "{0} is refused on {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{}                                                              | url",
        "{\"url\":null}                                                  | url",
        "{\"url\":\"\"}                                                  | url",
        "{\"url\":\"/relative/hook\"}                                     | url",
        "{\"url\":\"ftp://hooks.example.ph/x\"}                           | url",
        "{\"url\":\"not a url\"}                                          | url",
        "{\"url\":7}                                                     | url",
        "{\"url\":\"https://hooks.example.ph\",\"events\":[]}             | events",
        "{\"url\":\"https://hooks.example.ph\",\"events\":\"*\"}          | events",
        "{\"url\":\"https://hooks.example.ph\",\"events\":[\"payment.pending\"]}  | events",
        "{\"url\":\"https://hooks.example.ph\",\"events\":[\"payment.refunded\"]} | events",
        "{\"url\":\"https://hooks.example.ph\",\"events\":[1]}            | events",
        "{\"url\":\"https://hooks.example.ph\",\"description\":5}         | description",
        "{\"url\":\"https://hooks.example.ph\",\"enabled\":false}         | enabled",
        "{\"url\":\"https://hooks.example.ph\",\"secret\":\"whsec_x\"}    | secret"
      })
  void eachCreationRuleNamesItsField(String body, String field) {
    Http.Response response = http().post("/v1/webhooks/endpoints", key, body.strip());
    assertEquals(400, response.status(), response.body());
    assertEquals("invalid_request", response.errorCode());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  @Test
  void urlsAndDescriptionsHaveLengthLimits() {
    String longUrl = "https://hooks.example.ph/" + "a".repeat(2049 - 25);
    assertEquals(2049, longUrl.length());
    assertEquals(
        400,
        http().post("/v1/webhooks/endpoints", key, Http.json(Map.of("url", longUrl))).status());
    String description = "d".repeat(501);
    Http.Response tooLong =
        http()
            .post(
                "/v1/webhooks/endpoints",
                key,
                Http.json(Map.of("url", "https://hooks.example.ph", "description", description)));
    assertTrue(tooLong.json().at("/error/issues/description").isTextual(), tooLong.body());
  }

  @Test
  void aValidCreationBecomesTheCommandWebhookServiceExpects() {
    Http.Response response =
        http()
            .post(
                "/v1/webhooks/endpoints",
                key,
                Http.json(Map.of("url", "https://hooks.example.ph/a", "description", "Shop")));
    assertEquals(202, response.status(), "accepted; no owner answers here");
    assertEquals(
        "/v1/webhooks/endpoints/" + response.json().get("id").asText(),
        response.header("Location").orElse(null));
    JsonNode command = lastCommand("webhooks.endpoints.create");
    assertEquals(Topics.WEBHOOKS_COMMANDS, command.get("topic").asText());
    assertEquals(merchant.id(), command.get("merchant_id").asText());
    assertEquals("test", command.get("environment").asText());
    assertTrue(command.get("resource_id").asText().matches("whe_[0-9a-z]{26}"));
    JsonNode body = command.get("body");
    assertEquals("https://hooks.example.ph/a", body.get("url").asText());
    assertEquals(
        List.of("payment.succeeded", "payment.failed"),
        Json.mapper().convertValue(body.get("events"), List.class),
        "the spec's default filled in");
    assertEquals("Shop", body.get("description").asText());

    http()
        .post(
            "/v1/webhooks/endpoints",
            key,
            "{\"url\":\"http://localhost:9000/hook\",\"events\":[\"*\",\"*\"]}");
    assertEquals(
        List.of("*"),
        Json.mapper()
            .convertValue(lastCommand("webhooks.endpoints.create").at("/body/events"), List.class));
  }

  @ParameterizedTest(name = "update {0} is refused on {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"url\":null}                    | url",
        "{\"url\":\"mailto:a@b.ph\"}       | url",
        "{\"events\":null}                 | events",
        "{\"events\":[\"nope\"]}           | events",
        "{\"enabled\":\"yes\"}             | enabled",
        "{\"enabled\":null}                | enabled",
        "{\"description\":[1]}             | description",
        "{\"secret\":\"whsec_x\"}          | secret"
      })
  void eachUpdateRuleNamesItsField(String body, String field) {
    Http.Response response = http().post("/v1/webhooks/endpoints/" + ENDPOINT, key, body.strip());
    assertEquals(400, response.status(), response.body());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  @Test
  void anUpdateSendsOnlyWhatChanges() {
    http()
        .post(
            "/v1/webhooks/endpoints/" + ENDPOINT, key, "{\"enabled\":false,\"description\":null}");
    JsonNode command = lastCommand("webhooks.endpoints.update");
    assertEquals(ENDPOINT, command.get("resource_id").asText());
    assertEquals("{\"description\":null,\"enabled\":false}", Json.toText(command.get("body")));
  }

  @Test
  void deleteRotateAndReplayAreCommandsOnTheirResource() {
    assertEquals(
        503, http().send("DELETE", "/v1/webhooks/endpoints/" + ENDPOINT, key, null).status());
    assertEquals(ENDPOINT, lastCommand("webhooks.endpoints.delete").get("resource_id").asText());
    assertEquals(
        503,
        http().post("/v1/webhooks/endpoints/" + ENDPOINT + "/rotate_secret", key, null).status());
    assertEquals(
        ENDPOINT, lastCommand("webhooks.endpoints.rotate_secret").get("resource_id").asText());
    assertEquals(503, http().post("/v1/webhooks/deliveries/42/replay", key, "{}").status());
    assertEquals("whd_42", lastCommand("webhooks.deliveries.replay").get("resource_id").asText());
    assertEquals(
        400, http().post("/v1/webhooks/deliveries/42/replay", key, "{\"now\":true}").status());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "GET /v1/webhooks/endpoints/whe_x",
        "GET /v1/webhooks/endpoints/pay_01jd3k4m5n6p7q8r9s0t1v2w3x",
        "POST /v1/webhooks/endpoints/whe_x",
        "DELETE /v1/webhooks/endpoints/whe_x",
        "POST /v1/webhooks/endpoints/whe_x/rotate_secret",
        "GET /v1/webhooks/endpoints/whe_x/deliveries",
        "GET /v1/webhooks/deliveries/abc",
        "GET /v1/webhooks/deliveries/whd_0",
        "GET /v1/webhooks/deliveries/-1/attempts",
        "POST /v1/webhooks/deliveries/whd_x/replay"
      })
  void malformedIdsAreNotFound(String request) {
    String[] parts = request.split(" ");
    Http.Response response =
        http().send(parts[0], parts[1], key, parts[0].equals("POST") ? "{}" : null);
    assertEquals(404, response.status(), request + " → " + response.body());
    assertEquals("not_found", response.errorCode());
  }

  @ParameterizedTest(name = "{0} is refused on {1}")
  @CsvSource({
    "/v1/webhooks/endpoints/" + ENDPOINT + "/deliveries?limit=0, limit",
    "/v1/webhooks/endpoints/" + ENDPOINT + "/deliveries?starting_after=evt_1, starting_after",
    "/v1/webhooks/endpoints/" + ENDPOINT + "/deliveries?status=lost, status",
    "/v1/webhooks/deliveries/whd_1/attempts?starting_after=whd_1, starting_after",
    "/v1/webhooks/deliveries/whd_1/attempts?limit=101, limit"
  })
  void listParametersAreChecked(String path, String field) {
    Http.Response response = http().get(path, key);
    assertEquals(400, response.status(), response.body());
    assertTrue(response.json().at("/error/issues/" + field).isTextual(), response.body());
  }

  @Test
  void scopesAreEnforced() {
    Operator.Key readOnly = operator().createKey(merchant.id(), "test", List.of("webhooks:read"));
    Http.Response write =
        http().post("/v1/webhooks/endpoints", readOnly.secret(), "{\"url\":\"https://a.ph\"}");
    assertEquals(403, write.status());
    assertEquals("insufficient_scope", write.errorCode());
    assertEquals(
        403, http().post("/v1/webhooks/deliveries/1/replay", readOnly.secret(), "{}").status());
    Operator.Key payments = operator().createKey(merchant.id(), "test", List.of("payments:read"));
    assertEquals(403, http().get("/v1/webhooks/endpoints", payments.secret()).status());
    assertEquals(401, http().get("/v1/webhooks/endpoints", null).status());
  }

  @Test
  void theAccountSecretIsNullWhenWebhookServiceCannotBeReached() {
    Http.Response created =
        http()
            .post(
                "/admin/v1/merchants",
                ADMIN_TOKEN,
                Http.json(Map.of("name", "No Webhooks Yet", "email", "nw@example.ph")));
    assertEquals(201, created.status(), created.body());
    assertTrue(created.json().get("webhook_secrets").has("test"));
    assertTrue(created.json().at("/webhook_secrets/test").isNull());
  }

  private Sql sql() {
    return new Sql(transactions);
  }

  /** The request of the newest command of {@code type}, as it went to the owner. */
  private JsonNode lastCommand(String type) {
    return Json.tree(
        sql()
            .text(
                "SELECT json_build_object('command_id', command_id, 'topic', topic, 'merchant_id',"
                    + " merchant_id, 'environment', environment, 'resource_id', resource_id,"
                    + " 'body', request)::text FROM commands WHERE command_type = ?"
                    + " ORDER BY created_at DESC LIMIT 1",
                type));
  }
}
