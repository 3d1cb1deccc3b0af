package ph.payments.payments.staticqrs.application;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.payments.links.application.PaymentLinks;
import ph.payments.payments.links.domain.LinkStatus;
import ph.payments.payments.links.domain.PaymentLink;
import ph.payments.payments.staticqrs.domain.StaticQr;
import ph.payments.payments.staticqrs.persistence.JdbcStaticQrs;
import ph.payments.payments.staticqrs.web.StaticQrJson;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.ids.IdType;

/**
 * {@code static_qrs.create}: the QR and, in the same transaction, the open-amount payment link it
 * encodes: amount and method null (the customer enters the amount; {@code default_method} only
 * preselects one on the page), description the QR's name, currency the QR's, {@code active}. The
 * gateway checked the body's fields and limits.
 */
@Singleton
public class CreateStaticQr implements CommandHandler {

  public static final String TYPE = CommandTypes.STATIC_QRS_CREATE;

  private final PaymentLinks links;
  private final JdbcStaticQrs qrs;
  private final Clock clock;

  public CreateStaticQr(PaymentLinks links, JdbcStaticQrs qrs, Clock clock) {
    this.links = links;
    this.qrs = qrs;
    this.clock = clock;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    JsonNode body = command.body();
    Instant now = clock.instant();
    String name = StaticQrFields.text(body, "name");
    String currency = body.hasNonNull("currency") ? body.get("currency").asText() : "PHP";
    String linkId = IdType.PAYMENT_LINK.generate();
    PaymentLink link =
        links.insert(
            connection,
            slug ->
                new PaymentLink(
                    linkId,
                    command.merchantId(),
                    command.environment(),
                    slug,
                    name,
                    null,
                    currency,
                    null,
                    null,
                    null,
                    null,
                    LinkStatus.ACTIVE,
                    null,
                    0,
                    null,
                    null,
                    "{}",
                    now,
                    now));
    StaticQr qr =
        new StaticQr(
            command.resourceId(),
            command.merchantId(),
            command.environment(),
            name,
            StaticQrFields.text(body, "reference"),
            StaticQrFields.text(body, "location"),
            link.id(),
            link.slug(),
            StaticQrFields.text(body, "default_method"),
            currency,
            false,
            null,
            now,
            now);
    qrs.insert(connection, qr);
    return CommandReplies.ok(command, 201, StaticQrJson.of(qr, links.publicBaseUrl()));
  }
}
