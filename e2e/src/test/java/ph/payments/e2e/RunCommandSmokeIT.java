package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The run command brings up the broker and the four services as separate processes; a command
 * written to the gateway's outbox crosses the real broker to its owners, and their replies come
 * back through their outboxes. On the {@link SharedSystem}, which bin/run started; that SIGTERM to
 * bin/run stops every process it started and leaves no port open is {@link
 * FaultStream#stopLeavingNothing}'s check, run on both systems under faults (restarted processes
 * included).
 */
@ExtendWith(SharedSystem.class)
class RunCommandSmokeIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static SystemUnderTest system;

  @BeforeAll
  static void takeTheSystem(SystemUnderTest shared) {
    system = shared;
  }

  /** Local development turns on what production leaves off, and says so before READY. */
  @Test
  void theLocalDevelopmentSettingsAreAnnounced() throws Exception {
    assertTrue(
        system.outputHas(
            "webhooks: private targets ALLOWED (local development;"
                + " WEBHOOK_ALLOW_PRIVATE_TARGETS=true)"));
    assertTrue(
        system.outputHas(
            "keys: development keys ALLOWED (local development; ALLOW_DEVELOPMENT_KEYS=true)"));
  }

  @Test
  void everyServiceIsHealthy() throws Exception {
    assertEquals(200, get(system.gatewayUrl() + "/health", null).statusCode());
    for (int port : system.internalPorts.values()) {
      HttpResponse<String> health = get("http://127.0.0.1:" + port + "/health", null);
      assertEquals(200, health.statusCode());
      JsonNode details = JSON.readTree(health.body()).get("details");
      assertEquals("UP", details.get("jdbc").get("status").asText());
      assertEquals("UP", details.get("kafka").get("status").asText());
    }
  }

  @Test
  void aCommandCrossesTheBrokerToEachOwnerAndTheRepliesComeBack() throws Exception {
    HttpResponse<String> response =
        post(system.gatewayUrl() + "/admin/v1/ping", "Bearer " + system.adminToken);
    assertEquals(200, response.statusCode(), response.body());
    JsonNode replies = JSON.readTree(response.body()).get("replies");
    Set<String> services = new HashSet<>();
    for (JsonNode reply : replies) {
      assertEquals("pong", reply.get("reply").get("object").asText());
      assertTrue(reply.get("reply").get("command_id").asText().startsWith("cmd_"));
      services.add(reply.get("reply").get("service").asText());
    }
    assertEquals(Set.of("payments-service", "webhook-service"), services);
  }

  @Test
  void errorsUseTheEnvelope() throws Exception {
    HttpResponse<String> wrongToken = post(system.gatewayUrl() + "/admin/v1/ping", "Bearer nope");
    assertEquals(401, wrongToken.statusCode());
    assertEquals("unauthenticated", JSON.readTree(wrongToken.body()).at("/error/code").asText());

    HttpResponse<String> anonymous = get(system.gatewayUrl() + "/v1/nothing-here", null);
    assertEquals(401, anonymous.statusCode(), "the key is checked before anything else");
    assertEquals("unauthenticated", JSON.readTree(anonymous.body()).at("/error/code").asText());

    HttpResponse<String> unknown = get(system.gatewayUrl() + "/nothing-here", null);
    assertEquals(404, unknown.statusCode());
    assertEquals("not_found", JSON.readTree(unknown.body()).at("/error/code").asText());

    int payments = system.internalPorts.get("payments");
    HttpResponse<String> internal = get("http://127.0.0.1:" + payments + "/anything", null);
    assertEquals(401, internal.statusCode(), "internal ports need the internal token");
  }

  private static HttpResponse<String> get(String url, String authorization) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).GET();
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return HTTP.send(
        request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(String url, String authorization) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url))
            .POST(HttpRequest.BodyPublishers.noBody())
            .header("Authorization", authorization)
            .timeout(Duration.ofSeconds(30))
            .build();
    return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
