package ph.payments.webhooks.endpoints;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.IdType;

/**
 * Finds the endpoint a command is about, locked, within the command's merchant environment; or says
 * what the merchant is answered instead: 404, or 401 when the id is one of theirs in the other
 * environment (docs/decisions.md, "Cross-environment access").
 */
@Singleton
class EndpointLookup {

  private final JdbcWebhookEndpoints endpoints;

  EndpointLookup(JdbcWebhookEndpoints endpoints) {
    this.endpoints = endpoints;
  }

  /** Either the locked endpoint or the reply to send instead. */
  record Found(WebhookEndpoint endpoint, CommandReply refusal) {}

  Found lockForCommand(Connection connection, Command command) throws SQLException {
    String id = command.resourceId();
    if (command.merchantId() == null || command.environment() == null) {
      return new Found(
          null, CommandReplies.rejected(command, ErrorCode.NOT_FOUND, "No such webhook endpoint."));
    }
    if (IdType.WEBHOOK_ENDPOINT.matches(id)) {
      Optional<WebhookEndpoint> found =
          endpoints.find(connection, id, command.merchantId(), command.environment(), true);
      if (found.isPresent()) {
        return new Found(found.get(), null);
      }
      if (endpoints.existsInOtherEnvironment(
          connection, id, command.merchantId(), command.environment())) {
        return new Found(
            null,
            CommandReplies.rejected(
                command,
                ErrorCode.UNAUTHENTICATED,
                "This webhook endpoint belongs to the other environment; use a key of that"
                    + " environment."));
      }
    }
    return new Found(
        null, CommandReplies.rejected(command, ErrorCode.NOT_FOUND, "No such webhook endpoint."));
  }
}
