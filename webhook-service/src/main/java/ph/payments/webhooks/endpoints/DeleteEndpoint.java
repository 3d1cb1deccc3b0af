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
import ph.payments.webhooks.WebhookCommands;
import ph.payments.webhooks.deliveries.JdbcDeliveries;

/**
 * Deletes an endpoint: it receives nothing more, its pending deliveries end as failed ("endpoint
 * deleted"), and it disappears from the API. Its attempt log stays until the retention purge.
 */
@Singleton
public class DeleteEndpoint implements CommandHandler {

  private final JdbcWebhookEndpoints endpoints;
  private final JdbcDeliveries deliveries;
  private final EndpointLookup lookup;
  private final Clock clock;

  DeleteEndpoint(
      JdbcWebhookEndpoints endpoints,
      JdbcDeliveries deliveries,
      EndpointLookup lookup,
      Clock clock) {
    this.endpoints = endpoints;
    this.deliveries = deliveries;
    this.lookup = lookup;
    this.clock = clock;
  }

  @Override
  public String type() {
    return WebhookCommands.ENDPOINT_DELETE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    EndpointLookup.Found found = lookup.lockForCommand(connection, command);
    if (found.refusal() != null) {
      return found.refusal();
    }
    Instant now = clock.instant();
    String id = found.endpoint().id();
    endpoints.delete(connection, id, now);
    deliveries.failPendingOfEndpoint(connection, id, "endpoint deleted", now);
    return CommandReplies.ok(command, 200, EndpointJson.deleted(id));
  }
}
