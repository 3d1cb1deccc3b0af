package ph.payments.gateway.pages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.web.router.Router;
import io.micronaut.web.router.UriRouteInfo;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.edge.ClientAddressLimited;
import ph.payments.gateway.support.GatewayTest;

/**
 * What the gateway answers for the hosted pages on its own, before payments-service is asked: the
 * assets, 404 pages for addresses of the wrong shape, 403 for a form without a CSRF token, and the
 * headers of every page. The pages with data are tested on the whole system ({@code
 * HostedPagesE2EIT}).
 */
@MicronautTest
class HostedPagesIT extends GatewayTest {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Inject Router router;

  @Test
  void theStylesheetAndTheScriptAreServed() throws Exception {
    HttpResponse<String> css = get("/assets/pages.css");
    assertEquals(200, css.statusCode());
    assertTrue(css.headers().firstValue("Content-Type").orElse("").startsWith("text/css"));
    assertTrue(css.body().contains(".test-banner"));
    assertEquals("nosniff", css.headers().firstValue("X-Content-Type-Options").orElse(""));
    HttpResponse<String> js = get("/assets/checkout.js");
    assertEquals(200, js.statusCode());
    assertTrue(js.body().contains("/status") || js.body().contains("data-status-url"));
  }

  @Test
  void addressesOfTheWrongShapeAreNotFoundPages() throws Exception {
    for (String path :
        new String[] {
          "/checkout/pay_01guessedid",
          "/checkout/ct_short",
          "/receipts/pay_01guessedid",
          "/receipts/history/cus_01guessedid",
          "/l/short",
          "/l/abc-defghijklmnop",
          "/l/short/print"
        }) {
      HttpResponse<String> page = get(path);
      assertEquals(404, page.statusCode(), path);
      assertTrue(page.body().contains("data-code=\"not_found\""), path);
      assertTrue(page.body().contains("<html lang=\"en\">"), path);
      assertEquals(
          "text/html;charset=utf-8",
          page.headers().firstValue("Content-Type").orElse("").replace(" ", ""),
          path);
      assertTrue(
          page.headers()
              .firstValue("Content-Security-Policy")
              .orElse("")
              .startsWith("default-src 'self'"),
          path);
      assertEquals("nosniff", page.headers().firstValue("X-Content-Type-Options").orElse(""));
      assertEquals("same-origin", page.headers().firstValue("Referrer-Policy").orElse(""));
      assertEquals("no-store", page.headers().firstValue("Cache-Control").orElse(""));
    }
  }

  @Test
  void aFormWithoutACsrfTokenIsRefusedBeforeAnythingIsRead() throws Exception {
    String token = "ct_" + "a".repeat(32);
    for (String path :
        new String[] {
          "/checkout/" + token + "/sandbox", "/checkout/" + token + "/card", "/l/abcdefghijklmnop"
        }) {
      HttpResponse<String> refused =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(server.getURL() + path))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .header("Cookie", "csrf=" + "b".repeat(43))
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "action=pay&csrf=" + "c".repeat(43) + "." + "d".repeat(22)))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(403, refused.statusCode(), path);
      assertTrue(refused.body().contains("data-code=\"invalid_token\""), path);
    }
  }

  @Test
  void everyPublicPageRouteIsLimitedPerClientAddress() {
    List<String> unlimited = new ArrayList<>();
    List<String> pages = new ArrayList<>();
    router
        .uriRoutes()
        .map(UriRouteInfo.class::cast)
        .forEach(
            route -> {
              String path = route.getUriMatchTemplate().toPathString();
              boolean customerFacing =
                  path.startsWith("/checkout/")
                      || path.startsWith("/receipts/")
                      || path.startsWith("/l/")
                      || path.startsWith("/i/")
                      || path.startsWith("/qr/")
                      || path.startsWith("/callbacks/");
              if (!customerFacing) {
                return;
              }
              pages.add(route.getHttpMethod() + " " + path);
              if (!route.getAnnotationMetadata().hasAnnotation(ClientAddressLimited.class)) {
                unlimited.add(route.getHttpMethod() + " " + path);
              }
            });
    assertTrue(pages.size() >= 14, pages.toString());
    assertTrue(pages.contains("POST /i/{token}"), pages.toString());
    assertEquals(List.of(), unlimited);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(server.getURL() + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
