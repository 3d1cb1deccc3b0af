package ph.payments.webhooks.endpoints;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.sealing.ReplySealer;
import ph.payments.webhooks.WebhookCommands;
import ph.payments.webhooks.WebhookSettings;
import ph.payments.webhooks.signing.SigningSecrets;
import ph.payments.webhooks.targets.TargetGuard;

/**
 * Registers an endpoint with the id the gateway allocated, and answers 201 with its signing secret:
 * the only time the secret is shown (a rotation shows the new one). The secret is sealed for the
 * gateway ({@link ReplySealer}), because the reply rests in the outbox, on the reply topic and in
 * the gateway's command log and idempotency record.
 */
@Singleton
public class CreateEndpoint implements CommandHandler {

  private final JdbcWebhookEndpoints endpoints;
  private final TargetGuard targets;
  private final WebhookSettings settings;
  private final Clock clock;
  private final ReplySealer sealer;

  public CreateEndpoint(
      JdbcWebhookEndpoints endpoints,
      TargetGuard targets,
      WebhookSettings settings,
      Clock clock,
      ReplySealer sealer) {
    this.endpoints = endpoints;
    this.targets = targets;
    this.settings = settings;
    this.clock = clock;
    this.sealer = sealer;
  }

  @Override
  public String type() {
    return WebhookCommands.ENDPOINT_CREATE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    if (command.merchantId() == null || !IdType.WEBHOOK_ENDPOINT.matches(command.resourceId())) {
      throw new IllegalArgumentException("endpoint creation without a merchant or an endpoint id");
    }
    JsonNode body = command.body();
    Map<String, String> issues = new LinkedHashMap<>();
    String url = EndpointRules.url(body.get("url"), issues);
    List<String> events =
        body.hasNonNull("events")
            ? EndpointRules.events(body.get("events"), issues)
            : EventTypes.DEFAULT;
    String description = EndpointRules.description(body.get("description"), issues);
    if (url != null) {
      targets.refusal(url).ifPresent(why -> issues.put("url", why));
    }
    if (!issues.isEmpty()) {
      return CommandReplies.invalid(command, issues);
    }
    if (endpoints.count(connection, command.merchantId(), command.environment())
        >= settings.maxEndpoints()) {
      return CommandReplies.rejected(
          command,
          ErrorCode.INVALID_REQUEST,
          "At most "
              + settings.maxEndpoints()
              + " webhook endpoints per environment; delete one first.");
    }
    Instant now = clock.instant();
    WebhookEndpoint endpoint =
        new WebhookEndpoint(
            command.resourceId(),
            command.merchantId(),
            command.environment(),
            url,
            events,
            description,
            true,
            now,
            now);
    String secret = SigningSecrets.generate();
    endpoints.insert(connection, endpoint, secret);
    return CommandReplies.ok(
        command,
        201,
        EndpointJson.of(endpoint, sealer.seal(secret, command.commandId(), EndpointJson.SECRET)));
  }
}
