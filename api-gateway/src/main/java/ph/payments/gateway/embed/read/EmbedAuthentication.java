package ph.payments.gateway.embed.read;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.annotation.Order;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.web.router.RouteAttributes;
import io.micronaut.web.router.RouteMatch;
import ph.payments.gateway.auth.AuthOrder;
import ph.payments.gateway.embed.tokens.EmbedClaims;
import ph.payments.gateway.embed.tokens.EmbedTokenVerifier;
import ph.payments.gateway.embed.tokens.Tab;
import ph.payments.gateway.embed.tokens.Verification;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.errors.ErrorEnvelope;

/**
 * Authenticates every {@code /embed/v1} request by its embed token ({@code Authorization: Bearer
 * <jwt>}; never a cookie or a query parameter) and stores the {@link EmbedCaller}:
 *
 * <ol>
 *   <li>no token, or one {@link EmbedTokenVerifier} refuses (bad, expired, tampered, unknown key,
 *       other algorithm, merchant deactivated) → 401 {@code invalid_token}, one message for all;
 *   <li>a route not marked {@link EmbedRoute} → 403 {@code insufficient_scope};
 *   <li>a route of a tab the token lacks (or its audience may not see) → 403 {@code
 *       insufficient_scope}.
 * </ol>
 *
 * The one exception is {@code GET /embed/v1/panel.js}, the public script that mounts the panel. The
 * token is never logged nor repeated in an answer.
 */
@ServerFilter("/embed/v1/**")
@Order(AuthOrder.AUTHENTICATION)
public class EmbedAuthentication {

  /** The panel's script: public, served without a token (the widget's own controller). */
  public static final String PANEL_SCRIPT = "/embed/v1/panel.js";

  private static final String BEARER = "Bearer ";

  private final EmbedTokenVerifier verifier;

  public EmbedAuthentication(EmbedTokenVerifier verifier) {
    this.verifier = verifier;
  }

  @RequestFilter
  @ExecuteOn(TaskExecutors.BLOCKING)
  @Nullable
  public HttpResponse<?> authenticate(HttpRequest<?> request) {
    if (isPanelScript(request)) {
      return null;
    }
    String authorization = request.getHeaders().get("Authorization");
    if (authorization == null || !authorization.startsWith(BEARER)) {
      return error(
          ErrorCode.INVALID_TOKEN, "Provide the embed token as 'Authorization: Bearer <token>'.");
    }
    Verification verification = verifier.verify(authorization.substring(BEARER.length()).strip());
    if (!(verification instanceof Verification.Verified verified)) {
      return error(
          ErrorCode.INVALID_TOKEN,
          "The embed token is invalid or has expired; ask the merchant's server for a new one.");
    }
    EmbedClaims claims = verified.claims();
    request.setAttribute(EmbedCaller.ATTRIBUTE, new EmbedCaller(claims, verified.merchantName()));

    RouteMatch<?> route = RouteAttributes.getRouteMatch(request).orElse(null);
    if (route == null) {
      return null; // unknown route or method: the router answers 404 or 405 in the envelope
    }
    if (!route.getAnnotationMetadata().hasAnnotation(EmbedRoute.class)) {
      return error(ErrorCode.INSUFFICIENT_SCOPE, "This route does not take embed tokens.");
    }
    for (Tab tab : route.getAnnotationMetadata().enumValues(EmbedRoute.class, "tab", Tab.class)) {
      if (!claims.tabs().contains(tab) || !claims.audience().allows(tab)) {
        return error(
            ErrorCode.INSUFFICIENT_SCOPE,
            "This embed token does not include the tab " + tab.wire() + ".");
      }
    }
    return null;
  }

  /** Only the exact path and GET (or HEAD): no other spelling or method skips authentication. */
  static boolean isPanelScript(HttpRequest<?> request) {
    return PANEL_SCRIPT.equals(request.getPath())
        && (request.getMethod() == HttpMethod.GET || request.getMethod() == HttpMethod.HEAD);
  }

  private static HttpResponse<ErrorEnvelope> error(ErrorCode code, String message) {
    return HttpResponse.<ErrorEnvelope>status(HttpStatus.valueOf(code.httpStatus()))
        .body(ErrorEnvelope.of(code, message));
  }
}
