package ph.payments.gateway.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import ph.payments.contracts.Topics;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.gateway.commands.CommandBus;
import ph.payments.gateway.merchants.MerchantAccounts;
import ph.payments.gateway.web.Fields;
import ph.payments.gateway.webhooks.AccountWebhookSecrets;
import ph.payments.gateway.webhooks.WebhooksController;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;

/**
 * The operator's webhook tools, behind {@link AdminTokenFilter}: replaying any merchant's failed
 * delivery, and rotating a merchant environment's account-level webhook secret.
 */
@Controller("/admin/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class WebhookOperatorController {

  private static final Set<String> ENVIRONMENTS = Set.of("test", "live");

  private final CommandBus bus;
  private final MerchantAccounts accounts;
  private final AccountWebhookSecrets secrets;

  public WebhookOperatorController(
      CommandBus bus, MerchantAccounts accounts, AccountWebhookSecrets secrets) {
    this.bus = bus;
    this.accounts = accounts;
    this.secrets = secrets;
  }

  /** Replays a failed delivery of any merchant (a command without merchant scope). */
  @Post("/webhooks/deliveries/{id}/replay")
  public HttpResponse<byte[]> replay(String id) {
    CommandReply reply =
        bus.submit(
            new CommandBus.Request(
                Topics.WEBHOOKS_COMMANDS,
                WebhooksController.REPLAY,
                null,
                null,
                WebhooksController.deliveryId(id),
                Json.mapper().createObjectNode()));
    return HttpResponse.<byte[]>status(HttpStatus.valueOf(reply.status()))
        .contentType(MediaType.APPLICATION_JSON_TYPE)
        .body(Json.toText(reply.body()).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * {@code {environment}} → the new account-level secret, shown in this response only; the old one
   * keeps signing for 24 hours.
   */
  @Post("/merchants/{id}/webhook_secret/rotate")
  public HttpResponse<String> rotate(String id, @Nullable @Body JsonNode json) {
    if (!IdType.MERCHANT.matches(id)) {
      throw ApiException.notFound("merchant");
    }
    Fields body = Fields.of(json).allowOnly("environment");
    if (!body.has("environment")) {
      body.issue("environment", "is required");
    }
    String environment = body.optionalEnum("environment", ENVIRONMENTS);
    body.validate();
    accounts.find(id); // 404 for an unknown merchant
    return secrets.rotate(id, environment);
  }
}
