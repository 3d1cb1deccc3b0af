package ph.payments.platform.commands;

import java.sql.Connection;
import java.sql.SQLException;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;

/**
 * Applies one type of command inside the owner's transaction and says what the merchant sees.
 * Expected rejections (a refund of an unpaid payment, …) are replies with an error envelope, not
 * exceptions: an exception rolls the transaction back and the command is retried.
 */
public interface CommandHandler {

  /** The command type handled, one of {@code CommandTypes}. */
  String type();

  CommandReply handle(Connection connection, Command command) throws SQLException;
}
