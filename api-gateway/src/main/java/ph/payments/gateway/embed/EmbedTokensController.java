package ph.payments.gateway.embed;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.Set;
import ph.payments.gateway.auth.MerchantContext;
import ph.payments.gateway.auth.RequiresScope;
import ph.payments.gateway.web.CommandEndpoint;

/**
 * {@code POST /v1/embed_tokens} (SPEC part 2 "EmbedToken", issue 18; docs/decisions.md "Embed
 * tokens"): a short-lived JWT a merchant's server hands to its web page, which mounts the
 * embeddable panel with it. The gateway makes the token itself; the request is recorded in the
 * command log and honours {@code Idempotency-Key} like every mutating {@code POST}. A key needs
 * {@code embed:write} or {@code embed_tokens:write} (or {@code *}).
 */
@Controller("/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class EmbedTokensController {

  static final String COMMAND_TYPE = "embed_tokens.create";

  private final CommandEndpoint commands;
  private final ScopedCustomers customers;
  private final IssueEmbedToken issue;

  public EmbedTokensController(
      CommandEndpoint commands, ScopedCustomers customers, IssueEmbedToken issue) {
    this.commands = commands;
    this.customers = customers;
    this.issue = issue;
  }

  @Post("/embed_tokens")
  @RequiresScope({"embed:write", "embed_tokens:write"})
  public HttpResponse<?> create(HttpRequest<?> request, @Nullable @Body JsonNode json) {
    EmbedTokenRequest asked = EmbedTokenRequest.from(json);
    MerchantContext merchant = MerchantContext.of(request);
    // Asked of payments-service before the transaction; a replay under the same key answers what
    // was stored, whatever this finds now.
    ScopedCustomers.Resolution scope =
        asked.scopeField() == null
            ? null
            : customers.resolve(
                merchant.merchantId(),
                merchant.environment(),
                asked.scopeField(),
                asked.scopeValue());
    return commands.applyLocally(
        request,
        merchant,
        COMMAND_TYPE,
        json,
        (connection, command) -> issue.issue(connection, command, asked, scope),
        Set.of(IssueEmbedToken.TOKEN));
  }
}
