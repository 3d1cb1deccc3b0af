package ph.payments.payments.customers.application;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.payments.customers.domain.Customer;
import ph.payments.payments.customers.domain.ReceiptsTokens;
import ph.payments.payments.customers.persistence.JdbcCustomers;
import ph.payments.payments.customers.web.CustomerJson;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.json.Json;

/**
 * {@code customers.create}: stores the customer with a fresh receipt-history token; 409 {@code
 * email_taken} when another customer of the merchant and environment has the email. No event (SPEC
 * part 6 has none for customers). The body was validated by the gateway.
 */
@Singleton
public class CreateCustomer implements CommandHandler {

  private final JdbcCustomers customers;
  private final Clock clock;
  private final String publicBaseUrl;

  public CreateCustomer(
      JdbcCustomers customers,
      Clock clock,
      @Value("${payments.public-base-url}") String publicBaseUrl) {
    this.customers = customers;
    this.clock = clock;
    this.publicBaseUrl = publicBaseUrl;
  }

  @Override
  public String type() {
    return CommandTypes.CUSTOMERS_CREATE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    JsonNode body = command.body();
    Instant now = clock.instant();
    Customer customer =
        new Customer(
            command.resourceId(),
            command.merchantId(),
            command.environment(),
            CustomerFields.text(body, "name"),
            CustomerFields.email(body),
            CustomerFields.text(body, "phone"),
            CustomerFields.address(body.get("address"), null),
            body.hasNonNull("metadata")
                ? (ObjectNode) body.get("metadata")
                : Json.mapper().createObjectNode(),
            ReceiptsTokens.generate(),
            now,
            now);
    if (!customers.insert(connection, customer)) {
      return emailTaken(command);
    }
    return CommandReplies.ok(command, 201, CustomerJson.of(customer, publicBaseUrl));
  }

  static CommandReply emailTaken(Command command) {
    return CommandReplies.rejected(
        command,
        ErrorCode.EMAIL_TAKEN,
        "Another customer in this environment already has this email.");
  }
}
