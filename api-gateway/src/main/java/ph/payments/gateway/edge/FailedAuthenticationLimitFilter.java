package ph.payments.gateway.edge;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.annotation.Order;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import ph.payments.gateway.auth.AuthOrder;

/**
 * Throttles API key guessing: every {@code /v1} answer 401 (missing, unknown, invalid or revoked
 * key) takes a token from the client address's bucket ({@code
 * gateway.edge.failed-authentication-per-minute}); while it is empty, every {@code /v1} request
 * from that address is 429 {@code rate_limited} before its key is looked at, so a guess that would
 * have been right is refused too. Same paths as {@code ApiKeyAuthentication}, and earlier.
 */
@ServerFilter("/v1/**")
@Order(AuthOrder.CLIENT_ADDRESS_LIMIT)
public class FailedAuthenticationLimitFilter {

  private static final String ADDRESS = "ph.payments.client-address";

  private final ClientAddressLimits limits;
  private final ClientAddresses addresses;

  public FailedAuthenticationLimitFilter(ClientAddressLimits limits, ClientAddresses addresses) {
    this.limits = limits;
    this.addresses = addresses;
  }

  @RequestFilter
  @Nullable
  public HttpResponse<?> check(HttpRequest<?> request) {
    String address = addresses.of(request);
    request.setAttribute(ADDRESS, address);
    ClientAddressLimits.Decision decision =
        limits.peek(ClientAddressLimits.Kind.FAILED_AUTHENTICATION, address);
    return decision.allowed()
        ? null
        : RateLimitedResponses.tooMany(
            "Too many requests with an invalid API key from your address.", decision.retryAfter());
  }

  @ResponseFilter
  public void count(HttpRequest<?> request, MutableHttpResponse<?> response) {
    if (response.code() == HttpStatus.UNAUTHORIZED.getCode()) {
      request
          .getAttribute(ADDRESS, String.class)
          .ifPresent(
              address -> limits.consume(ClientAddressLimits.Kind.FAILED_AUTHENTICATION, address));
    }
  }
}
