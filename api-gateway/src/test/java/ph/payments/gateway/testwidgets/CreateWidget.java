package ph.payments.gateway.testwidgets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.errors.ErrorEnvelope;
import ph.payments.platform.json.Json;

/**
 * Applies {@code test_widget.create}: inserts a widget row and answers 201 with the widget. A
 * widget described as {@value #DECLINE} is declined with 400 {@code invalid_state}, like an owner
 * refusing a request in its current state (a reply, not an exception: nothing is retried).
 */
final class CreateWidget implements CommandHandler {

  static final String DECLINE = "decline me";

  private final Clock clock;

  CreateWidget(Clock clock) {
    this.clock = clock;
  }

  /** The owner's own table; test-only, so it is created here rather than by a migration. */
  static Void createTable(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(
          "CREATE TABLE IF NOT EXISTS test_widgets ("
              + " id text PRIMARY KEY, merchant_id text NOT NULL, environment text NOT NULL,"
              + " command_id text NOT NULL UNIQUE, amount numeric(14,2) NOT NULL,"
              + " currency text NOT NULL, description text, metadata json NOT NULL,"
              + " created_at timestamptz NOT NULL)");
    }
    return null;
  }

  @Override
  public String type() {
    return TestWidgetsController.CREATE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    JsonNode body = command.body();
    if (DECLINE.equals(body.path("description").textValue())) {
      return new CommandReply(
          command.commandId(),
          400,
          Json.mapper()
              .valueToTree(
                  ErrorEnvelope.of(ErrorCode.INVALID_STATE, "This widget cannot be made.")));
    }
    Instant now = clock.instant();
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO test_widgets (id, merchant_id, environment, command_id, amount, currency,"
                + " description, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?::json, ?)")) {
      insert.setString(1, command.resourceId());
      insert.setString(2, command.merchantId());
      insert.setString(3, command.environment());
      insert.setString(4, command.commandId());
      insert.setBigDecimal(5, body.get("amount").decimalValue());
      insert.setString(6, body.get("currency").textValue());
      insert.setString(7, body.path("description").textValue());
      insert.setString(8, Json.toText(body.get("metadata")));
      insert.setTimestamp(9, Timestamp.from(now));
      insert.executeUpdate();
    }
    ObjectNode widget = Json.mapper().createObjectNode();
    widget.put("id", command.resourceId());
    widget.put("object", "test_widget");
    widget.put("environment", command.environment());
    widget.put("amount", body.get("amount").decimalValue());
    widget.put("currency", body.get("currency").textValue());
    widget.put("description", body.path("description").textValue());
    widget.set("metadata", body.get("metadata"));
    widget.put("created", now.getEpochSecond());
    return new CommandReply(command.commandId(), 201, widget);
  }
}
