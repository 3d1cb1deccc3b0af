package ph.payments.payments.payments.application;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.payments.customers.application.MerchantCustomers;
import ph.payments.payments.payments.domain.CheckoutTokens;
import ph.payments.payments.payments.domain.Customer;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.domain.PaymentStatus;
import ph.payments.payments.payments.persistence.JdbcPayments;
import ph.payments.payments.providers.ProviderAdapter;
import ph.payments.payments.providers.ProviderRouter;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.money.Money;

/**
 * {@code payments.create}: routes the payment to a provider, registers it there and stores it as
 * {@code pending}, with its fee and checkout window. No event is emitted at creation (SPEC part 3).
 * The body was validated by the gateway; the gateway also adds {@code idempotency_key} and {@code
 * merchant_name}.
 */
@Singleton
public class CreatePayment implements CommandHandler {

  public static final String TYPE = "payments.create";

  private final ProviderRouter router;
  private final JdbcPayments payments;
  private final Fees fees;
  private final PaymentMoves moves;
  private final Clock clock;
  private final Duration expiry;
  private final MerchantCustomers customers;

  public CreatePayment(
      ProviderRouter router,
      JdbcPayments payments,
      Fees fees,
      PaymentMoves moves,
      Clock clock,
      @Value("${payments.expiry:30m}") Duration expiry,
      MerchantCustomers customers) {
    this.router = router;
    this.payments = payments;
    this.fees = fees;
    this.moves = moves;
    this.clock = clock;
    this.expiry = expiry;
    this.customers = customers;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    JsonNode body = command.body();
    String method = body.get("method").asText();
    String currency = text(body, "currency").orElse("PHP");
    Money amount = Money.of(body.get("amount").decimalValue(), currency);
    Optional<ProviderAdapter> provider = router.route(command.environment(), method, currency);
    if (provider.isEmpty()) {
      return CommandReplies.rejected(
          command,
          ErrorCode.NO_ROUTE,
          "No provider is available for method " + method + " in " + currency + ".");
    }
    java.math.BigDecimal max = provider.get().maxAmount();
    if (max != null && amount.amount().compareTo(max) > 0) {
      return CommandReplies.invalid(
          command,
          java.util.Map.of(
              "amount", "must be at most " + max.toPlainString() + " for method " + method));
    }
    String customerId = text(body, "customer_id").orElse(null);
    Customer customer = customer(body.get("customer"));
    if (customerId != null) {
      Optional<ph.payments.payments.customers.domain.Customer> named =
          customers.forPayment(connection, customerId, command.merchantId(), command.environment());
      if (named.isEmpty()) {
        return CommandReplies.rejected(
            command, ErrorCode.CUSTOMER_NOT_FOUND, "No such customer: " + customerId + ".");
      }
      if (customer == null) {
        // SPEC part 2: without a customer object the payment takes the customer's email and name.
        customer = new Customer(named.get().email(), named.get().name());
      }
    }
    Instant now = clock.instant();
    Instant expiresAt = now.plus(expiry);
    ProviderAdapter.Registered registered =
        provider
            .get()
            .register(
                connection,
                new ProviderAdapter.Registration(
                    command.resourceId(),
                    command.merchantId(),
                    text(body, "merchant_name").orElse(command.merchantId()),
                    command.environment(),
                    method,
                    amount,
                    text(body, "description").orElse(null),
                    text(body, "return_url").orElse(null),
                    expiresAt,
                    CheckoutTokens.generate()));
    Payment payment =
        new Payment(
            command.resourceId(),
            command.merchantId(),
            command.environment(),
            PaymentStatus.PENDING,
            amount,
            method,
            provider.get().name(),
            registered.providerRef(),
            registered.checkout(),
            text(body, "return_url").orElse(null),
            text(body, "webhook_url").orElse(null),
            text(body, "description").orElse(null),
            customer,
            body.hasNonNull("metadata")
                ? (ObjectNode) body.get("metadata")
                : ph.payments.platform.json.Json.mapper().createObjectNode(),
            customerId,
            null,
            fees.scheduleFor(connection, command.merchantId(), method).feeFor(amount),
            null,
            Money.zero(currency),
            text(body, "idempotency_key").orElse(null),
            null,
            expiresAt,
            null,
            null,
            now,
            now);
    payments.insert(connection, payment);
    return CommandReplies.ok(command, 201, moves.json(payment));
  }

  private static Customer customer(JsonNode customer) {
    if (customer == null || customer.isNull()) {
      return null;
    }
    return new Customer(text(customer, "email").orElse(null), text(customer, "name").orElse(null));
  }

  private static Optional<String> text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? Optional.empty() : Optional.of(value.asText());
  }
}
