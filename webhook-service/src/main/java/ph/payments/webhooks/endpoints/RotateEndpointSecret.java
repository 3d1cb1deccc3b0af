package ph.payments.webhooks.endpoints;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.sealing.ReplySealer;
import ph.payments.webhooks.WebhookCommands;
import ph.payments.webhooks.WebhookSettings;

/**
 * Gives an endpoint a new signing secret, shown in this response only. For the next 24 hours
 * ({@code webhooks.secret-rotation-overlap}) every delivery is signed with both secrets (two {@code
 * v1=} values), so the merchant can switch their receiver over without losing a delivery. The new
 * secret is sealed for the gateway, as in {@link CreateEndpoint}.
 */
@Singleton
public class RotateEndpointSecret implements CommandHandler {

  private final JdbcWebhookEndpoints endpoints;
  private final EndpointLookup lookup;
  private final WebhookSettings settings;
  private final Clock clock;
  private final ReplySealer sealer;

  RotateEndpointSecret(
      JdbcWebhookEndpoints endpoints,
      EndpointLookup lookup,
      WebhookSettings settings,
      Clock clock,
      ReplySealer sealer) {
    this.endpoints = endpoints;
    this.lookup = lookup;
    this.settings = settings;
    this.clock = clock;
    this.sealer = sealer;
  }

  @Override
  public String type() {
    return WebhookCommands.ENDPOINT_ROTATE_SECRET;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    EndpointLookup.Found found = lookup.lockForCommand(connection, command);
    if (found.refusal() != null) {
      return found.refusal();
    }
    Instant now = clock.instant();
    String secret =
        endpoints.rotate(
            connection, found.endpoint().id(), now, now.plus(settings.rotationOverlap()));
    return CommandReplies.ok(
        command,
        200,
        EndpointJson.of(
            found.endpoint(), sealer.seal(secret, command.commandId(), EndpointJson.SECRET)));
  }
}
