package ph.payments.gateway.pages;

import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;

/**
 * Headers of the pages' static assets ({@code /assets/pages.css}, {@code /assets/checkout.js}):
 * {@code nosniff}, so a browser runs or applies them only as the type they are served with, and a
 * short public cache (they hold nothing private and change only with a release).
 */
@ServerFilter("/assets/**")
public class AssetHeadersFilter {

  @ResponseFilter
  public void headers(MutableHttpResponse<?> response) {
    response.header("X-Content-Type-Options", "nosniff");
    if (response.getStatus().getCode() == HttpResponse.ok().getStatus().getCode()) {
      response.header("Cache-Control", "public, max-age=300");
    }
  }
}
