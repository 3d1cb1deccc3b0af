package ph.payments.payments.links.application;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Optional;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.payments.links.domain.LinkStatus;
import ph.payments.payments.links.domain.PaymentLink;
import ph.payments.payments.links.persistence.JdbcPaymentLinks;
import ph.payments.payments.links.web.PaymentLinkJson;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.json.Json;

/**
 * {@code payment_links.update} ({@code PATCH} and {@code POST /v1/payment_links/{id}}): the fields
 * present in the body replace the link's, under its row lock; absent ones stay; {@code null} clears
 * the nullable ones ({@code amount} and {@code method} null open them to the customer). {@code
 * status} may move either way (SPEC part 3). {@code usage_count}, {@code expires_at}, {@code
 * customer_id} and the slug never change here.
 *
 * <p>The link of a static QR is the QR's: it changes only through {@code /v1/static_qrs} (its name,
 * currency, archive), so an update here is 400 {@code invalid_state}.
 */
@Singleton
public class UpdatePaymentLink implements CommandHandler {

  public static final String TYPE = CommandTypes.PAYMENT_LINKS_UPDATE;

  private final MerchantPaymentLinks merchantLinks;
  private final JdbcPaymentLinks links;
  private final PaymentLinks paymentLinks;
  private final Clock clock;

  public UpdatePaymentLink(
      MerchantPaymentLinks merchantLinks,
      JdbcPaymentLinks links,
      PaymentLinks paymentLinks,
      Clock clock) {
    this.merchantLinks = merchantLinks;
    this.links = links;
    this.paymentLinks = paymentLinks;
    this.clock = clock;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    PaymentLink l;
    try {
      l =
          merchantLinks.require(
              connection, command.resourceId(), command.merchantId(), command.environment(), true);
    } catch (ApiException e) {
      return CommandReplies.rejected(command, e.code(), e.getMessage());
    }
    Optional<String> staticQr = links.staticQrIdOf(connection, l.id());
    if (staticQr.isPresent()) {
      return CommandReplies.rejected(
          command,
          ErrorCode.INVALID_STATE,
          "This payment link is the one static QR "
              + staticQr.get()
              + " encodes; change it through /v1/static_qrs/"
              + staticQr.get()
              + ".");
    }
    JsonNode b = command.body();
    PaymentLink updated =
        new PaymentLink(
            l.id(),
            l.merchantId(),
            l.environment(),
            l.slug(),
            b.has("description") ? LinkFields.text(b, "description") : l.description(),
            b.has("amount") ? LinkFields.amount(b) : l.amount(),
            b.has("currency") ? LinkFields.text(b, "currency") : l.currency(),
            b.has("method") ? LinkFields.text(b, "method") : l.method(),
            b.has("image_url") ? LinkFields.text(b, "image_url") : l.imageUrl(),
            b.has("success_url") ? LinkFields.text(b, "success_url") : l.successUrl(),
            b.has("cancel_url") ? LinkFields.text(b, "cancel_url") : l.cancelUrl(),
            b.has("status") ? LinkStatus.fromWire(b.get("status").asText()) : l.status(),
            l.customerId(),
            l.usageCount(),
            l.lastUsedAt(),
            l.expiresAt(),
            b.has("metadata") ? Json.toText(b.get("metadata")) : l.metadataJson(),
            l.createdAt(),
            clock.instant());
    links.update(connection, updated);
    return CommandReplies.ok(
        command, 200, PaymentLinkJson.of(updated, paymentLinks.publicBaseUrl()));
  }
}
