package ph.payments.gateway.edge;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.annotation.Order;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.web.router.RouteAttributes;
import java.util.Optional;
import ph.payments.gateway.auth.AuthOrder;

/**
 * Limits the routes marked {@link ClientAddressLimited} (checkout pages, QR images, provider
 * callbacks) per client address; over the limit, 429 {@code rate_limited} with {@code Retry-After}.
 */
@ServerFilter("/**")
@Order(AuthOrder.CLIENT_ADDRESS_LIMIT)
public class ClientAddressLimitFilter {

  private final ClientAddressLimits limits;
  private final ClientAddresses addresses;

  public ClientAddressLimitFilter(ClientAddressLimits limits, ClientAddresses addresses) {
    this.limits = limits;
    this.addresses = addresses;
  }

  @RequestFilter
  @Nullable
  public HttpResponse<?> limit(HttpRequest<?> request) {
    Optional<ClientAddressLimits.Kind> kind =
        RouteAttributes.getRouteMatch(request)
            .flatMap(
                route ->
                    route
                        .getAnnotationMetadata()
                        .enumValue(ClientAddressLimited.class, ClientAddressLimits.Kind.class));
    if (kind.isEmpty()) {
      return null;
    }
    ClientAddressLimits.Decision decision = limits.consume(kind.get(), addresses.of(request));
    return decision.allowed()
        ? null
        : RateLimitedResponses.tooMany(
            "Too many requests from your address.", decision.retryAfter());
  }
}
