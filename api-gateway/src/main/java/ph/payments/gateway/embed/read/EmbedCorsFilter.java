package ph.payments.gateway.embed.read;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.annotation.Order;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpHeaders;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import ph.payments.gateway.auth.AuthOrder;

/**
 * CORS for the embed API only ({@code /embed/v1}; every other path keeps no CORS at all): any
 * origin may read it, because the token in the {@code Authorization} header is the credential and
 * no cookie is involved, so {@code Access-Control-Allow-Credentials} is never sent. A preflight is
 * answered here (204, GET and the {@code Authorization} header allowed) before anything else runs;
 * every answer, refusals and errors included, carries {@code Access-Control-Allow-Origin: *} (set,
 * never added twice) so the panel can read a 401 {@code invalid_token} and ask for a new token. The
 * JSON answers are {@code Cache-Control: no-store}; the panel's script keeps its own caching.
 */
@ServerFilter("/embed/v1/**")
@Order(AuthOrder.EMBED_CORS)
public class EmbedCorsFilter {

  static final String ALLOW_ORIGIN = "Access-Control-Allow-Origin";
  static final String ALLOW_METHODS = "Access-Control-Allow-Methods";
  static final String ALLOW_HEADERS = "Access-Control-Allow-Headers";
  static final String MAX_AGE = "Access-Control-Max-Age";
  static final String EXPOSE_HEADERS = "Access-Control-Expose-Headers";
  static final String REQUEST_METHOD = "Access-Control-Request-Method";

  @RequestFilter
  @Nullable
  public HttpResponse<?> preflight(HttpRequest<?> request) {
    if (request.getMethod() != HttpMethod.OPTIONS
        || !request.getHeaders().contains(REQUEST_METHOD)) {
      return null;
    }
    MutableHttpResponse<?> response = HttpResponse.noContent();
    MutableHttpHeaders headers = response.getHeaders();
    headers.set(ALLOW_ORIGIN, "*");
    headers.set(ALLOW_METHODS, "GET");
    headers.set(ALLOW_HEADERS, "Authorization");
    headers.set(MAX_AGE, "600");
    return response;
  }

  @ResponseFilter
  public void headers(HttpRequest<?> request, MutableHttpResponse<?> response) {
    MutableHttpHeaders headers = response.getHeaders();
    headers.set(ALLOW_ORIGIN, "*");
    headers.set(EXPOSE_HEADERS, "Retry-After, X-Request-Id");
    if (!EmbedAuthentication.isPanelScript(request) && request.getMethod() != HttpMethod.OPTIONS) {
      headers.set("Cache-Control", "no-store");
      headers.set("X-Content-Type-Options", "nosniff");
    }
  }
}
