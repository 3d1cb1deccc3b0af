package ph.payments.platform.micronaut;

import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.errors.ErrorEnvelope;

/**
 * Internal services answer only callers that present the shared internal token (health checks and
 * the Prometheus scrape excepted, so orchestrators and Prometheus can probe them). Without a
 * configured token nothing but health is served: an internal port is never open by accident.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
@Requires(property = "internal.require-token", value = "true")
public class InternalTokenFilter {

  public static final String HEADER = "X-Internal-Token";
  private static final Logger log = LoggerFactory.getLogger(InternalTokenFilter.class);

  private final byte[] token;

  public InternalTokenFilter(@Nullable @Value("${internal.token:}") String token) {
    this.token = token == null ? new byte[0] : token.getBytes(StandardCharsets.UTF_8);
    if (this.token.length == 0) {
      log.warn("INTERNAL_TOKEN is not set: only /health is served");
    }
  }

  @RequestFilter
  @Nullable
  public HttpResponse<?> check(HttpRequest<?> request) {
    String path = request.getPath();
    if (path.equals("/health") || path.startsWith("/health/")) {
      return null;
    }
    // Prometheus scrapes without the token: an internal port is reachable only on the project's
    // network, and the metrics name no merchant and no secret (docs/operations.md).
    if (path.equals("/prometheus")) {
      return null;
    }
    String presented = request.getHeaders().get(HEADER);
    if (token.length > 0
        && presented != null
        && MessageDigest.isEqual(token, presented.getBytes(StandardCharsets.UTF_8))) {
      return null;
    }
    return HttpResponse.status(HttpStatus.UNAUTHORIZED)
        .body(ErrorEnvelope.of(ErrorCode.UNAUTHENTICATED, "Missing or invalid internal token."));
  }
}
