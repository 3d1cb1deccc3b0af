package ph.payments.gateway.auth;

import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.annotation.Order;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.web.router.RouteAttributes;
import io.micronaut.web.router.RouteMatch;
import jakarta.inject.Named;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import ph.payments.gateway.merchants.ApiKeyRow;
import ph.payments.gateway.merchants.ApiKeySecrets;
import ph.payments.gateway.merchants.MerchantRow;
import ph.payments.gateway.merchants.Scopes;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.errors.ErrorEnvelope;
import ph.payments.platform.ids.IdType;

/**
 * Authenticates every {@code /v1} request by its bearer API key (SPEC part 5) and stores the {@link
 * MerchantContext}. In this order:
 *
 * <ol>
 *   <li>missing, malformed, unknown or revoked key → 401 {@code unauthenticated};
 *   <li>merchant deactivated → 403 {@code merchant_inactive};
 *   <li>live key of a merchant not yet live → 403 {@code merchant_not_live};
 *   <li>sandbox-only route with a live key → 404 {@code not_found};
 *   <li>key without the route's scope → 403 {@code insufficient_scope}.
 * </ol>
 *
 * The key is found by its keyed hash through a unique index (no scan). With {@code
 * X-Service-Key-Id} the key is read by id instead and its hash compared in constant time, so a
 * wrong hint never authenticates anything. A key and its merchant are kept for a second after they
 * were read ({@link AuthenticatedKeys}). Secrets are never logged.
 *
 * <p>A key the cache holds is checked on the request's own thread, which does nothing that blocks
 * here; only a key that must be read from the database is checked on a blocking thread (most
 * requests come from a key seen a moment ago, and a hand-off to an idle thread is a wake-up).
 */
@ServerFilter("/v1/**")
@Order(AuthOrder.AUTHENTICATION)
public class ApiKeyAuthentication {

  public static final String KEY_ID_HEADER = "X-Service-Key-Id";
  private static final String BEARER = "Bearer ";

  private final KeyLookup lookup;
  private final ApiKeySecrets secrets;
  private final AuthenticatedKeys recent;
  private final int defaultRateLimit;
  private final Executor blocking;

  public ApiKeyAuthentication(
      KeyLookup lookup,
      ApiKeySecrets secrets,
      AuthenticatedKeys recent,
      @Value("${gateway.rate-limit.per-minute:100}") int defaultRateLimit,
      @Named(TaskExecutors.BLOCKING) Executor blocking) {
    this.lookup = lookup;
    this.secrets = secrets;
    this.recent = recent;
    this.defaultRateLimit = defaultRateLimit;
    this.blocking = blocking;
  }

  /**
   * @return a future of nothing to go on, or of the refusal; completed at once unless the key had
   *     to be read from the database (an {@code Optional}: Micronaut takes an empty one as "go on",
   *     while a future of null fails the request)
   */
  @RequestFilter
  public CompletableFuture<Optional<HttpResponse<?>>> authenticate(HttpRequest<?> request) {
    String authorization = request.getHeaders().get("Authorization");
    if (authorization == null || !authorization.startsWith(BEARER)) {
      return done(unauthenticated("Provide your API key as 'Authorization: Bearer sk_…'."));
    }
    String secret = authorization.substring(BEARER.length()).strip();
    String environment = ApiKeySecrets.environmentOf(secret);
    if (environment == null || secret.length() > 200) {
      return done(unauthenticated("Invalid API key."));
    }
    byte[] hash = secrets.hash(secret);
    String keyIdHint = request.getHeaders().get(KEY_ID_HEADER);
    if (keyIdHint != null && !IdType.API_KEY.matches(keyIdHint)) {
      return done(unauthenticated("Invalid API key."));
    }
    Optional<AuthenticatedKeys.Found> cached = recent.cached(hash);
    if (cached.isPresent()) {
      return done(admit(request, environment, keyIdHint, cached));
    }
    return CompletableFuture.supplyAsync(
        () -> {
          Optional<AuthenticatedKeys.Found> found =
              recent.find(hash, () -> lookup.find(keyIdHint, hash));
          return Optional.ofNullable(admit(request, environment, keyIdHint, found));
        },
        blocking);
  }

  private static CompletableFuture<Optional<HttpResponse<?>>> done(
      @Nullable HttpResponse<?> answer) {
    return CompletableFuture.completedFuture(Optional.ofNullable(answer));
  }

  /** The answer for the key found (or not) by the request's secret: null to go on. */
  @Nullable
  private HttpResponse<?> admit(
      HttpRequest<?> request,
      String environment,
      @Nullable String keyIdHint,
      Optional<AuthenticatedKeys.Found> found) {
    if (found.isEmpty()
        || (keyIdHint != null && !keyIdHint.equals(found.get().key().id()))
        || found.get().key().isRevoked()
        || !found.get().key().environment().equals(environment)) {
      return unauthenticated("Invalid API key.");
    }
    ApiKeyRow key = found.get().key();
    MerchantRow merchant = found.get().merchant();
    if (!merchant.isActive()) {
      return error(ErrorCode.MERCHANT_INACTIVE, "This merchant account is deactivated.");
    }
    if ("live".equals(environment) && !merchant.live()) {
      return error(
          ErrorCode.MERCHANT_NOT_LIVE,
          "This merchant is not activated for live payments yet; use a sk_test_ key.");
    }

    // Set before the route checks, so requests to unknown routes count against the rate limit.
    int limit = key.rateLimitPerMinute() != null ? key.rateLimitPerMinute() : defaultRateLimit;
    request.setAttribute(
        MerchantContext.ATTRIBUTE,
        new MerchantContext(
            merchant.id(), environment, key.id(), key.scopeSet(), limit, merchant.name()));

    RouteMatch<?> route = RouteAttributes.getRouteMatch(request).orElse(null);
    if (route == null) {
      return null; // unknown route: the router answers 404 in the envelope
    }
    if ("live".equals(environment)
        && route.getAnnotationMetadata().hasAnnotation(TestModeOnly.class)) {
      return error(ErrorCode.NOT_FOUND, "No such resource or route.");
    }
    String[] scopes = route.getAnnotationMetadata().stringValues(RequiresScope.class);
    if (Arrays.stream(scopes).noneMatch(scope -> Scopes.grants(key.scopeSet(), scope))) {
      return error(
          ErrorCode.INSUFFICIENT_SCOPE,
          "This API key lacks the scope "
              + (scopes.length == 0 ? "(undeclared)" : String.join(" or ", scopes))
              + ".");
    }
    return null;
  }

  private static HttpResponse<?> unauthenticated(String message) {
    return error(ErrorCode.UNAUTHENTICATED, message);
  }

  static HttpResponse<ErrorEnvelope> error(ErrorCode code, String message) {
    return HttpResponse.<ErrorEnvelope>status(HttpStatus.valueOf(code.httpStatus()))
        .body(ErrorEnvelope.of(code, message));
  }
}
