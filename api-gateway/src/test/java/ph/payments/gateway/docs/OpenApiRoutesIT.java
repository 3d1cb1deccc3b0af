package ph.payments.gateway.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.http.HttpMethod;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.web.router.Router;
import io.micronaut.web.router.UriRouteInfo;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;

/**
 * The served OpenAPI document and the gateway's route table agree: every public ({@code /v1}),
 * embed ({@code /embed/v1}, {@code /.well-known}) and operator ({@code /admin/v1}) route is
 * described, and nothing described is missing. Routes of the test sources ({@code /v1/test_…}, but
 * not the sandbox {@code /v1/test_helpers}) and the HEAD twins of GET routes are left out.
 */
@MicronautTest
class OpenApiRoutesIT extends GatewayTest {

  @Inject Router router;

  @Test
  void theDocumentIsServedWithoutAKey() {
    Http.Response response = http().get("/openapi.yaml", null);
    assertEquals(200, response.status());
    assertTrue(response.body().startsWith("openapi: 3."));
  }

  @Test
  @SuppressWarnings("unchecked")
  void everyRouteIsDescribedAndEveryDescribedRouteExists() {
    Map<String, Object> document = new Yaml().load(http().get("/openapi.yaml", null).body());
    Map<String, Map<String, Object>> paths =
        (Map<String, Map<String, Object>>) document.get("paths");
    Set<String> described = new TreeSet<>();
    paths.forEach(
        (path, operations) ->
            operations
                .keySet()
                .forEach(method -> described.add(method.toUpperCase() + " " + path)));

    Set<String> routed = new TreeSet<>();
    router
        .uriRoutes()
        .map(UriRouteInfo.class::cast)
        .forEach(
            route -> {
              String path = route.getUriMatchTemplate().toPathString();
              HttpMethod method = route.getHttpMethod();
              boolean api =
                  path.startsWith("/v1/")
                      || path.startsWith("/admin/v1/")
                      || path.startsWith("/embed/v1/")
                      || path.startsWith("/.well-known/");
              boolean testOnly =
                  path.startsWith("/v1/test_") && !path.startsWith("/v1/test_helpers/");
              if (api && method != HttpMethod.HEAD && !testOnly) {
                routed.add(method.name() + " " + path);
              }
            });
    assertEquals(described, routed);
  }
}
