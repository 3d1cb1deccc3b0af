package ph.payments.gateway.admin.audit;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.web.router.RouteAttributes;
import io.micronaut.web.router.UriRouteMatch;
import java.time.Clock;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.gateway.admin.AdminTokenFilter;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * Records operator requests in {@code operator_audit} once they are answered: every request that
 * changes something ({@code POST}, {@code PUT}, {@code PATCH}, {@code DELETE}) and every read of
 * one merchant's data ({@code GET /admin/v1/merchants/**}), whatever the outcome, if the operator
 * token was accepted (a refused token is the token filter's 401 and names no operator). The row is
 * written before the response leaves, so an answered action is always in the audit; a failure to
 * write it is logged at ERROR and does not undo the action (it happened, often in another service).
 */
@ServerFilter("/admin/v1/**")
public class OperatorAuditFilter {

  private static final Logger log = LoggerFactory.getLogger(OperatorAuditFilter.class);

  /** The operator's own name for the audit, optional; anything else in it is ignored. */
  public static final String OPERATOR_HEADER = "X-Operator";

  private static final Pattern OPERATOR_NAME = Pattern.compile("[A-Za-z0-9 ._@-]{1,64}");
  private static final int MAX_REQUEST_CHARS = 4_096;

  private final Transactions transactions;
  private final OperatorAudit audit;
  private final Clock clock;

  public OperatorAuditFilter(Transactions transactions, OperatorAudit audit, Clock clock) {
    this.transactions = transactions;
    this.audit = audit;
    this.clock = clock;
  }

  @ResponseFilter
  @ExecuteOn(TaskExecutors.BLOCKING)
  public void record(HttpRequest<?> request, MutableHttpResponse<?> response) {
    Optional<String> tokenHash =
        request.getAttribute(AdminTokenFilter.TOKEN_HASH_ATTRIBUTE, String.class);
    if (tokenHash.isEmpty() || !audited(request)) {
      return;
    }
    String route = request.getPath();
    String target = null;
    Optional<UriRouteMatch> match =
        RouteAttributes.getRouteMatch(request)
            .filter(UriRouteMatch.class::isInstance)
            .map(UriRouteMatch.class::cast);
    if (match.isPresent()) {
      route = match.get().getRouteInfo().getUriMatchTemplate().toString();
      Object id = match.get().getVariableValues().get("id");
      target = id == null ? null : String.valueOf(id);
    }
    String name = request.getHeaders().get(OPERATOR_HEADER);
    OperatorAudit.Entry entry =
        new OperatorAudit.Entry(
            clock.instant(),
            tokenHash.get(),
            name != null && OPERATOR_NAME.matcher(name).matches() ? name : null,
            request.getMethodName(),
            route,
            request.getPath(),
            target,
            response.code(),
            errorCode(response),
            body(request));
    try {
      transactions.inTransaction(
          connection -> {
            audit.record(connection, entry);
            return null;
          });
    } catch (RuntimeException e) {
      log.error("operator audit not written for {} {}: {}", entry.method(), entry.path(), e, e);
    }
  }

  static boolean audited(HttpRequest<?> request) {
    HttpMethod method = request.getMethod();
    if (method == HttpMethod.GET || method == HttpMethod.HEAD) {
      return request.getPath().startsWith("/admin/v1/merchants/");
    }
    return method != HttpMethod.OPTIONS;
  }

  private static JsonNode body(HttpRequest<?> request) {
    try {
      Optional<JsonNode> body = request.getBody(JsonNode.class);
      if (body.isEmpty() || body.get().isMissingNode() || body.get().isNull()) {
        return null;
      }
      JsonNode redacted = OperatorAudit.redacted(body.get());
      if (redacted.toString().length() > MAX_REQUEST_CHARS) {
        return Json.mapper().createObjectNode().put("truncated", true);
      }
      return redacted;
    } catch (RuntimeException notJson) {
      return null;
    }
  }

  /** {@code error.code} of an error envelope; the response body is never stored. */
  private static String errorCode(MutableHttpResponse<?> response) {
    if (response.code() < 400) {
      return null;
    }
    try {
      Object body = response.getBody().orElse(null);
      JsonNode json =
          body instanceof String text
              ? Json.tree(text)
              : body instanceof byte[] bytes
                  ? Json.tree(bytes)
                  : body == null ? null : Json.mapper().valueToTree(body);
      JsonNode code = json == null ? null : json.at("/error/code");
      return code == null || !code.isTextual() ? null : code.asText();
    } catch (RuntimeException notJson) {
      return null;
    }
  }
}
