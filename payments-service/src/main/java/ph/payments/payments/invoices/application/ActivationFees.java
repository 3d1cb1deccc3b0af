package ph.payments.payments.invoices.application;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.payments.invoices.domain.Invoice;
import ph.payments.payments.invoices.domain.InvoiceKind;
import ph.payments.payments.invoices.domain.InvoiceStatus;
import ph.payments.payments.invoices.domain.InvoiceTerms;
import ph.payments.payments.invoices.domain.LineItem;
import ph.payments.payments.invoices.persistence.JdbcInvoices;
import ph.payments.payments.invoices.web.InvoiceJson;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.IdType;

/**
 * Activation-fee invoices (docs/invoices.md "Activation fees"): an operator bills a merchant its
 * activation fee through the operator API. The invoice is the merchant's, in the environment the
 * operator names, of kind {@code activation_fee}: created {@code sent} with one line, no number and
 * no partial payment. The merchant reads and pays it like any invoice but cannot change, send or
 * void it ({@link MerchantInvoices#requireChangeable}). Its payments are the platform's revenue,
 * not the merchant's: their fee is their whole amount, so the ledger credits the platform's fee
 * account and the merchant's balance not at all.
 */
public final class ActivationFees {

  /** {@code activation_fees.create}: {@code {amount, currency, description, due_date, notes}}. */
  @Singleton
  public static class Create implements CommandHandler {

    private final Invoices invoices;
    private final Clock clock;

    public Create(Invoices invoices, Clock clock) {
      this.invoices = invoices;
      this.clock = clock;
    }

    @Override
    public String type() {
      return CommandTypes.ACTIVATION_FEES_CREATE;
    }

    @Override
    public CommandReply handle(Connection connection, Command command) throws SQLException {
      JsonNode body = command.body();
      BigDecimal amount = InvoiceFields.money(body, "amount");
      Instant now = clock.instant();
      LocalDate dueDate = InvoiceFields.date(body, "due_date");
      LocalDate today = InvoiceTerms.manilaDate(now);
      if (dueDate != null && dueDate.isBefore(today)) {
        return CommandReplies.invalid(
            command, Map.of("due_date", "is before today (" + today + ", Asia/Manila)"));
      }
      String description =
          Optional.ofNullable(InvoiceFields.text(body, "description")).orElse("Activation fee");
      Invoice invoice =
          invoices.insert(
              connection,
              token ->
                  new Invoice(
                          command.resourceId(),
                          command.merchantId(),
                          command.environment(),
                          InvoiceKind.ACTIVATION_FEE,
                          null,
                          InvoiceStatus.DRAFT,
                          amount,
                          amount,
                          CreateInvoice.zero(),
                          CreateInvoice.zero(),
                          InvoiceFields.text(body, "currency"),
                          description,
                          List.of(new LineItem(description, BigDecimal.ONE, amount, amount)),
                          null,
                          dueDate,
                          InvoiceFields.text(body, "notes"),
                          null,
                          false,
                          CreateInvoice.zero(),
                          null,
                          null,
                          null,
                          null,
                          null,
                          null,
                          null,
                          null,
                          null,
                          null,
                          "{}",
                          token,
                          null,
                          now,
                          now)
                      .sent(null, now));
      return CommandReplies.ok(command, 201, InvoiceJson.of(invoice, invoices.publicBaseUrl()));
    }
  }

  /**
   * {@code activation_fees.void}: the operator withdraws an activation fee that is not paid. Not
   * while a payment of it is open (409 {@code conflict}): that payment could still succeed into a
   * void invoice, and an activation fee is never refunded from the merchant's balance.
   */
  @Singleton
  public static class Void implements CommandHandler {

    private final JdbcInvoices invoices;
    private final Invoices facade;
    private final Clock clock;

    public Void(JdbcInvoices invoices, Invoices facade, Clock clock) {
      this.invoices = invoices;
      this.facade = facade;
      this.clock = clock;
    }

    @Override
    public String type() {
      return CommandTypes.ACTIVATION_FEES_VOID;
    }

    @Override
    public CommandReply handle(Connection connection, Command command) throws SQLException {
      String id = command.resourceId();
      Optional<Invoice> found =
          IdType.INVOICE.matches(id) ? invoices.lock(connection, id) : Optional.empty();
      if (found.isEmpty() || !found.get().merchantId().equals(command.merchantId())) {
        return CommandReplies.rejected(
            command, ErrorCode.NOT_FOUND, "No such invoice of this merchant: " + id + ".");
      }
      Invoice v = found.get();
      if (v.kind() != InvoiceKind.ACTIVATION_FEE) {
        return CommandReplies.rejected(
            command,
            ErrorCode.INVALID_STATE,
            "This is the merchant's own invoice; only activation fees are voided here.");
      }
      if (!v.payable()) {
        return CommandReplies.rejected(
            command,
            ErrorCode.INVALID_STATE,
            "This activation fee is " + v.status().wire() + "; only an unpaid one is voided.");
      }
      Optional<String> open = invoices.openPaymentOf(connection, v.id());
      if (open.isPresent()) {
        return CommandReplies.rejected(
            command,
            ErrorCode.CONFLICT,
            "Payment "
                + open.get()
                + " of this activation fee is still open; void it once it ends.");
      }
      Invoice voided = v.voided(clock.instant());
      invoices.update(connection, voided);
      return CommandReplies.ok(command, 200, InvoiceJson.of(voided, facade.publicBaseUrl()));
    }
  }

  private ActivationFees() {}
}
