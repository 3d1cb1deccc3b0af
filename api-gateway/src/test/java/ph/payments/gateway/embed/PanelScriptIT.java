package ph.payments.gateway.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;

/**
 * {@code GET /embed/v1/panel.js} over a real socket, as a merchant's page on another origin loads
 * it: no token, the type and headers of the contract (plan 18, "Widget"), a conditional request,
 * and a script that builds its DOM without markup from strings.
 */
@MicronautTest
class PanelScriptIT extends GatewayTest {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void theScriptIsServedWithoutATokenWithTheContractsHeaders() throws Exception {
    HttpResponse<String> script = get("/embed/v1/panel.js", "Origin", "https://shop.example.ph");
    assertEquals(200, script.statusCode(), script.body());
    assertEquals(
        "application/javascript;charset=utf-8",
        header(script, "Content-Type").replace(" ", "").toLowerCase());
    assertEquals("public, max-age=300", header(script, "Cache-Control"));
    assertEquals("nosniff", header(script, "X-Content-Type-Options"));
    assertEquals("default-src 'none'", header(script, "Content-Security-Policy"));
    assertEquals(
        List.of("*"), script.headers().allValues("Access-Control-Allow-Origin"), "once, any");
    assertFalse(script.headers().firstValue("Access-Control-Allow-Credentials").isPresent());
    assertEquals("cross-origin", header(script, "Cross-Origin-Resource-Policy"));
    assertFalse(script.headers().firstValue("Set-Cookie").isPresent(), "no cookies");
    assertTrue(script.body().contains("customElements.define(TAG, PaymentsPanel)"));
    assertTrue(script.body().contains("\"payments-panel:token-expired\""));
  }

  @Test
  void aCachedCopyIsConfirmedWithNotModified() throws Exception {
    HttpResponse<String> first = get("/embed/v1/panel.js");
    String etag = header(first, "ETag");
    assertTrue(etag.matches("\"[A-Za-z0-9_-]{43}\""), etag);
    HttpResponse<String> again = get("/embed/v1/panel.js", "If-None-Match", etag);
    assertEquals(304, again.statusCode());
    assertEquals("", again.body());
    assertEquals(etag, header(again, "ETag"));
    assertEquals("public, max-age=300", header(again, "Cache-Control"));
    assertEquals(200, get("/embed/v1/panel.js", "If-None-Match", "\"older\"").statusCode());
  }

  /**
   * The rules the script keeps so that data can never become markup or code (docs/embedding.md,
   * "Security"): no {@code innerHTML}/{@code outerHTML}/{@code insertAdjacentHTML}/{@code
   * document.write}, no {@code eval}, {@code Function} or string timers, no inline handlers.
   */
  @Test
  void theScriptNeverTurnsStringsIntoMarkupOrCode() throws Exception {
    String body = get("/embed/v1/panel.js").body();
    for (String forbidden :
        List.of(
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
            "new Function",
            "setAttribute(\"on",
            "javascript:")) {
      assertFalse(body.contains(forbidden), "panel.js uses " + forbidden);
    }
    assertFalse(
        Pattern.compile("set(Timeout|Interval)\\(\\s*[\"'`]").matcher(body).find(),
        "a timer with a string is eval");
    assertTrue(body.contains("textContent") || body.contains("createTextNode"));
  }

  private HttpResponse<String> get(String path, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.getURL() + path));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return HTTP.send(request.GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String header(HttpResponse<?> response, String name) {
    return response.headers().firstValue(name).orElse("");
  }
}
