package ph.payments.platform.commands;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Connection;
import java.time.Clock;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.platform.json.Json;

/** Answers {@code system.ping}: proves the command path end to end without changing anything. */
public final class SystemPingHandler implements CommandHandler {

  private final String serviceName;
  private final Clock clock;

  public SystemPingHandler(String serviceName, Clock clock) {
    this.serviceName = serviceName;
    this.clock = clock;
  }

  @Override
  public String type() {
    return CommandTypes.SYSTEM_PING;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) {
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("object", "pong");
    body.put("service", serviceName);
    body.put("command_id", command.commandId());
    body.put("issued", command.issuedAt().getEpochSecond());
    body.put("answered", clock.instant().getEpochSecond());
    return new CommandReply(command.commandId(), 200, body);
  }
}
