package ph.payments.webhooks.endpoints;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.webhooks.WebhookCommands;
import ph.payments.webhooks.targets.TargetGuard;

/**
 * Changes any of {@code url}, {@code events}, {@code description} (null clears it) and {@code
 * enabled}. Deliveries already scheduled go to the endpoint's URL as it is when they are attempted.
 */
@Singleton
public class UpdateEndpoint implements CommandHandler {

  private final JdbcWebhookEndpoints endpoints;
  private final EndpointLookup lookup;
  private final TargetGuard targets;
  private final Clock clock;

  UpdateEndpoint(
      JdbcWebhookEndpoints endpoints, EndpointLookup lookup, TargetGuard targets, Clock clock) {
    this.endpoints = endpoints;
    this.lookup = lookup;
    this.targets = targets;
    this.clock = clock;
  }

  @Override
  public String type() {
    return WebhookCommands.ENDPOINT_UPDATE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    EndpointLookup.Found found = lookup.lockForCommand(connection, command);
    if (found.refusal() != null) {
      return found.refusal();
    }
    WebhookEndpoint endpoint = found.endpoint();
    JsonNode body = command.body();
    Map<String, String> issues = new LinkedHashMap<>();
    String url = body.has("url") ? EndpointRules.url(body.get("url"), issues) : endpoint.url();
    List<String> events =
        body.has("events") ? EndpointRules.events(body.get("events"), issues) : endpoint.events();
    String description =
        body.has("description")
            ? EndpointRules.description(body.get("description"), issues)
            : endpoint.description();
    boolean enabled = endpoint.enabled();
    if (body.has("enabled")) {
      if (body.get("enabled").isBoolean()) {
        enabled = body.get("enabled").booleanValue();
      } else {
        issues.put("enabled", "must be true or false");
      }
    }
    if (url != null && !url.equals(endpoint.url())) {
      targets.refusal(url).ifPresent(why -> issues.put("url", why));
    }
    if (!issues.isEmpty()) {
      return CommandReplies.invalid(command, issues);
    }
    WebhookEndpoint updated = endpoint.with(url, events, description, enabled, clock.instant());
    endpoints.update(connection, updated);
    return CommandReplies.ok(command, 200, EndpointJson.of(updated));
  }
}
