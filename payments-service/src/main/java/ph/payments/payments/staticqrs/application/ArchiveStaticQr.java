package ph.payments.payments.staticqrs.application;

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
 * {@code static_qrs.archive} ({@code POST /v1/static_qrs/{id}/archive}): {@code archived} true,
 * {@code archived_at} now, and its payment link {@code inactive}, in one transaction, so from the
 * commit on the printed code takes no payment (409 {@code link_inactive}). Final: nothing
 * un-archives a QR or reactivates its link (docs/decisions.md). Archiving an archived QR answers it
 * unchanged (its first {@code archived_at} stays).
 */
@Singleton
public class ArchiveStaticQr implements CommandHandler {

  public static final String TYPE = CommandTypes.STATIC_QRS_ARCHIVE;

  private final MerchantStaticQrs merchantQrs;
  private final JdbcStaticQrs qrs;
  private final QrLinks qrLinks;
  private final PaymentLinks links;
  private final Clock clock;

  public ArchiveStaticQr(
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
    if (q.archived()) {
      return CommandReplies.ok(command, 200, StaticQrJson.of(q, links.publicBaseUrl()));
    }
    Instant now = clock.instant();
    StaticQr archived = q.archive(now);
    qrs.update(connection, archived);
    qrLinks.follow(connection, archived, now);
    return CommandReplies.ok(command, 200, StaticQrJson.of(archived, links.publicBaseUrl()));
  }
}
