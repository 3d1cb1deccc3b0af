package ph.payments.payments.invoices.application;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.payments.customers.application.MerchantCustomers;
import ph.payments.payments.invoices.domain.Invoice;
import ph.payments.payments.invoices.domain.InvoiceTransitions;
import ph.payments.payments.invoices.domain.LineItem;
import ph.payments.payments.invoices.persistence.JdbcInvoices;
import ph.payments.payments.invoices.web.InvoiceJson;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.json.Json;

/**
 * {@code invoices.update} ({@code PATCH} and {@code POST /v1/invoices/{id}}), under the invoice's
 * row lock: present fields replace, absent ones stay, {@code null} clears a nullable one. A draft
 * takes every field of SPEC's update body and is priced again. A sent, partial or paid invoice
 * takes only {@link #TEXT_FIELDS} (what the customer was billed, its dates and whether it may be
 * paid in parts never change once sent); any other field is 400 {@code invalid_state}, and so is
 * any update of a void invoice (docs/invoices.md).
 */
@Singleton
public class UpdateInvoice implements CommandHandler {

  public static final String TYPE = CommandTypes.INVOICES_UPDATE;

  /** The fields an issued invoice still takes: nothing about money, dates or payment. */
  public static final Set<String> TEXT_FIELDS = Set.of("description", "notes", "terms", "metadata");

  private final MerchantInvoices merchantInvoices;
  private final JdbcInvoices invoices;
  private final Invoices facade;
  private final MerchantCustomers customers;
  private final Clock clock;

  public UpdateInvoice(
      MerchantInvoices merchantInvoices,
      JdbcInvoices invoices,
      Invoices facade,
      MerchantCustomers customers,
      Clock clock) {
    this.merchantInvoices = merchantInvoices;
    this.invoices = invoices;
    this.facade = facade;
    this.customers = customers;
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
    JsonNode b = command.body();
    boolean moneyOrDates = false;
    for (var names = b.fieldNames(); names.hasNext(); ) {
      moneyOrDates |= !TEXT_FIELDS.contains(names.next());
    }
    InvoiceTransitions.Action action =
        moneyOrDates ? InvoiceTransitions.Action.UPDATE_ANY : InvoiceTransitions.Action.UPDATE_TEXT;
    if (!InvoiceTransitions.allows(v.status(), action)) {
      return CommandReplies.rejected(
          command,
          ErrorCode.INVALID_STATE,
          switch (v.status()) {
            case VOID -> "This invoice is void and changes no more.";
            default ->
                "This invoice is "
                    + v.status().wire()
                    + ": only description, notes, terms and metadata change once it is sent.";
          });
    }
    List<LineItem> lines =
        b.has("line_items") ? InvoiceFields.lineItems(b.get("line_items")) : v.lineItems();
    BigDecimal discount =
        b.has("discount_amount")
            ? CreateInvoice.orZero(InvoiceFields.money(b, "discount_amount"))
            : v.discountAmount();
    BigDecimal tax =
        b.has("tax_amount")
            ? CreateInvoice.orZero(InvoiceFields.money(b, "tax_amount"))
            : v.taxAmount();
    InvoiceFields.Priced priced = InvoiceFields.price(lines, discount, tax, v.depositRate());
    if (!priced.issues().isEmpty()) {
      return CommandReplies.invalid(command, priced.issues());
    }
    String customerId =
        b.has("customer_id") ? InvoiceFields.text(b, "customer_id") : v.customerId();
    if (b.has("customer_id")
        && customerId != null
        && customers
            .forPayment(connection, customerId, command.merchantId(), command.environment())
            .isEmpty()) {
      return CommandReplies.rejected(
          command, ErrorCode.CUSTOMER_NOT_FOUND, "No such customer: " + customerId + ".");
    }
    Invoice updated =
        new Invoice(
            v.id(),
            v.merchantId(),
            v.environment(),
            v.kind(),
            v.number(),
            v.status(),
            priced.totals().amount(),
            priced.totals().subtotal(),
            tax,
            discount,
            v.currency(),
            b.has("description") ? InvoiceFields.text(b, "description") : v.description(),
            lines,
            customerId,
            b.has("due_date") ? InvoiceFields.date(b, "due_date") : v.dueDate(),
            b.has("notes") ? InvoiceFields.text(b, "notes") : v.notes(),
            b.has("terms") ? InvoiceFields.text(b, "terms") : v.terms(),
            b.hasNonNull("allow_partial_payment")
                ? b.get("allow_partial_payment").asBoolean()
                : v.allowPartialPayment(),
            v.amountPaid(),
            v.depositRate(),
            v.depositDueAt(),
            v.balanceDueAt(),
            v.shipmentId(),
            v.forfeitedAt(),
            v.issuedAt(),
            v.sentAt(),
            v.paidAt(),
            v.voidAt(),
            v.paymentId(),
            b.has("metadata") ? Json.toText(b.get("metadata")) : v.metadataJson(),
            v.token(),
            v.balanceDueAnnouncedAt(),
            v.createdAt(),
            clock.instant());
    invoices.update(connection, updated);
    return CommandReplies.ok(command, 200, InvoiceJson.of(updated, facade.publicBaseUrl()));
  }
}
