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
import ph.payments.payments.staticqrs.domain.StaticQr;
import ph.payments.payments.staticqrs.persistence.JdbcStaticQrs;
import ph.payments.payments.staticqrs.web.StaticQrJson;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ApiException;

/**
 * {@code static_qrs.update} ({@code PATCH} and {@code POST /v1/static_qrs/{id}}): the fields
 * present in the body ({@code name}, {@code reference}, {@code location}, {@code default_method},
 * {@code currency}) replace the QR's, under its row lock; {@code null} clears the nullable ones.
 * The QR's link follows in the same transaction: its description is the QR's name, its currency the
 * QR's. An archived QR may still be renamed (its printed code stays dead); nothing un-archives it.
 */
@Singleton
public class UpdateStaticQr implements CommandHandler {

  public static final String TYPE = CommandTypes.STATIC_QRS_UPDATE;

  private final MerchantStaticQrs merchantQrs;
  private final JdbcStaticQrs qrs;
  private final QrLinks qrLinks;
  private final PaymentLinks links;
  private final Clock clock;

  public UpdateStaticQr(
      MerchantStaticQrs merchantQrs,
      JdbcStaticQrs qrs,
      QrLinks qrLinks,
      PaymentLinks links,
      Clock clock) {
    this.merchantQrs = merchantQrs;
    this.qrs = qrs;
    this.qrLinks = qrLinks;
    this.links = links;
    this.clock = clock;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    StaticQr q;
    try {
      q =
          merchantQrs.require(
              connection, command.resourceId(), command.merchantId(), command.environment(), true);
    } catch (ApiException e) {
      return CommandReplies.rejected(command, e.code(), e.getMessage());
    }
    JsonNode b = command.body();
    Instant now = clock.instant();
    StaticQr updated =
        new StaticQr(
            q.id(),
            q.merchantId(),
            q.environment(),
            b.has("name") ? StaticQrFields.text(b, "name") : q.name(),
            b.has("reference") ? StaticQrFields.text(b, "reference") : q.reference(),
            b.has("location") ? StaticQrFields.text(b, "location") : q.location(),
            q.paymentLinkId(),
            q.linkSlug(),
            b.has("default_method") ? StaticQrFields.text(b, "default_method") : q.defaultMethod(),
            b.has("currency") ? StaticQrFields.text(b, "currency") : q.currency(),
            q.archived(),
            q.archivedAt(),
            q.createdAt(),
            now);
    qrs.update(connection, updated);
    qrLinks.follow(connection, updated, now);
    return CommandReplies.ok(command, 200, StaticQrJson.of(updated, links.publicBaseUrl()));
  }
}
