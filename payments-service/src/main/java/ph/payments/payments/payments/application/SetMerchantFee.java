package ph.payments.payments.payments.application;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.json.Json;

/**
 * {@code merchant_fees.set} (operator): a merchant's own fee for one method, replacing the default
 * for payments created from now on ({@code percent} null removes the override).
 */
@Singleton
public class SetMerchantFee implements CommandHandler {

  public static final String TYPE = "merchant_fees.set";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    JsonNode body = command.body();
    String merchantId = body.get("merchant_id").asText();
    String method = body.get("method").asText();
    ObjectNode reply = Json.mapper().createObjectNode();
    reply.put("object", "merchant_fee");
    reply.put("merchant_id", merchantId);
    reply.put("method", method);
    if (body.get("percent").isNull()) {
      try (PreparedStatement delete =
          connection.prepareStatement(
              "DELETE FROM merchant_fees WHERE merchant_id = ? AND method = ?")) {
        delete.setString(1, merchantId);
        delete.setString(2, method);
        delete.executeUpdate();
      }
      reply.putNull("percent");
      reply.putNull("fixed_amount");
      return CommandReplies.ok(command, 200, reply);
    }
    BigDecimal percent = body.get("percent").decimalValue();
    BigDecimal fixed = body.get("fixed_amount").decimalValue().setScale(2);
    try (PreparedStatement upsert =
        connection.prepareStatement(
            "INSERT INTO merchant_fees (merchant_id, method, percent, fixed_amount) VALUES (?, ?, ?, ?)"
                + " ON CONFLICT (merchant_id, method) DO UPDATE SET percent = EXCLUDED.percent,"
                + " fixed_amount = EXCLUDED.fixed_amount")) {
      upsert.setString(1, merchantId);
      upsert.setString(2, method);
      upsert.setBigDecimal(3, percent);
      upsert.setBigDecimal(4, fixed);
      upsert.executeUpdate();
    }
    reply.put("percent", percent);
    reply.put("fixed_amount", fixed);
    return CommandReplies.ok(command, 200, reply);
  }
}
