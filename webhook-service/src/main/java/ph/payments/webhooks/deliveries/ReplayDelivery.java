package ph.payments.webhooks.deliveries;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Optional;
import java.util.OptionalLong;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.webhooks.WebhookCommands;
import ph.payments.webhooks.endpoints.JdbcWebhookEndpoints;

/**
 * Replays a failed delivery (SPEC part 6: "can be replayed manually"): it becomes pending, due now,
 * with a fresh retry schedule, under the same delivery id. From a merchant (scoped to their
 * environment) or from the operator API (command without a merchant).
 */
@Singleton
public class ReplayDelivery implements CommandHandler {

  private final JdbcDeliveries deliveries;
  private final JdbcWebhookEndpoints endpoints;
  private final Clock clock;

  public ReplayDelivery(JdbcDeliveries deliveries, JdbcWebhookEndpoints endpoints, Clock clock) {
    this.deliveries = deliveries;
    this.endpoints = endpoints;
    this.clock = clock;
  }

  @Override
  public String type() {
    return WebhookCommands.DELIVERY_REPLAY;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    OptionalLong id = DeliveryJson.parseDelivery(command.resourceId());
    Optional<DeliveryView> found =
        id.isPresent() ? deliveries.find(connection, id.getAsLong()) : Optional.empty();
    if (found.isEmpty()
        || (command.merchantId() != null
            && !found.get().merchantId().equals(command.merchantId()))) {
      return CommandReplies.rejected(command, ErrorCode.NOT_FOUND, "No such webhook delivery.");
    }
    DeliveryView delivery = found.get();
    if (command.environment() != null && !delivery.environment().equals(command.environment())) {
      return CommandReplies.rejected(
          command,
          ErrorCode.UNAUTHENTICATED,
          "This delivery belongs to the other environment; use a key of that environment.");
    }
    if (delivery.endpointId() != null) {
      JdbcWebhookEndpoints.Stored endpoint =
          endpoints.findAny(connection, delivery.endpointId()).orElseThrow();
      if (endpoint.deleted()) {
        return CommandReplies.rejected(
            command, ErrorCode.INVALID_STATE, "The delivery's endpoint was deleted.");
      }
      if (!endpoint.endpoint().enabled()) {
        return CommandReplies.rejected(
            command,
            ErrorCode.INVALID_STATE,
            "The delivery's endpoint is disabled; enable it first.");
      }
    }
    if (!deliveries.replay(connection, delivery.id(), clock.instant())) {
      return CommandReplies.rejected(
          command,
          ErrorCode.INVALID_STATE,
          "Only a failed delivery can be replayed; this one is " + delivery.status().wire() + ".");
    }
    deliveries.notifySchedulers(connection);
    return CommandReplies.ok(
        command, 200, DeliveryJson.of(deliveries.find(connection, delivery.id()).orElseThrow()));
  }
}
