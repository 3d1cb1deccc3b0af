package ph.payments.payments.invoices.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Map;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.payments.invoices.domain.Invoice;
import ph.payments.payments.invoices.domain.InvoiceKind;
import ph.payments.payments.invoices.domain.InvoiceTerms;
import ph.payments.payments.invoices.domain.InvoiceTransitions;
import ph.payments.payments.invoices.persistence.JdbcInvoices;
import ph.payments.payments.invoices.web.InvoiceJson;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;

/**
 * {@code invoices.send} ({@code POST /v1/invoices/{id}/send}): {@code draft} → {@code sent}, with
 * {@code issued_at} = {@code sent_at} = now, the due times of {@link InvoiceTerms}, and (kind
 * {@code invoice}) the next {@code INV-YYYY-NNNN} of the merchant's environment in the Manila year
 * of sending, taken from the counter row this transaction locks: concurrent sends queue on it, so
 * numbers are consecutive and a rolled-back send leaves no gap. Refused: not a draft, or an amount
 * of 0 (nothing to pay), 400 {@code invalid_state}; a {@code due_date} before today in Manila 400
 * {@code invalid_request}.
 */
@Singleton
public class SendInvoice implements CommandHandler {

  public static final String TYPE = CommandTypes.INVOICES_SEND;

  private final MerchantInvoices merchantInvoices;
  private final JdbcInvoices invoices;
  private final Invoices facade;
  private final Clock clock;

  public SendInvoice(
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
    if (!InvoiceTransitions.allows(v.status(), InvoiceTransitions.Action.SEND)) {
      return CommandReplies.rejected(
          command,
          ErrorCode.INVALID_STATE,
          "This invoice is " + v.status().wire() + "; only a draft is sent.");
    }
    if (v.amount().signum() == 0) {
      return CommandReplies.rejected(
          command, ErrorCode.INVALID_STATE, "This invoice's amount is 0: there is nothing to pay.");
    }
    Instant now = clock.instant();
    LocalDate today = InvoiceTerms.manilaDate(now);
    if (v.dueDate() != null && v.dueDate().isBefore(today)) {
      return CommandReplies.invalid(
          command, Map.of("due_date", "is before today (" + today + ", Asia/Manila)"));
    }
    String number =
        v.kind() == InvoiceKind.INVOICE
            ? InvoiceTerms.number(
                today.getYear(),
                invoices.nextNumber(connection, v.merchantId(), v.environment(), today.getYear()))
            : null;
    Invoice sent = v.sent(number, now);
    invoices.update(connection, sent);
    return CommandReplies.ok(command, 200, InvoiceJson.of(sent, facade.publicBaseUrl()));
  }
}
