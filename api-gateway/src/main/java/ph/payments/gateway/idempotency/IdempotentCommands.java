package ph.payments.gateway.idempotency;

import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.gateway.commands.CommandBus;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * Sends a command under an {@code Idempotency-Key} (SPEC parts 4 and 8; Stripe's semantics):
 *
 * <ul>
 *   <li>The record is claimed with the command and its outbox row, so concurrent duplicates create
 *       exactly one command: a new key in the one auto-committed statement that writes them (its
 *       insert guards theirs), a key that exists in a transaction that reads the record and writes
 *       the command only if the record lets it (its window ended). A duplicate that finds the key
 *       locked (its first request still waits for the reply, or waited in a gateway that died)
 *       waits for the same command's reply, up to the lock and the reply timeout, and answers it as
 *       a replay as soon as the owner's reply arrives (issue 19: it was 409 until the lock ended,
 *       ~10 s after a gateway died); 409 {@code conflict} only when no reply came in that time.
 *   <li>The same key with another method, path or body is 409 {@code conflict}.
 *   <li>A completed record replays its status and body byte for byte.
 *   <li>A record whose request gave up waiting (202 for a creation, 503 otherwise) is taken over by
 *       the retry, which waits for the same command's reply and, if that is still late, answers the
 *       same way: a command is never written twice for one key.
 *   <li>The response is stored by the durable reply recorder ({@link CompleteOnReply}) and by the
 *       waiting request, whichever comes first; both store the same bytes.
 * </ul>
 *
 * Records live for {@link IdempotencyRecords#WINDOW}; an older one is ignored on lookup.
 */
@Singleton
public class IdempotentCommands {

  private final CommandBus bus;
  private final Transactions transactions;
  private final Clock clock;

  public IdempotentCommands(CommandBus bus, Transactions transactions, Clock clock) {
    this.bus = bus;
    this.transactions = transactions;
    this.clock = clock;
  }

  /**
   * What the merchant is answered.
   *
   * @param commandId the command whose reply this is (sealed fields of the body are bound to it)
   * @param body JSON text, exactly as stored for replays (secrets in it still sealed)
   * @param replayed true when the response was stored before this request came
   */
  public record Response(String commandId, int status, String body, boolean replayed) {}

  /**
   * Sends {@code request} unless {@code key} already admitted a command, and answers with the
   * command's reply.
   *
   * @param method and {@code path}: the route, part of what a key is bound to
   * @param late the answer when the reply does not come in time, given the resource id of the
   *     command that was admitted (after a takeover, the first request's, not this one's): a
   *     creation's 202 with that id; null for 503. Nothing of it is stored: the record waits for
   *     the real reply
   * @throws ApiException 409 {@code conflict} when the key belongs to another request or its
   *     request is still being processed; 503 {@code internal_error} with {@code Retry-After} when
   *     the reply did not come in time and {@code late} is null (a retry with the same key gets the
   *     result)
   */
  public Response submit(
      IdempotencyKey key,
      String method,
      String path,
      CommandBus.Request request,
      @Nullable Function<String, Response> late) {
    Command command = bus.prepare(request);
    IdempotencyRecords.Owner owner = owner(key, request);
    String route = method + " " + path;
    String fingerprint = RequestFingerprint.of(method, path, request.body());
    AtomicReference<Claim> found = new AtomicReference<>();
    try (CommandBus.Waiter waiter = bus.expect(command.commandId())) {
      // The lock lasts as long as this request will wait for the reply. A new key (most requests)
      // is claimed in the command's own statement; one that exists is looked at in a transaction.
      Instant now = clock.instant();
      boolean admitted =
          bus.acceptGuarded(
              command,
              request.topic(),
              IdempotencyRecords.claimIfNew(
                  owner,
                  route,
                  fingerprint,
                  command.commandId(),
                  now,
                  now.plus(bus.replyTimeout())));
      if (!admitted) {
        bus.accept(
            command,
            request.topic(),
            claiming(owner, route, fingerprint, bus.replyTimeout(), found));
      }
      if (admitted || found.get() instanceof Claim.Admitted) {
        return answer(command, waiter.awaitReply(), late);
      }
    }

    Claim claim = found.get();
    if (claim instanceof Claim.Busy busy) {
      return awaitHolder(busy);
    }
    if (!(claim instanceof Claim.TakenOver takenOver)) {
      return replayOrRefuse(claim);
    }
    String commandId = takenOver.commandId();
    try (CommandBus.Waiter waiter = bus.expect(commandId)) {
      // The reply may have been recorded between the claim and the registration.
      Optional<CommandReply> reply = bus.recordedReply(commandId);
      return answer(
          bus.command(commandId).orElseThrow(),
          reply.isPresent() ? reply : waiter.awaitReply(),
          late);
    }
  }

  /**
   * Applies {@code request} in the gateway itself ({@link CommandBus#applyLocally}), under {@code
   * key} when there is one: the record is claimed, the command applied and the response stored in
   * one transaction, so a duplicate either replays the stored response or, arriving while the first
   * runs, waits on the record's row and then replays it. The same key for another request is 409
   * {@code conflict}, as for commands sent to an owner.
   *
   * @param key null to apply without an idempotency record
   */
  public Response applyLocally(
      @Nullable IdempotencyKey key,
      String method,
      String path,
      CommandBus.Request request,
      CommandBus.LocalApplication application) {
    Command command = bus.prepare(request);
    if (key == null) {
      CommandReply reply =
          bus.applyLocally(command, (connection, admitted) -> true, application).orElseThrow();
      return new Response(reply.commandId(), reply.status(), Json.toText(reply.body()), false);
    }
    AtomicReference<Claim> found = new AtomicReference<>();
    Optional<CommandReply> reply =
        bus.applyLocally(
            command,
            claiming(
                owner(key, request),
                method + " " + path,
                RequestFingerprint.of(method, path, request.body()),
                Duration.ZERO,
                found),
            (connection, admitted) -> {
              CommandReply applied = application.apply(connection, admitted);
              IdempotencyRecords.complete(
                  connection,
                  admitted.commandId(),
                  applied.status(),
                  Json.toText(applied.body()),
                  clock.instant());
              return applied;
            });
    if (reply.isPresent()) {
      return new Response(
          command.commandId(), reply.get().status(), Json.toText(reply.get().body()), false);
    }
    // A local record is never left in progress (it completes in the claiming transaction), so a
    // takeover cannot happen; were one found, it is refused like a busy key.
    Claim claim = found.get();
    return replayOrRefuse(
        claim instanceof Claim.TakenOver taken
            ? new Claim.Busy(taken.commandId(), Duration.ZERO)
            : claim);
  }

  /**
   * The admission that claims {@code owner}'s key for the request with {@code fingerprint} in the
   * accepting transaction, locking the record for {@code lock}, and leaves what it found in {@code
   * found}.
   */
  private CommandBus.Admission claiming(
      IdempotencyRecords.Owner owner,
      String route,
      String fingerprint,
      Duration lock,
      AtomicReference<Claim> found) {
    return (connection, admitted) -> {
      Instant now = clock.instant();
      Claim claim =
          IdempotencyRecords.claim(
              connection, owner, route, fingerprint, admitted.commandId(), now, now.plus(lock));
      found.set(claim);
      return claim instanceof Claim.Admitted;
    };
  }

  private static IdempotencyRecords.Owner owner(IdempotencyKey key, CommandBus.Request request) {
    return new IdempotencyRecords.Owner(
        Objects.requireNonNull(request.merchantId(), "merchantId"),
        Objects.requireNonNull(request.environment(), "environment"),
        key);
  }

  /**
   * Waits for the reply to the command that holds the key, no longer than the lock lasts nor than
   * this request would wait for its own reply, and answers it as a replay; 409 when none came. The
   * holder may be gone (its gateway died): the reply then reaches this request through this
   * instance's reply consumers (its recorder or its waker, whichever reads the reply's partition)
   * or, when it was published before this instance listened, the command log once the durable
   * recorder wrote it.
   */
  private Response awaitHolder(Claim.Busy busy) {
    Duration wait =
        busy.lockedFor().compareTo(bus.replyTimeout()) < 0 ? busy.lockedFor() : bus.replyTimeout();
    try (CommandBus.Waiter waiter = bus.expect(busy.commandId())) {
      Optional<CommandReply> reply = bus.recordedReply(busy.commandId());
      if (reply.isEmpty()) {
        reply = waiter.awaitReply(wait);
      }
      if (reply.isPresent()) {
        Response stored = store(busy.commandId(), reply.get());
        return new Response(stored.commandId(), stored.status(), stored.body(), true);
      }
    }
    return replayOrRefuse(busy);
  }

  /** The stored response of a completed record, or the refusal of a mismatched or busy key. */
  private static Response replayOrRefuse(Claim claim) {
    if (claim instanceof Claim.Completed completed) {
      return new Response(completed.commandId(), completed.status(), completed.body(), true);
    }
    if (claim instanceof Claim.Mismatch) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          "This Idempotency-Key was already used for a different request (method, path or body)."
              + " Use a new key for a new request.");
    }
    if (claim instanceof Claim.Busy busy) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          "A request with this Idempotency-Key is still being processed. Retry after it finished.",
          null,
          busy.lockedFor().isNegative() ? Duration.ZERO : busy.lockedFor());
    }
    throw new IllegalStateException("not a replay or a refusal: " + claim);
  }

  private Response answer(
      Command command, Optional<CommandReply> reply, Function<String, Response> late) {
    if (reply.isPresent()) {
      return store(command.commandId(), reply.get());
    }
    if (late == null) {
      throw CommandBus.late();
    }
    return late.apply(command.resourceId());
  }

  /**
   * Stores the reply on the record (unless the reply recorder was first) and answers with what is
   * stored, so this response and every replay are the same bytes.
   */
  private Response store(String commandId, CommandReply reply) {
    String body = Json.toText(reply.body());
    // One auto-committed statement stores and reads back; only when the reply recorder completed
    // the record while it ran does a second one read what the recorder stored.
    return transactions.autoCommitted(
        connection -> {
          Optional<Claim.Completed> stored =
              IdempotencyRecords.completeAndFind(
                  connection, commandId, reply.status(), body, clock.instant());
          if (stored.isEmpty()) {
            stored = IdempotencyRecords.findResponse(connection, commandId);
          }
          return stored
              .map(found -> new Response(commandId, found.status(), found.body(), false))
              .orElseGet(() -> new Response(commandId, reply.status(), body, false));
        });
  }
}
