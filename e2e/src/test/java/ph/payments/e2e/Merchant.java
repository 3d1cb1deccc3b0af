package ph.payments.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A merchant-style client: knows only the gateway URL, its key, and SPEC. */
final class Merchant {

  /** Decimals read exactly, as a careful merchant client reads money. */
  static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .setNodeFactory(
              com.fasterxml.jackson.databind.node.JsonNodeFactory.withExactBigDecimals(true));

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final String baseUrl;
  private final String bearer;

  Merchant(String baseUrl, String bearer) {
    this.baseUrl = baseUrl;
    this.bearer = bearer;
  }

  /** A response with its JSON body parsed. */
  record Reply(int status, HttpResponse<String> raw, JsonNode json) {
    String code() {
      return json.at("/error/code").asText(null);
    }

    /** The body of a 201; anything else fails the test with the body. */
    JsonNode created() {
      return expect(201);
    }

    /** The body of a 200; anything else fails the test with the body. */
    JsonNode ok() {
      return expect(200);
    }

    private JsonNode expect(int expected) {
      if (status != expected) {
        throw new AssertionError("expected " + expected + ", got " + status + ": " + raw.body());
      }
      return json;
    }
  }

  /** A JSON object from alternating keys and values, in that order. */
  static String json(Object... keysAndValues) {
    java.util.Map<String, Object> body = new java.util.LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      body.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return json(body);
  }

  /** {@code body} as a JSON object. */
  static String json(java.util.Map<String, ?> body) {
    try {
      return JSON.writeValueAsString(body);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  Reply get(String path) {
    return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).GET());
  }

  /**
   * Every element of a list ({@code /v1/events}, {@code /v1/payments}, …), paged as SPEC parts 4
   * and 6 describe: {@code limit=100}, {@code starting_after} the last id, while {@code has_more}.
   * {@code path} may carry a query of its own ({@code ?status=open}).
   */
  java.util.List<JsonNode> listAll(String path) {
    java.util.List<JsonNode> all = new java.util.ArrayList<>();
    String cursor = null;
    String first = path + (path.contains("?") ? "&" : "?") + "limit=100";
    while (true) {
      Reply page = get(first + (cursor == null ? "" : "&starting_after=" + cursor));
      if (page.status() != 200) {
        throw new AssertionError("GET " + path + " answered " + page.raw().body());
      }
      for (JsonNode item : page.json().get("data")) {
        all.add(item);
        cursor = item.get("id").asText();
      }
      if (!page.json().get("has_more").asBoolean()) {
        return all;
      }
    }
  }

  Reply post(String path, String body, String... headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body == null ? "" : body));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return send(request);
  }

  Reply patch(String path, String body) {
    return send(
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .header("Content-Type", "application/json")
            .method("PATCH", HttpRequest.BodyPublishers.ofString(body)));
  }

  private Reply send(HttpRequest.Builder request) {
    if (bearer != null) {
      request.header("Authorization", "Bearer " + bearer);
    }
    try {
      HttpResponse<String> response =
          HTTP.send(
              request.timeout(Duration.ofSeconds(30)).build(),
              HttpResponse.BodyHandlers.ofString());
      JsonNode json = null;
      if (response.body().startsWith("{")) {
        json = JSON.readTree(response.body());
      }
      return new Reply(response.statusCode(), response, json);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
