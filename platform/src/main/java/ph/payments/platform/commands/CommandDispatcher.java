package ph.payments.platform.commands;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.Topics;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.errors.ErrorEnvelope;
import ph.payments.platform.inbox.IdempotentConsumer;
import ph.payments.platform.inbox.ReadAhead;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.KafkaTracing;
import ph.payments.platform.outbox.OutboxMessage;
import ph.payments.platform.outbox.OutboxWriter;

/**
 * The owner side of the command path: in one transaction it records the command as consumed,
 * applies it, and puts the reply in the outbox. A redelivered command changes nothing and sends no
 * second reply; the first reply is already on its way.
 */
public final class CommandDispatcher {

  private static final Logger log = LoggerFactory.getLogger(CommandDispatcher.class);

  private final String consumerName;
  private final Map<String, CommandHandler> handlers;
  private final IdempotentConsumer inbox;
  private final OutboxWriter outbox;

  public CommandDispatcher(
      String consumerName,
      Collection<CommandHandler> handlers,
      IdempotentConsumer inbox,
      OutboxWriter outbox) {
    this.consumerName = consumerName;
    this.handlers =
        handlers.stream().collect(Collectors.toMap(CommandHandler::type, Function.identity()));
    this.inbox = inbox;
    this.outbox = outbox;
  }

  /**
   * Applies the command in {@code envelope} on {@code connection}, which must be in a transaction.
   *
   * @return true when it was applied now, false when it had been applied before
   */
  public boolean dispatch(Connection connection, Envelope envelope) throws SQLException {
    Command command = read(envelope);
    return inbox.apply(
        connection,
        consumerName,
        command.commandId(),
        tx -> {
          applyAndReply(tx, command, null);
          return null;
        });
  }

  /**
   * Applies the commands of one poll ({@code records}, in poll order) on {@code connection}, which
   * must be in a transaction: their ids go into the inbox in one statement, with what the handlers
   * read ahead for the poll ({@link CommandHandler#readAhead}) in the same round trip, then each
   * command not applied before is applied in poll order and its reply put in the outbox, each in a
   * span of its record ({@link KafkaTracing}). A command that comes twice in the poll is applied
   * once.
   *
   * @return how many commands were applied now
   */
  public int dispatchAll(Connection connection, List<ConsumerRecord<String, byte[]>> records)
      throws SQLException {
    List<Command> commands = new ArrayList<>(records.size());
    for (ConsumerRecord<String, byte[]> record : records) {
      commands.add(read(KafkaEnvelopes.fromRecord(record)));
    }
    Map<String, ReadAhead> readAheads = readAheads(commands);
    Set<String> fresh =
        inbox.recordAll(
            connection,
            consumerName,
            commands.stream().map(Command::commandId).toList(),
            List.copyOf(readAheads.values()));
    int applied = 0;
    for (int i = 0; i < records.size(); i++) {
      Command command = commands.get(i);
      if (fresh.remove(command.commandId())) {
        ReadAhead readAhead = readAheads.get(command.type());
        KafkaTracing.consume(
            "commands", // the span's name, as BatchApplier names a record's
            records.get(i),
            () -> {
              applyAndReply(connection, command, readAhead);
              return null;
            });
        applied++;
      }
    }
    return applied;
  }

  /** By command type, what the handlers of the poll's types read ahead for it. */
  private Map<String, ReadAhead> readAheads(List<Command> poll) {
    Map<String, ReadAhead> readAheads = new LinkedHashMap<>();
    for (Command command : poll) {
      CommandHandler handler = handlers.get(command.type());
      if (handler != null && !readAheads.containsKey(command.type())) {
        ReadAhead readAhead = handler.readAhead(poll);
        if (readAhead != null) {
          readAheads.put(command.type(), readAhead);
        }
      }
    }
    return readAheads;
  }

  private static Command read(Envelope envelope) {
    return Json.fromBytes(envelope.payload(), Command.class);
  }

  private void applyAndReply(Connection connection, Command command, ReadAhead readAhead)
      throws SQLException {
    CommandHandler.Applied applied = apply(connection, command, readAhead);
    OutboxMessage reply =
        OutboxMessage.of(
            Topics.COMMAND_REPLIES,
            command.commandId(),
            CommandTypes.REPLY,
            Json.toBytes(applied.reply()));
    if (applied.writes().isEmpty()) {
      outbox.append(connection, reply);
    } else {
      // The handler's last writes and the reply in one statement: one round trip.
      outbox.appendWith(connection, applied.writes(), reply);
    }
  }

  /** What the merchant is told about a command that was parked: it was not applied. */
  public static final String PARKED_MESSAGE =
      "The request was not applied: processing it failed repeatedly, and it was set aside for the"
          + " operator. Nothing was changed.";

  /**
   * Parks a command that keeps failing ({@code BatchApplier}): records it in the inbox, so a
   * redelivery does nothing, and replies 500 {@code internal_error} saying it was not applied, so
   * the gateway's waiting request and idempotency record complete. A command that cannot even be
   * read has no command id to answer; it is parked without a reply.
   *
   * @return true when the rejection reply was written
   */
  public boolean park(Connection connection, ConsumerRecord<String, byte[]> record)
      throws SQLException {
    Command command;
    try {
      command = Json.fromBytes(KafkaEnvelopes.fromRecord(record).payload(), Command.class);
    } catch (RuntimeException unreadable) {
      return false;
    }
    if (command == null || command.commandId() == null) {
      return false;
    }
    return inbox.apply(
        connection,
        consumerName,
        command.commandId(),
        tx -> {
          outbox.append(
              tx,
              OutboxMessage.of(
                  Topics.COMMAND_REPLIES,
                  command.commandId(),
                  CommandTypes.REPLY,
                  Json.toBytes(
                      CommandReplies.rejected(command, ErrorCode.INTERNAL_ERROR, PARKED_MESSAGE))));
          return null;
        });
  }

  /**
   * Runs the handler's {@link CommandHandler#prepare} for the command in {@code envelope}, outside
   * any transaction: call it before opening the transaction that {@link #dispatch}es the command.
   * Never throws; a failed preparation leaves the handler to fail the command for a retry.
   */
  public void prepare(Envelope envelope) {
    try {
      Command command = Json.fromBytes(envelope.payload(), Command.class);
      CommandHandler handler = handlers.get(command.type());
      if (handler != null) {
        handler.prepare(command);
      }
    } catch (RuntimeException e) {
      log.warn("preparing command message {} failed: {}", envelope.messageId(), e.toString());
    }
  }

  private CommandHandler.Applied apply(Connection connection, Command command, ReadAhead readAhead)
      throws SQLException {
    CommandHandler handler = handlers.get(command.type());
    if (handler == null) {
      // A gateway newer than this service; answer rather than block the partition.
      ErrorEnvelope error =
          ErrorEnvelope.of(ErrorCode.INTERNAL_ERROR, "This operation is not available yet.");
      return new CommandHandler.Applied(
          new CommandReply(
              command.commandId(),
              ErrorCode.INTERNAL_ERROR.httpStatus(),
              Json.mapper().valueToTree(error)),
          List.of());
    }
    return handler.apply(connection, command, readAhead);
  }
}
