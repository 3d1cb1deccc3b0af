package ph.payments.platform.commands;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.inbox.ReadAhead;
import ph.payments.platform.outbox.OutboxWriter;

/**
 * Applies one type of command inside the owner's transaction and says what the merchant sees.
 * Expected rejections (a refund of an unpaid payment, …) are replies with an error envelope, not
 * exceptions: an exception rolls the transaction back and the command is retried.
 */
public interface CommandHandler {

  /** The command type handled, one of {@code CommandTypes}. */
  String type();

  CommandReply handle(Connection connection, Command command) throws SQLException;

  /**
   * What {@link #apply} did.
   *
   * @param reply what the merchant sees
   * @param writes the handler's last writes, not made yet: the dispatcher makes them in the
   *     statement that puts the reply in the outbox, so they commit together
   */
  record Applied(CommandReply reply, List<OutboxWriter.Write> writes) {

    public Applied {
      writes = List.copyOf(writes);
    }
  }

  /**
   * Applies the command as {@link #handle} does, but may leave its last writes to the dispatcher
   * ({@link Applied#writes}), which sends them in one statement with the reply's outbox row: one
   * round trip to the database for what took one each. Only writes that nothing later in the
   * transaction reads may be left, and their failure fails the command as a failure in {@link
   * #handle} would. The default is {@link #handle}, with every write made.
   */
  default Applied apply(Connection connection, Command command) throws SQLException {
    return new Applied(handle(connection, command), List.of());
  }

  /**
   * What applying this handler's commands of one poll will read one by one, to be read for all of
   * them with the poll's inbox statement ({@link ReadAhead}), or null (the default) when there is
   * nothing to read ahead. {@code poll} is every command of the poll, of every type, in poll order
   * (some may have been applied before): a handler whose read an earlier command of the poll may
   * change returns null for that poll.
   */
  default ReadAhead readAhead(List<Command> poll) {
    return null;
  }

  /**
   * {@link #apply(Connection, Command)} with what {@link #readAhead} read for the command's poll:
   * {@code readAhead} is the object it returned, or null when nothing was read ahead (a command
   * dispatched on its own, or none returned), in which case the handler reads for itself. The
   * default ignores it.
   */
  default Applied apply(Connection connection, Command command, ReadAhead readAhead)
      throws SQLException {
    return apply(connection, command);
  }

  /**
   * Work that must happen before the owner's transaction opens, because it waits on another service
   * (an HTTP call) and no database transaction may be held open across such a wait. Runs for every
   * delivery of the command, before {@link #handle}, outside any transaction; it must be
   * idempotent, and it must record what {@link #handle} needs in the database itself, since {@link
   * #handle} may run without it (a redelivery after a crash, another instance). A failure here is
   * logged and swallowed: {@link #handle} sees that the work is missing and fails the command for a
   * retry.
   */
  default void prepare(Command command) {}

  /** The work of a handler, for {@link #of}. */
  @FunctionalInterface
  interface Work {
    CommandReply handle(Connection connection, Command command) throws SQLException;
  }

  /** A handler of {@code type} doing {@code work}: for families of handlers built in a loop. */
  static CommandHandler of(String type, Work work) {
    return new CommandHandler() {
      @Override
      public String type() {
        return type;
      }

      @Override
      public CommandReply handle(Connection connection, Command command) throws SQLException {
        return work.handle(connection, command);
      }
    };
  }
}
