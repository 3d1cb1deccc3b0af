package ph.payments.gateway.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/** Drives the operator API over HTTP, the way an operator's tooling would. */
public final class Operator {

  private final Http http;
  private final String adminToken;

  public Operator(Http http, String adminToken) {
    this.http = http;
    this.adminToken = adminToken;
  }

  /** A merchant with its sandbox key ({@code *} scope). */
  public record Merchant(String id, String testKeyId, String testSecret) {}

  /** An API key with its secret. */
  public record Key(String id, String secret) {}

  public Merchant createMerchant(String name) {
    Http.Response created =
        http.post(
            "/admin/v1/merchants",
            adminToken,
            Http.json(Map.of("name", name, "email", "ops+" + System.nanoTime() + "@example.com")));
    assertEquals(201, created.status(), created.body());
    JsonNode key = created.json().get("api_keys").get(0);
    return new Merchant(
        created.json().get("id").asText(), key.get("id").asText(), key.get("secret").asText());
  }

  /** Activates the merchant and returns its new live key. */
  public Key activate(String merchantId) {
    Http.Response live =
        http.post("/admin/v1/merchants/" + merchantId + "/activate", adminToken, null);
    assertEquals(200, live.status(), live.body());
    for (JsonNode key : live.json().get("api_keys")) {
      if (key.has("secret") && key.get("secret").asText().startsWith("sk_live_")) {
        return new Key(key.get("id").asText(), key.get("secret").asText());
      }
    }
    throw new AssertionError("no live key in " + live.body());
  }

  public void deactivate(String merchantId) {
    Http.Response response =
        http.post("/admin/v1/merchants/" + merchantId + "/deactivate", adminToken, null);
    assertEquals(200, response.status(), response.body());
  }

  public void reactivate(String merchantId) {
    Http.Response response =
        http.post("/admin/v1/merchants/" + merchantId + "/reactivate", adminToken, null);
    assertEquals(200, response.status(), response.body());
  }

  public Key createKey(String merchantId, String environment, List<String> scopes) {
    Http.Response created =
        http.post(
            "/admin/v1/merchants/" + merchantId + "/api_keys",
            adminToken,
            Http.json(Map.of("environment", environment, "scopes", scopes)));
    assertEquals(201, created.status(), created.body());
    return new Key(created.json().get("id").asText(), created.json().get("secret").asText());
  }

  public void revoke(String keyId) {
    Http.Response response = http.post("/admin/v1/api_keys/" + keyId + "/revoke", adminToken, null);
    assertEquals(200, response.status(), response.body());
  }

  public void setRateLimit(String keyId, Integer perMinute) {
    Http.Response response =
        http.post(
            "/admin/v1/api_keys/" + keyId + "/rate_limit",
            adminToken,
            "{\"rate_limit_per_minute\":" + perMinute + "}");
    assertEquals(200, response.status(), response.body());
  }
}
