package ph.payments.payments.invoices.application;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.payments.customers.application.MerchantCustomers;
import ph.payments.payments.invoices.domain.Invoice;
import ph.payments.payments.invoices.domain.InvoiceKind;
import ph.payments.payments.invoices.domain.InvoiceStatus;
import ph.payments.payments.invoices.domain.LineItem;
import ph.payments.payments.invoices.web.InvoiceJson;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.json.Json;

/**
 * {@code invoices.create}: a {@code draft} of kind {@code invoice}, priced by {@link
 * ph.payments.payments.invoices.domain.InvoiceMoney}, with a fresh public token. The gateway
 * checked each field and limit; here: a discount above the subtotal or a deposit rate that leaves
 * no deposit or balance is 400 {@code invalid_request}, a {@code customer_id} that is not a
 * customer of the merchant's environment 404 {@code customer_not_found}. {@code shipment_id} is
 * kept as given (no shipment resource exists yet). No event: SPEC names none for drafts.
 */
@Singleton
public class CreateInvoice implements CommandHandler {

  public static final String TYPE = CommandTypes.INVOICES_CREATE;

  private final Invoices invoices;
  private final MerchantCustomers customers;
  private final Clock clock;

  public CreateInvoice(Invoices invoices, MerchantCustomers customers, Clock clock) {
    this.invoices = invoices;
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
    List<LineItem> lines = InvoiceFields.lineItems(body.get("line_items"));
    BigDecimal discount = orZero(InvoiceFields.money(body, "discount_amount"));
    BigDecimal tax = orZero(InvoiceFields.money(body, "tax_amount"));
    BigDecimal rate = InvoiceFields.decimal(body, "deposit_rate");
    InvoiceFields.Priced priced = InvoiceFields.price(lines, discount, tax, rate);
    if (!priced.issues().isEmpty()) {
      return CommandReplies.invalid(command, priced.issues());
    }
    String customerId = InvoiceFields.text(body, "customer_id");
    if (customerId != null
        && customers
            .forPayment(connection, customerId, command.merchantId(), command.environment())
            .isEmpty()) {
      return CommandReplies.rejected(
          command, ErrorCode.CUSTOMER_NOT_FOUND, "No such customer: " + customerId + ".");
    }
    Instant now = clock.instant();
    Invoice invoice =
        invoices.insert(
            connection,
            token ->
                new Invoice(
                    command.resourceId(),
                    command.merchantId(),
                    command.environment(),
                    InvoiceKind.INVOICE,
                    null,
                    InvoiceStatus.DRAFT,
                    priced.totals().amount(),
                    priced.totals().subtotal(),
                    tax,
                    discount,
                    body.hasNonNull("currency") ? body.get("currency").asText() : "PHP",
                    InvoiceFields.text(body, "description"),
                    lines,
                    customerId,
                    InvoiceFields.date(body, "due_date"),
                    InvoiceFields.text(body, "notes"),
                    InvoiceFields.text(body, "terms"),
                    body.hasNonNull("allow_partial_payment")
                        && body.get("allow_partial_payment").asBoolean(),
                    zero(),
                    rate,
                    null,
                    null,
                    InvoiceFields.text(body, "shipment_id"),
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    body.hasNonNull("metadata") ? Json.toText(body.get("metadata")) : "{}",
                    token,
                    null,
                    now,
                    now));
    return CommandReplies.ok(command, 201, InvoiceJson.of(invoice, invoices.publicBaseUrl()));
  }

  static BigDecimal orZero(BigDecimal value) {
    return value == null ? zero() : value;
  }

  static BigDecimal zero() {
    return BigDecimal.ZERO.setScale(2);
  }
}
