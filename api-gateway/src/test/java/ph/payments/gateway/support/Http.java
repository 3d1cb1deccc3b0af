package ph.payments.gateway.support;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import ph.payments.platform.json.Json;

/** A merchant-style HTTP client over a real socket, answering status, headers and JSON body. */
public final class Http {

  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final String baseUrl;

  public Http(String baseUrl) {
    this.baseUrl = baseUrl;
  }

  /** One response; {@code json} is null when the body is empty or not JSON. */
  public record Response(
      int status, java.net.http.HttpHeaders headers, String body, JsonNode json) {

    public String errorCode() {
      return json == null ? null : json.at("/error/code").asText(null);
    }

    public Optional<String> header(String name) {
      return headers.firstValue(name);
    }

    @Override
    public String toString() {
      return status + " " + body;
    }
  }

  public Response get(String path, String bearer, String... headers) {
    return send("GET", path, bearer, null, headers);
  }

  public Response post(String path, String bearer, String body, String... headers) {
    return send("POST", path, bearer, body, headers);
  }

  /** {@code headers} alternate names and values. */
  public Response send(String method, String path, String bearer, String body, String... headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(30));
    if (bearer != null) {
      request.header("Authorization", "Bearer " + bearer);
    }
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    if (body != null) {
      request.header("Content-Type", "application/json");
      request.method(method, HttpRequest.BodyPublishers.ofString(body));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    try {
      HttpResponse<String> response =
          CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
      JsonNode json = null;
      if (!response.body().isEmpty()) {
        try {
          json = Json.tree(response.body());
        } catch (RuntimeException notJson) {
          json = null;
        }
      }
      return new Response(response.statusCode(), response.headers(), response.body(), json);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public static String json(Map<String, ?> fields) {
    return Json.toText(fields);
  }
}
