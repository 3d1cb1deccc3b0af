package ph.payments.payments.customers.application;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.payments.customers.domain.Customer;
import ph.payments.payments.customers.persistence.JdbcCustomers;
import ph.payments.payments.customers.web.CustomerJson;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;

/**
 * {@code customers.update}: changes the fields present in the body (docs/catalog.md): null or an
 * empty string clears email; null clears phone and address; an address object is merged part by
 * part onto the stored one; metadata is replaced. 409 {@code email_taken} as at creation.
 */
@Singleton
public class UpdateCustomer implements CommandHandler {

  private final JdbcCustomers customers;
  private final MerchantCustomers merchantCustomers;
  private final Clock clock;
  private final String publicBaseUrl;

  public UpdateCustomer(
      JdbcCustomers customers,
      MerchantCustomers merchantCustomers,
      Clock clock,
      @Value("${payments.public-base-url}") String publicBaseUrl) {
    this.customers = customers;
    this.merchantCustomers = merchantCustomers;
    this.clock = clock;
    this.publicBaseUrl = publicBaseUrl;
  }

  @Override
  public String type() {
    return CommandTypes.CUSTOMERS_UPDATE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    Customer stored;
    try {
      stored =
          merchantCustomers.require(
              connection, command.resourceId(), command.merchantId(), command.environment(), true);
    } catch (ApiException e) {
      return CommandReplies.rejected(command, e.code(), e.getMessage());
    }
    JsonNode body = command.body();
    Customer updated =
        new Customer(
            stored.id(),
            stored.merchantId(),
            stored.environment(),
            body.hasNonNull("name") ? body.get("name").asText() : stored.name(),
            body.has("email") ? CustomerFields.email(body) : stored.email(),
            body.has("phone") ? CustomerFields.text(body, "phone") : stored.phone(),
            body.has("address")
                ? CustomerFields.address(body.get("address"), stored.address())
                : stored.address(),
            body.has("metadata")
                ? (body.get("metadata").isObject()
                    ? (ObjectNode) body.get("metadata")
                    : Json.mapper().createObjectNode())
                : stored.metadata(),
            stored.receiptsToken(),
            stored.createdAt(),
            clock.instant());
    if (!customers.update(connection, updated)) {
      return CreateCustomer.emailTaken(command);
    }
    return CommandReplies.ok(command, 200, CustomerJson.of(updated, publicBaseUrl));
  }
}
