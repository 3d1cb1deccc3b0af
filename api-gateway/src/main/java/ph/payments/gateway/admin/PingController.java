package ph.payments.gateway.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.List;
import ph.payments.contracts.Topics;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.gateway.commands.CommandBus;
import ph.payments.platform.json.Json;

/**
 * {@code POST /admin/v1/ping}: sends a no-op command through the outbox, Kafka and each command
 * owner, and returns their replies with the round-trip time. Operators use it to check the whole
 * command path, not just that processes are up.
 */
@Controller("/admin/v1")
public class PingController {

  private static final List<String> OWNERS =
      List.of(Topics.PAYMENTS_COMMANDS, Topics.WEBHOOKS_COMMANDS);

  private final CommandBus bus;

  public PingController(CommandBus bus) {
    this.bus = bus;
  }

  @Post("/ping")
  @ExecuteOn(TaskExecutors.BLOCKING)
  public HttpResponse<JsonNode> ping() {
    ObjectNode result = Json.mapper().createObjectNode();
    result.put("object", "ping");
    ArrayNode replies = result.putArray("replies");
    for (String topic : OWNERS) {
      long started = System.nanoTime();
      CommandReply reply =
          bus.submit(
              new CommandBus.Request(
                  topic,
                  CommandTypes.SYSTEM_PING,
                  null,
                  null,
                  null,
                  Json.mapper().createObjectNode()));
      ObjectNode entry = replies.addObject();
      entry.put("topic", topic);
      entry.put("round_trip_ms", (System.nanoTime() - started) / 1_000_000);
      entry.set("reply", reply.body());
    }
    return HttpResponse.ok(result);
  }
}
