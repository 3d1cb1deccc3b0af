package ph.payments.payments.links.application;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.payments.customers.application.MerchantCustomers;
import ph.payments.payments.links.domain.LinkStatus;
import ph.payments.payments.links.domain.PaymentLink;
import ph.payments.payments.links.web.PaymentLinkJson;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.json.Json;

/**
 * {@code payment_links.create}: an {@code active} link with a fresh slug, {@code usage_count} 0.
 * The gateway checked the body's fields and limits (and that {@code expires_at} was in the future);
 * a {@code customer_id} that is not a customer of the merchant's environment is 404 {@code
 * customer_not_found}. No event: SPEC names none for links.
 */
@Singleton
public class CreatePaymentLink implements CommandHandler {

  public static final String TYPE = CommandTypes.PAYMENT_LINKS_CREATE;

  private final PaymentLinks links;
  private final MerchantCustomers customers;
  private final Clock clock;

  public CreatePaymentLink(PaymentLinks links, MerchantCustomers customers, Clock clock) {
    this.links = links;
    this.customers = customers;
    this.clock = clock;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    JsonNode body = command.body();
    String customerId = LinkFields.text(body, "customer_id");
    if (customerId != null
        && customers
            .forPayment(connection, customerId, command.merchantId(), command.environment())
            .isEmpty()) {
      return CommandReplies.rejected(
          command, ErrorCode.CUSTOMER_NOT_FOUND, "No such customer: " + customerId + ".");
    }
    Instant now = clock.instant();
    PaymentLink link =
        links.insert(
            connection,
            slug ->
                new PaymentLink(
                    command.resourceId(),
                    command.merchantId(),
                    command.environment(),
                    slug,
                    LinkFields.text(body, "description"),
                    LinkFields.amount(body),
                    body.hasNonNull("currency") ? body.get("currency").asText() : "PHP",
                    LinkFields.text(body, "method"),
                    LinkFields.text(body, "image_url"),
                    LinkFields.text(body, "success_url"),
                    LinkFields.text(body, "cancel_url"),
                    LinkStatus.ACTIVE,
                    customerId,
                    0,
                    null,
                    LinkFields.expiresAt(body),
                    body.hasNonNull("metadata") ? Json.toText(body.get("metadata")) : "{}",
                    now,
                    now));
    return CommandReplies.ok(command, 201, PaymentLinkJson.of(link, links.publicBaseUrl()));
  }
}
