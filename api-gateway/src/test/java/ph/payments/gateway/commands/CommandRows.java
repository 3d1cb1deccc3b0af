package ph.payments.gateway.commands;

import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.tx.Transactions;

/** Rows of the command log written straight into the table, for tests that set their times. */
final class CommandRows {

  private CommandRows() {}

  /**
   * A command of {@code type} for a new merchant, created at {@code created} and answered 200 with
   * {@code {}} at {@code replied} (null: not answered).
   *
   * @return its command id
   */
  static String insert(
      Transactions transactions,
      String type,
      String request,
      String resourceId,
      Instant created,
      Instant replied) {
    String id = IdType.COMMAND.generate();
    transactions.inTransaction(
        c -> {
          try (PreparedStatement insert =
              c.prepareStatement(
                  "INSERT INTO commands (command_id, command_type, topic, merchant_id,"
                      + " environment, resource_id, request, created_at, reply_status, reply_body,"
                      + " replied_at) VALUES (?, ?, 'test', ?, 'test', ?, ?::json, ?, ?, ?::json,"
                      + " ?)")) {
            insert.setString(1, id);
            insert.setString(2, type);
            insert.setString(3, IdType.MERCHANT.generate());
            insert.setString(4, resourceId);
            insert.setString(5, request);
            insert.setTimestamp(6, Timestamp.from(created));
            insert.setObject(7, replied == null ? null : 200, Types.INTEGER);
            insert.setString(8, replied == null ? null : "{}");
            insert.setTimestamp(9, replied == null ? null : Timestamp.from(replied));
            return insert.executeUpdate();
          }
        });
    return id;
  }
}
