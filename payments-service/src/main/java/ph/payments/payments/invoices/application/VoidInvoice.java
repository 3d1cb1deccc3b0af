package ph.payments.payments.invoices.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.payments.invoices.domain.Invoice;
import ph.payments.payments.invoices.domain.InvoiceTransitions;
import ph.payments.payments.invoices.persistence.JdbcInvoices;
import ph.payments.payments.invoices.web.InvoiceJson;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;

/**
 * {@code invoices.void} ({@code POST /v1/invoices/{id}/void}): a draft, sent or partial invoice
 * becomes {@code void} ({@code void_at}); a partial one keeps its {@code amount_paid}, which the
 * merchant refunds as it sees fit. A paid or void invoice is 400 {@code invalid_state}.
 */
@Singleton
public class VoidInvoice implements CommandHandler {

  public static final String TYPE = CommandTypes.INVOICES_VOID;

  private final MerchantInvoices merchantInvoices;
  private final JdbcInvoices invoices;
  private final Invoices facade;
  private final Clock clock;

  public VoidInvoice(
      MerchantInvoices merchantInvoices, JdbcInvoices invoices, Invoices facade, Clock clock) {
    this.merchantInvoices = merchantInvoices;
    this.invoices = invoices;
    this.facade = facade;
    this.clock = clock;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    Invoice v;
    try {
      v =
          merchantInvoices.requireChangeable(
              connection, command.resourceId(), command.merchantId(), command.environment());
    } catch (ApiException e) {
      return CommandReplies.rejected(command, e.code(), e.getMessage());
    }
    if (!InvoiceTransitions.allows(v.status(), InvoiceTransitions.Action.VOID)) {
      return CommandReplies.rejected(
          command,
          ErrorCode.INVALID_STATE,
          "This invoice is "
              + v.status().wire()
              + "; only a draft, sent or partial one is voided.");
    }
    Invoice voided = v.voided(clock.instant());
    invoices.update(connection, voided);
    return CommandReplies.ok(command, 200, InvoiceJson.of(voided, facade.publicBaseUrl()));
  }
}
