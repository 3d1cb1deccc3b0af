package ph.payments.gateway.web;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.gateway.auth.MerchantContext;
import ph.payments.gateway.commands.CommandBus;
import ph.payments.gateway.idempotency.IdempotencyKey;
import ph.payments.gateway.idempotency.IdempotentCommands;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.json.Json;
import ph.payments.platform.sealing.ReplySealer;

/**
 * The command path for controllers of mutating {@code /v1} operations (ARCHITECTURE "Command
 * path"). A controller authenticates (the filter did), validates its body, then hands over here:
 *
 * <pre>{@code
 * @Post @RequiresScope("payments:write") @ExecuteOn(TaskExecutors.BLOCKING)
 * HttpResponse<?> create(HttpRequest<?> request, @Nullable @Body JsonNode json) {
 *   Fields body = Fields.of(json).allowOnly(...);
 *   ...
 *   body.validate();
 *   return commands.execute(request, MerchantContext.of(request), Topics.PAYMENTS_COMMANDS,
 *       "payment.create", IdType.PAYMENT.generate(), validated);
 * }
 * }</pre>
 *
 * The answer is the owner's status and body. With an {@code Idempotency-Key} the command is
 * admitted at most once per key and the response is stored for replays (header {@code
 * Idempotent-Replayed: true}); requests rejected before this point (authentication, scope, rate
 * limit, validation) never touch a key. No reply within {@code gateway.commands.reply-timeout}
 * gives 503 {@code internal_error} with {@code Retry-After}; the command is still applied, and a
 * retry with the same key returns its result.
 *
 * <p>Secrets in a reply (a new webhook signing secret) arrive sealed ({@link ReplySealer}) and stay
 * sealed in the command log and the idempotency record; they are opened here only, into the HTTP
 * response, for the first answer and for every replay alike.
 */
@Singleton
public class CommandEndpoint {

  public static final String REPLAYED_HEADER = "Idempotent-Replayed";

  private static final Logger log = LoggerFactory.getLogger(CommandEndpoint.class);

  private final CommandBus bus;
  private final IdempotentCommands idempotent;
  private final ReplySealer sealer;

  public CommandEndpoint(CommandBus bus, IdempotentCommands idempotent, ReplySealer sealer) {
    this.bus = bus;
    this.idempotent = idempotent;
    this.sealer = sealer;
  }

  /**
   * Sends one command and answers with its reply. Call it on a blocking thread: it waits for the
   * reply.
   *
   * @param merchant the authenticated caller; merchant and environment come only from here
   * @param topic the owner's command topic, e.g. {@code Topics.PAYMENTS_COMMANDS}
   * @param commandType one of {@code CommandTypes}
   * @param resourceId the id allocated for the resource the command creates, or null
   * @param body the validated body the owner receives; also what the idempotency fingerprint is
   *     computed over, so bodies that mean the same validate to the same fingerprint
   * @throws ApiException 400 for a malformed {@code Idempotency-Key}, 409 {@code conflict} for a
   *     key of another request or of one still in progress, 503 when the reply is late
   */
  public HttpResponse<?> execute(
      HttpRequest<?> request,
      MerchantContext merchant,
      String topic,
      String commandType,
      @Nullable String resourceId,
      JsonNode body) {
    return execute(request, merchant, topic, commandType, resourceId, body, Set.of());
  }

  /**
   * As {@link #execute(HttpRequest, MerchantContext, String, String, String, JsonNode)} for an
   * operation whose reply carries secrets: the owner seals the top-level {@code sealedFields} of
   * its reply, and they are opened only into this HTTP response.
   */
  public HttpResponse<?> execute(
      HttpRequest<?> request,
      MerchantContext merchant,
      String topic,
      String commandType,
      @Nullable String resourceId,
      JsonNode body,
      Set<String> sealedFields) {
    Optional<IdempotencyKey> key = IdempotencyKey.from(request);
    CommandBus.Request command =
        new CommandBus.Request(
            topic, commandType, merchant.merchantId(), merchant.environment(), resourceId, body);
    if (key.isEmpty()) {
      CommandReply reply = bus.submit(command);
      return respond(
          reply.status(), open(reply.commandId(), Json.toText(reply.body()), sealedFields), false);
    }
    IdempotentCommands.Response response =
        idempotent.submit(key.get(), request.getMethodName(), request.getPath(), command);
    return respond(
        response.status(),
        open(response.commandId(), response.body(), sealedFields),
        response.replayed());
  }

  /**
   * The body with its sealed fields opened; the same stored body always gives the same bytes, so a
   * replay still answers exactly what the first request answered.
   *
   * @throws ApiException 500 when a sealed field does not open (the keys differ, or the stored
   *     reply was altered); the operation itself was applied
   */
  private String open(String commandId, String body, Set<String> sealedFields) {
    if (sealedFields.isEmpty() || !body.contains(ReplySealer.PREFIX)) {
      return body;
    }
    try {
      return Json.toText(sealer.openFields(Json.tree(body), commandId, sealedFields));
    } catch (ReplySealer.SealedValueException e) {
      log.error("command {}: {}", commandId, e.getMessage());
      throw new ApiException(
          ErrorCode.INTERNAL_ERROR,
          "The operation was applied, but its secret cannot be shown. Rotate the secret to get a"
              + " new one.");
    }
  }

  /** The body goes out as the stored bytes, never re-serialised. */
  private static HttpResponse<?> respond(int status, String body, boolean replayed) {
    MutableHttpResponse<byte[]> response =
        HttpResponse.<byte[]>status(HttpStatus.valueOf(status))
            .contentType(MediaType.APPLICATION_JSON_TYPE)
            .body(body.getBytes(StandardCharsets.UTF_8));
    if (replayed) {
      response.header(REPLAYED_HEADER, "true");
    }
    return response;
  }
}
