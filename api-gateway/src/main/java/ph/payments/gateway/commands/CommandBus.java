package ph.payments.gateway.commands;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.outbox.OutboxMessage;
import ph.payments.platform.outbox.OutboxWriter;
import ph.payments.platform.tx.Transactions;

/**
 * The gateway side of the command path. {@link #submit} writes the command row and its outbox row
 * in one transaction, then waits for the owner's reply. Replies reach the waiting request through
 * {@link #complete}, called by the reply listeners of this instance; a reply that arrives after the
 * deadline is still recorded in the command log, where a retry finds it.
 */
@Singleton
public class CommandBus {

  private final Transactions transactions;
  private final OutboxWriter outbox;
  private final Clock clock;
  private final Duration replyTimeout;
  private final Map<String, CompletableFuture<CommandReply>> waiting = new ConcurrentHashMap<>();

  public CommandBus(
      Transactions transactions,
      OutboxWriter outbox,
      Clock clock,
      @Value("${gateway.commands.reply-timeout:10s}") Duration replyTimeout) {
    this.transactions = transactions;
    this.outbox = outbox;
    this.clock = clock;
    this.replyTimeout = replyTimeout;
  }

  /** A command to send; the bus allocates its id and time. */
  public record Request(
      String topic,
      String type,
      String merchantId,
      String environment,
      String resourceId,
      JsonNode body) {}

  /**
   * Accepts {@code request} and waits for its reply.
   *
   * @throws ApiException 503 {@code internal_error} with {@code Retry-After} when no reply came
   *     within the deadline; the command stays accepted and will still be applied
   */
  public CommandReply submit(Request request) {
    Command command =
        new Command(
            IdType.COMMAND.generate(),
            request.type(),
            request.merchantId(),
            request.environment(),
            request.resourceId(),
            request.body(),
            clock.instant());
    // Register before the commit: the reply cannot overtake the registration.
    CompletableFuture<CommandReply> reply = new CompletableFuture<>();
    waiting.put(command.commandId(), reply);
    try {
      accept(command, request.topic());
      return await(command.commandId(), reply);
    } finally {
      waiting.remove(command.commandId());
    }
  }

  /** Writes the command and its outbox row in one transaction; nothing is published before. */
  public void accept(Command command, String topic) {
    transactions.inTransaction(
        connection -> {
          CommandLog.insert(connection, command, topic);
          outbox.append(
              connection,
              new OutboxMessage(
                  command.commandId(),
                  topic,
                  command.commandId(),
                  CommandTypes.messageType(command.type()),
                  Json.toBytes(command)));
          return null;
        });
  }

  /** Hands a reply to the request waiting for it on this instance, if any. */
  public void complete(CommandReply reply) {
    CompletableFuture<CommandReply> waiter = waiting.get(reply.commandId());
    if (waiter != null) {
      waiter.complete(reply);
    }
  }

  /** The recorded reply of a command, if the owner has answered. */
  public Optional<CommandReply> recordedReply(String commandId) {
    return transactions.inTransaction(connection -> CommandLog.findReply(connection, commandId));
  }

  private CommandReply await(String commandId, CompletableFuture<CommandReply> reply) {
    try {
      return reply.get(replyTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      // The broadcast may have been missed (e.g. right after start-up); the log is the truth.
      return recordedReply(commandId)
          .orElseThrow(
              () ->
                  ApiException.unavailable(
                      "The request was accepted but is still being processed. Retry with the same"
                          + " Idempotency-Key to get its result.",
                      Duration.ofSeconds(1)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApiException.unavailable("Interrupted while waiting.", Duration.ofSeconds(1));
    } catch (ExecutionException e) {
      throw new IllegalStateException("reply future never fails", e);
    }
  }
}
