package ph.payments.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import ph.payments.platform.json.Json;

/** The gateway's public and operator API over the plain JDK client, as a merchant calls it. */
final class Api {

  /** A status and the body as JSON (null when the body is not JSON). */
  record Response(int status, JsonNode body, String text) {
    JsonNode expect(int expected) {
      if (status != expected) {
        throw new IllegalStateException("expected " + expected + ", got " + status + ": " + text);
      }
      return body;
    }
  }

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final String gateway;
  private final String adminToken;

  Api(String gateway, String adminToken) {
    this.gateway = gateway;
    this.adminToken = adminToken;
  }

  HttpClient http() {
    return http;
  }

  String gateway() {
    return gateway;
  }

  /** A new merchant; returns its id. */
  String createMerchant(String name) throws IOException, InterruptedException {
    return post(
            "/admin/v1/merchants",
            adminToken,
            Json.toText(Map.of("name", name, "email", "bench@example.com")))
        .expect(201)
        .get("id")
        .asText();
  }

  /**
   * Test-mode keys with every scope and this per-minute limit (operator override). Several keys
   * spread a fast client's requests so no key's sliding-window log grows large: the log is
   * rewritten on every admitted request, and a benchmark should not measure a 10,000-entry log.
   */
  Keys createKeys(String merchantId, int count, int limitPerMinute)
      throws IOException, InterruptedException {
    List<String> secrets = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String body =
          Json.toText(
              Map.of(
                  "environment",
                  "test",
                  "scopes",
                  List.of("*"),
                  "rate_limit_per_minute",
                  limitPerMinute));
      secrets.add(
          post("/admin/v1/merchants/" + merchantId + "/api_keys", adminToken, body)
              .expect(201)
              .get("secret")
              .asText());
    }
    return new Keys(secrets);
  }

  /** The body of every payment the benchmarks create. */
  static final String PAYMENT = "{\"amount\":100.00,\"method\":\"ewallet1\"}";

  /**
   * A payment (the resource as created), retried with the same {@code Idempotency-Key} while the
   * gateway answers 202 (accepted, reply still on its way: the first commands after a start can
   * take that long while consumers join their groups) or 409 (that first request still waits).
   */
  ObjectNode createPayment(String bearer) throws IOException, InterruptedException {
    String idempotencyKey = UUID.randomUUID().toString();
    for (int attempt = 1; ; attempt++) {
      Response response =
          send(
              HttpRequest.newBuilder(URI.create(gateway + "/v1/payments"))
                  .header("Content-Type", "application/json")
                  .header("Idempotency-Key", idempotencyKey)
                  .POST(HttpRequest.BodyPublishers.ofString(PAYMENT)),
              bearer);
      if ((response.status() != 202 && response.status() != 409) || attempt == 20) {
        return (ObjectNode) response.expect(201);
      }
      Thread.sleep(500);
    }
  }

  Response post(String path, String bearer, String json) throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(URI.create(gateway + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)),
        bearer);
  }

  Response get(String path, String bearer) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(gateway + path)).GET(), bearer);
  }

  private Response send(HttpRequest.Builder request, String bearer)
      throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            request
                .header("Authorization", "Bearer " + bearer)
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    JsonNode body;
    try {
      body = Json.mapper().readTree(response.body());
    } catch (IOException notJson) {
      body = null;
    }
    return new Response(response.statusCode(), body, response.body());
  }

  /** API key secrets used in turn. */
  static final class Keys {
    private final List<String> secrets;
    private final AtomicInteger next = new AtomicInteger();

    Keys(List<String> secrets) {
      this.secrets = List.copyOf(secrets);
    }

    String next() {
      return secrets.get(Math.floorMod(next.getAndIncrement(), secrets.size()));
    }

    String get(int index) {
      return secrets.get(index % secrets.size());
    }
  }
}
