package ph.payments.platform.commands;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.errors.ErrorEnvelope;
import ph.payments.platform.json.Json;

/** Replies as the merchant will see them: a resource with its status, or the error envelope. */
public final class CommandReplies {

  public static CommandReply ok(Command command, int status, JsonNode resource) {
    return new CommandReply(command.commandId(), status, resource);
  }

  /** An expected rejection, with the status of the one code-to-status mapping. */
  public static CommandReply rejected(Command command, ErrorCode code, String message) {
    return new CommandReply(
        command.commandId(),
        code.httpStatus(),
        Json.mapper().valueToTree(ErrorEnvelope.of(code, message)));
  }

  /** 400 {@code invalid_request} naming the bad fields. */
  public static CommandReply invalid(Command command, Map<String, String> issues) {
    ApiException invalid = ApiException.invalid(issues);
    return new CommandReply(
        command.commandId(), invalid.httpStatus(), Json.mapper().valueToTree(invalid.envelope()));
  }

  private CommandReplies() {}
}
