package ph.payments.gateway.metrics;

import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.gateway.admin.AdminTokenFilter;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.errors.ErrorEnvelope;

/**
 * The gateway's port is public, so its Prometheus scrape ({@code /prometheus}) answers only {@code
 * Bearer $METRICS_TOKEN}: a token of its own, so Prometheus never holds the operator token; without
 * one every scrape is refused (docs/operations.md). The check is the operator API's (hashed,
 * constant time) with the other token. The internal services serve {@code /prometheus} on their
 * internal ports without a token.
 */
@ServerFilter({"/prometheus", "/prometheus/**", "/metrics", "/metrics/**"})
public class MetricsTokenFilter {

  private static final Logger log = LoggerFactory.getLogger(MetricsTokenFilter.class);

  private final AdminTokenFilter sameCheck; // null: no token, nothing passes

  public MetricsTokenFilter(@Nullable @Value("${metrics.token:}") String token) {
    if (token == null || token.isBlank()) {
      log.info("METRICS_TOKEN is not set: /prometheus refuses every scrape");
      this.sameCheck = null;
    } else {
      this.sameCheck = new AdminTokenFilter(token);
    }
  }

  @RequestFilter
  @Nullable
  public HttpResponse<?> check(HttpRequest<?> request) {
    if (sameCheck != null && sameCheck.check(request) == null) {
      return null;
    }
    return HttpResponse.status(HttpStatus.UNAUTHORIZED)
        .body(ErrorEnvelope.of(ErrorCode.UNAUTHENTICATED, "Missing or invalid metrics token."));
  }
}
