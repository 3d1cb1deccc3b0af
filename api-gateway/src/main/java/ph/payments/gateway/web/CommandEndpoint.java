package ph.payments.gateway.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.gateway.auth.MerchantContext;
import ph.payments.gateway.commands.CommandBus;
import ph.payments.gateway.idempotency.IdempotencyKey;
import ph.payments.gateway.idempotency.IdempotentCommands;
import ph.payments.gateway.ratelimit.DeferredRateLimit;
import ph.payments.gateway.ratelimit.RateLimiter;
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
 * limit, validation) never touch a key.
 *
 * <p>No reply within {@code gateway.commands.reply-timeout}: the command is still applied. A
 * {@linkplain #create creation} then answers 202 Accepted with the id allocated for the resource,
 * {@code Location} (its GET path) and a body in the resource's shape as far as known ({@code id},
 * {@code object}, {@code environment}, {@code status: "pending"}), so a client that retries without
 * a key still holds the id and can look instead of creating a second resource; that GET answers
 * from the command log until the owner has applied the command ({@link #orPending}). Other commands
 * give 503 {@code internal_error} with {@code Retry-After}, and a retry with the same key returns
 * their result. See docs/decisions.md "A late reply to a creation is 202 with the id".
 *
 * <p>Secrets in a reply (a new webhook signing secret) arrive sealed ({@link ReplySealer}) and stay
 * sealed in the command log and the idempotency record; they are opened here only, into the HTTP
 * response, for the first answer and for every replay alike.
 */
@Singleton
public class CommandEndpoint {

  public static final String REPLAYED_HEADER = "Idempotent-Replayed";

  private static final Logger log = LoggerFactory.getLogger(CommandEndpoint.class);

  /**
   * The {@code status} of a resource whose creation is accepted but not applied: the first state of
   * payments, refunds and payouts (SPEC part 3); for webhook endpoints, which have no status, the
   * field appears only in this answer.
   */
  public static final String PENDING = "pending";

  private final CommandBus bus;
  private final IdempotentCommands idempotent;
  private final ReplySealer sealer;
  private final RateLimiter limiter;

  public CommandEndpoint(
      CommandBus bus, IdempotentCommands idempotent, ReplySealer sealer, RateLimiter limiter) {
    this.bus = bus;
    this.idempotent = idempotent;
    this.sealer = sealer;
    this.limiter = limiter;
  }

  /**
   * What a command creates, for the answers given before the owner applied it.
   *
   * @param commandType the creating command's type, e.g. {@code payments.create}
   * @param object the resource's {@code object} value, e.g. {@code payment}
   * @param collectionPath the public path of the resource's collection, e.g. {@code /v1/payments}
   */
  public record Creation(String commandType, String object, String collectionPath) {

    /** The resource's public GET path: the status URL of a 202. */
    public String location(String id) {
      return collectionPath + "/" + id;
    }
  }

  /**
   * Sends a creating command and answers with its reply, or, when the reply is late, with 202 and
   * the allocated {@code resourceId} (also what a replay under the same key answers while the
   * command is unanswered).
   */
  public HttpResponse<?> create(
      HttpRequest<?> request,
      MerchantContext merchant,
      String topic,
      Creation creation,
      String resourceId,
      JsonNode body) {
    return create(request, merchant, topic, creation, resourceId, body, Set.of());
  }

  /** As {@link #create} for a creation whose reply carries sealed secret fields. */
  public HttpResponse<?> create(
      HttpRequest<?> request,
      MerchantContext merchant,
      String topic,
      Creation creation,
      String resourceId,
      JsonNode body,
      Set<String> sealedFields) {
    return send(
        request, merchant, topic, creation.commandType(), resourceId, body, creation, sealedFields);
  }

  /**
   * A read of one resource that keeps a 202's status URL truthful: when the owner does not know
   * {@code id} ({@code 404}) but this merchant's creating command for it is in the command log, the
   * answer comes from the log: 202 with the pending body while the command waits, the owner's
   * rejection (status and error envelope) once it refused. Any other answer passes unchanged.
   */
  public HttpResponse<String> orPending(
      HttpResponse<String> read, MerchantContext merchant, Creation creation, String id) {
    if (read.getStatus().getCode() != HttpStatus.NOT_FOUND.getCode()) {
      return read;
    }
    Optional<CommandBus.Creation> logged =
        bus.creation(creation.commandType(), id, merchant.merchantId(), merchant.environment());
    if (logged.isEmpty()) {
      return read;
    }
    Optional<CommandReply> reply = logged.get().reply();
    if (reply.isEmpty()) {
      return HttpResponse.<String>status(HttpStatus.ACCEPTED)
          .contentType(MediaType.APPLICATION_JSON_TYPE)
          .header(HttpHeaders.RETRY_AFTER, retryAfter())
          .body(pendingBody(creation, id, merchant.environment()));
    }
    if (reply.get().status() >= 400) {
      // Rejections carry no secrets; a success never answers from here (the owner has it).
      return HttpResponse.<String>status(HttpStatus.valueOf(reply.get().status()))
          .contentType(MediaType.APPLICATION_JSON_TYPE)
          .body(Json.toText(reply.get().body()));
    }
    return read;
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
    return send(request, merchant, topic, commandType, resourceId, body, null, Set.of());
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
    return send(request, merchant, topic, commandType, resourceId, body, null, sealedFields);
  }

  /**
   * A mutating request the gateway applies itself (making an embed token): recorded in the command
   * log with its reply, honouring an {@code Idempotency-Key} like every other mutating {@code POST}
   * (a duplicate answers the stored response). Secrets in the reply are sealed by {@code
   * application} for the top-level {@code sealedFields} and opened only into this response, as for
   * an owner's reply.
   *
   * @param body the validated body, what the idempotency fingerprint is computed over
   */
  public HttpResponse<?> applyLocally(
      HttpRequest<?> request,
      MerchantContext merchant,
      String commandType,
      JsonNode body,
      CommandBus.LocalApplication application,
      Set<String> sealedFields) {
    CommandBus.Request command =
        new CommandBus.Request(
            CommandBus.LOCAL_TOPIC,
            commandType,
            merchant.merchantId(),
            merchant.environment(),
            null,
            body);
    DeferredRateLimit.of(request).ifPresent(deferred -> deferred.decideAlone(limiter));
    IdempotentCommands.Response response =
        idempotent.applyLocally(
            IdempotencyKey.from(request).orElse(null),
            request.getMethodName(),
            request.getPath(),
            command,
            application);
    return respond(
        response.status(),
        open(response.commandId(), response.body(), sealedFields),
        response.replayed());
  }

  private HttpResponse<?> send(
      HttpRequest<?> request,
      MerchantContext merchant,
      String topic,
      String commandType,
      @Nullable String resourceId,
      JsonNode body,
      @Nullable Creation creation,
      Set<String> sealedFields) {
    Optional<IdempotencyKey> key = IdempotencyKey.from(request);
    CommandBus.Request command =
        new CommandBus.Request(
            topic, commandType, merchant.merchantId(), merchant.environment(), resourceId, body);
    // Set only when the answer is the 202: the id it names (a replay's is the first request's).
    AtomicReference<String> pendingId = new AtomicReference<>();
    Function<String, IdempotentCommands.Response> late =
        creation == null
            ? null
            : id -> {
              pendingId.set(id);
              return new IdempotentCommands.Response(
                  null,
                  HttpStatus.ACCEPTED.getCode(),
                  pendingBody(creation, id, merchant.environment()),
                  false);
            };
    // A rate-limit decision left to the command path (DecidedWithCommand) is taken with the command
    // when it goes alone, and before anything is written when it goes with a key.
    Optional<DeferredRateLimit> rateLimit = DeferredRateLimit.of(request);
    IdempotentCommands.Response response;
    if (key.isEmpty()) {
      Optional<CommandReply> reply = bus.send(command, rateLimit.orElse(null));
      if (reply.isEmpty() && late == null) {
        throw CommandBus.late();
      }
      response =
          reply.isPresent()
              ? new IdempotentCommands.Response(
                  reply.get().commandId(),
                  reply.get().status(),
                  Json.toText(reply.get().body()),
                  false)
              : late.apply(resourceId);
    } else {
      rateLimit.ifPresent(deferred -> deferred.decideAlone(limiter));
      response =
          idempotent.submit(key.get(), request.getMethodName(), request.getPath(), command, late);
    }
    MutableHttpResponse<byte[]> answer =
        respond(
            response.status(),
            open(response.commandId(), response.body(), sealedFields),
            response.replayed());
    if (pendingId.get() != null) {
      answer.header(HttpHeaders.LOCATION, creation.location(pendingId.get()));
      answer.header(HttpHeaders.RETRY_AFTER, retryAfter());
    }
    return answer;
  }

  /**
   * The body with its sealed fields opened; the same stored body always gives the same bytes, so a
   * replay still answers exactly what the first request answered.
   *
   * @throws ApiException 500 when a sealed field does not open (the keys differ, or the stored
   *     reply was altered); the operation itself was applied
   */
  private String open(@Nullable String commandId, String body, Set<String> sealedFields) {
    if (commandId == null || sealedFields.isEmpty() || !body.contains(ReplySealer.PREFIX)) {
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

  /** What is known of a resource whose creating command was accepted but not yet applied. */
  static String pendingBody(Creation creation, String id, String environment) {
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("id", id);
    body.put("object", creation.object());
    body.put("environment", environment);
    body.put("status", PENDING);
    return Json.toText(body);
  }

  private static String retryAfter() {
    return Long.toString(CommandBus.RETRY_AFTER.toSeconds());
  }

  /** The body goes out as the stored bytes, never re-serialised. */
  private static MutableHttpResponse<byte[]> respond(int status, String body, boolean replayed) {
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
