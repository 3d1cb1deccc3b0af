package ph.payments.gateway.pages;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Singleton;
import ph.payments.contracts.Topics;
import ph.payments.gateway.commands.CommandBus;
import ph.payments.gateway.idempotency.IdempotentCommands;
import ph.payments.platform.json.Json;

/**
 * The command path for the hosted pages' forms: the same commands, outbox and replies as the API,
 * for the merchant and environment of the resource the page shows (taken from the owner's public
 * read, never from the form), under the idempotency key of the form's token ({@link
 * FormTokens#idempotencyKey}), so a form submitted twice sends one command.
 */
@Singleton
public class PageCommands {

  /** A reply: its HTTP status and JSON body. */
  public record Reply(int status, JsonNode body) {

    public boolean ok() {
      return status >= 200 && status < 300;
    }

    /** The error code of a rejection, or empty text. */
    public String code() {
      return body.path("error").path("code").asText("");
    }

    public String message() {
      return body.path("error").path("message").asText("");
    }
  }

  private final IdempotentCommands idempotent;

  public PageCommands(IdempotentCommands idempotent) {
    this.idempotent = idempotent;
  }

  /**
   * Sends a command to payments-service and waits for its reply; a reply that does not come in time
   * is status 202 with an empty body (the command stays accepted, and the same form token gets its
   * outcome).
   *
   * @param route {@code POST /l/…}: what the idempotency key is bound to, with the body
   */
  public Reply send(
      String merchantId,
      String environment,
      String type,
      String resourceId,
      JsonNode body,
      String formToken,
      String route) {
    CommandBus.Request request =
        new CommandBus.Request(
            Topics.PAYMENTS_COMMANDS, type, merchantId, environment, resourceId, body);
    IdempotentCommands.Response response =
        idempotent.submit(
            FormTokens.idempotencyKey(formToken),
            "POST",
            route,
            request,
            id -> new IdempotentCommands.Response(null, 202, "{}", false));
    return new Reply(response.status(), Json.tree(response.body()));
  }
}
