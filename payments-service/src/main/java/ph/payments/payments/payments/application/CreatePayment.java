package ph.payments.payments.payments.application;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.payments.customers.application.MerchantCustomers;
import ph.payments.payments.invoices.application.Invoices;
import ph.payments.payments.invoices.domain.Invoice;
import ph.payments.payments.invoices.domain.InvoiceKind;
import ph.payments.payments.links.application.PaymentLinks;
import ph.payments.payments.links.domain.PaymentLink;
import ph.payments.payments.payments.domain.CheckoutTokens;
import ph.payments.payments.payments.domain.Customer;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.domain.PaymentStatus;
import ph.payments.payments.payments.persistence.JdbcPayments;
import ph.payments.payments.providers.ProviderAdapter;
import ph.payments.payments.providers.ProviderRouter;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.inbox.ReadAhead;
import ph.payments.platform.money.Money;
import ph.payments.platform.outbox.OutboxWriter;

/**
 * {@code payments.create}: routes the payment to a provider, registers it there and stores it as
 * {@code pending}, with its fee and checkout window. No event is emitted at creation (SPEC part 3).
 * The body was validated by the gateway; the gateway also adds {@code idempotency_key} and {@code
 * merchant_name}.
 *
 * <p>With {@code payment_link_id} the payment is made through that link of the merchant's
 * environment (404 {@code not_found} otherwise), which must take it ({@link PaymentLink#charge}:
 * {@code link_inactive}, {@code link_expired}, {@code amount_required}, {@code method_required}, or
 * {@code invalid_request} for a value that differs from the link's fixed one). The payment takes
 * the link's fixed amount, method and currency, its {@code customer_id}, its description and its
 * {@code success_url} as {@code return_url} when the body has none. Nothing on the link changes
 * here: its use is counted when the payment succeeds ({@link PaymentMoves}).
 *
 * <p>With {@code invoice_id} the payment pays that invoice of the merchant's environment (404
 * {@code not_found} otherwise), locked for this transaction, which must take it ({@link
 * Invoice#charge}: {@code invoice_not_sent}, {@code invoice_void}, {@code invoice_paid}, {@code
 * invalid_request} on an amount above the remaining, {@code partial_not_allowed}); without an
 * amount it pays the amount due now. The payment takes the invoice's currency and customer,
 * "Invoice INV-…" as description and the invoice's page as {@code return_url} when the body has
 * none. The invoice moves when the payment succeeds ({@link PaymentMoves}).
 */
@Singleton
public class CreatePayment implements CommandHandler {

  public static final String TYPE = "payments.create";

  private final ProviderRouter router;
  private final JdbcPayments payments;
  private final Fees fees;
  private final PaymentMoves moves;
  private final Clock clock;
  private final Duration expiry;
  private final MerchantCustomers customers;
  private final PaymentLinks links;
  private final Invoices invoices;

  public CreatePayment(
      ProviderRouter router,
      JdbcPayments payments,
      Fees fees,
      PaymentMoves moves,
      Clock clock,
      @Value("${payments.expiry:30m}") Duration expiry,
      MerchantCustomers customers,
      PaymentLinks links,
      Invoices invoices) {
    this.router = router;
    this.payments = payments;
    this.fees = fees;
    this.moves = moves;
    this.clock = clock;
    this.expiry = expiry;
    this.customers = customers;
    this.links = links;
    this.invoices = invoices;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public CommandReply handle(Connection connection, Command command) throws SQLException {
    Applied applied = apply(connection, command);
    writeNow(connection, applied.writes());
    return applied.reply();
  }

  private static void writeNow(Connection connection, List<OutboxWriter.Write> writes)
      throws SQLException {
    for (OutboxWriter.Write write : writes) {
      write.execute(connection);
    }
  }

  /**
   * Leaves the provider's registration and the payment's row to the dispatcher, which writes them
   * with the reply in one statement; with an invoice they are written here, since linking it needs
   * the row.
   */
  @Override
  public Applied apply(Connection connection, Command command) throws SQLException {
    return apply(connection, command, null);
  }

  /** The poll's creations' fee schedules, read with the poll's inbox statement ({@link Fees}). */
  @Override
  public ReadAhead readAhead(List<Command> poll) {
    return fees.readAhead(poll);
  }

  @Override
  public Applied apply(Connection connection, Command command, ReadAhead readAhead)
      throws SQLException {
    List<OutboxWriter.Write> writes = new ArrayList<>();
    CommandReply reply = create(connection, command, readAhead, writes);
    return new Applied(reply, writes);
  }

  /** Creates the payment; what is still to write goes to {@code writes}. */
  private CommandReply create(
      Connection connection, Command command, ReadAhead readAhead, List<OutboxWriter.Write> writes)
      throws SQLException {
    JsonNode body = command.body();
    String linkId = text(body, "payment_link_id").orElse(null);
    PaymentLink link = null;
    String method;
    String currency;
    BigDecimal amountValue;
    String invoiceId = text(body, "invoice_id").orElse(null);
    Invoice invoice = null;
    if (invoiceId != null && linkId != null) {
      return CommandReplies.invalid(
          command, java.util.Map.of("invoice_id", "cannot be given with payment_link_id"));
    }
    if (invoiceId != null) {
      Optional<Invoice> found =
          invoices.lockForPayment(
              connection, invoiceId, command.merchantId(), command.environment());
      if (found.isEmpty()) {
        return CommandReplies.rejected(
            command, ErrorCode.NOT_FOUND, "No such invoice: " + invoiceId + ".");
      }
      invoice = found.get();
      String asked = text(body, "currency").orElse(null);
      if (asked != null && !asked.equals(invoice.currency())) {
        return CommandReplies.invalid(
            command,
            java.util.Map.of("currency", "must be " + invoice.currency() + ", the invoice's"));
      }
      Invoice.Charge charge =
          invoice.charge(body.hasNonNull("amount") ? body.get("amount").decimalValue() : null);
      if (charge instanceof Invoice.Refused refused) {
        return refused.code() == ErrorCode.INVALID_REQUEST
            ? CommandReplies.invalid(command, refused.issues())
            : CommandReplies.rejected(command, refused.code(), refused.message());
      }
      if (invoice.kind() == InvoiceKind.ACTIVATION_FEE) {
        // Its payments cannot be refunded from the merchant's balance, so they must not overpay.
        Optional<String> open = invoices.openPaymentOf(connection, invoice.id());
        if (open.isPresent()) {
          return CommandReplies.rejected(
              command,
              ErrorCode.CONFLICT,
              "Payment "
                  + open.get()
                  + " of this activation fee is still open; finish it, or start another once it"
                  + " has expired.");
        }
      }
      method = body.get("method").asText();
      currency = invoice.currency();
      amountValue = ((Invoice.Accepted) charge).amount();
    } else if (linkId == null) {
      method = body.get("method").asText();
      currency = text(body, "currency").orElse("PHP");
      amountValue = body.get("amount").decimalValue();
    } else {
      Optional<PaymentLinks.ForPayment> found =
          links.forPayment(connection, linkId, command.merchantId(), command.environment());
      if (found.isEmpty()) {
        return CommandReplies.rejected(
            command, ErrorCode.NOT_FOUND, "No such payment link: " + linkId + ".");
      }
      link = found.get().link();
      PaymentLink.Charge charge =
          link.charge(
              new PaymentLink.Ask(
                  body.hasNonNull("amount") ? body.get("amount").decimalValue() : null,
                  text(body, "method").orElse(null),
                  text(body, "currency").orElse(null)),
              found.get().staticQrArchived(),
              clock.instant());
      if (charge instanceof PaymentLink.Refused refused) {
        return refused.code() == ErrorCode.INVALID_REQUEST
            ? CommandReplies.invalid(command, refused.issues())
            : CommandReplies.rejected(command, refused.code(), refused.message());
      }
      PaymentLink.Accepted accepted = (PaymentLink.Accepted) charge;
      method = accepted.method();
      currency = accepted.currency();
      amountValue = accepted.amount();
    }
    Money amount = Money.of(amountValue, currency);
    Optional<ProviderAdapter> provider = router.route(command.environment(), method, currency);
    if (provider.isEmpty()) {
      return CommandReplies.rejected(
          command,
          ErrorCode.NO_ROUTE,
          "No provider is available for method " + method + " in " + currency + ".");
    }
    java.math.BigDecimal max = provider.get().maxAmount();
    if (max != null && amount.amount().compareTo(max) > 0) {
      return CommandReplies.invalid(
          command,
          java.util.Map.of(
              "amount", "must be at most " + max.toPlainString() + " for method " + method));
    }
    String customerId = text(body, "customer_id").orElse(null);
    if (invoice != null && invoice.customerId() != null) {
      if (customerId != null && !customerId.equals(invoice.customerId())) {
        return CommandReplies.invalid(
            command,
            java.util.Map.of(
                "customer_id", "must be " + invoice.customerId() + ", the invoice's customer"));
      }
      customerId = invoice.customerId();
    }
    if (link != null && link.customerId() != null) {
      if (customerId != null && !customerId.equals(link.customerId())) {
        return CommandReplies.invalid(
            command,
            java.util.Map.of(
                "customer_id", "must be " + link.customerId() + ", the payment link's customer"));
      }
      customerId = link.customerId();
    }
    Customer customer = customer(body.get("customer"));
    if (customerId != null) {
      Optional<ph.payments.payments.customers.domain.Customer> named =
          customers.forPayment(connection, customerId, command.merchantId(), command.environment());
      if (named.isEmpty()) {
        return CommandReplies.rejected(
            command, ErrorCode.CUSTOMER_NOT_FOUND, "No such customer: " + customerId + ".");
      }
      if (customer == null) {
        // SPEC part 2: without a customer object the payment takes the customer's email and name.
        customer = new Customer(named.get().email(), named.get().name());
      }
    }
    String description =
        text(body, "description")
            .orElse(
                link != null
                    ? link.description()
                    : invoice == null
                        ? null
                        : invoice.number() != null
                            ? "Invoice " + invoice.number()
                            : invoice.description());
    String returnUrl =
        text(body, "return_url")
            .orElse(
                link != null ? link.successUrl() : invoice != null ? invoices.url(invoice) : null);
    boolean activationFee = invoice != null && invoice.kind() == InvoiceKind.ACTIVATION_FEE;
    Instant now = clock.instant();
    Instant expiresAt = now.plus(expiry);
    ProviderAdapter.Registered registered =
        provider
            .get()
            .register(
                connection,
                new ProviderAdapter.Registration(
                    command.resourceId(),
                    command.merchantId(),
                    text(body, "merchant_name").orElse(command.merchantId()),
                    command.environment(),
                    method,
                    amount,
                    description,
                    returnUrl,
                    expiresAt,
                    CheckoutTokens.generate()));
    Payment payment =
        new Payment(
            command.resourceId(),
            command.merchantId(),
            command.environment(),
            PaymentStatus.PENDING,
            amount,
            method,
            provider.get().name(),
            registered.providerRef(),
            registered.checkout(),
            returnUrl,
            text(body, "webhook_url").orElse(null),
            description,
            customer,
            body.hasNonNull("metadata")
                ? (ObjectNode) body.get("metadata")
                : ph.payments.platform.json.Json.mapper().createObjectNode(),
            customerId,
            linkId,
            activationFee
                ? amount // the platform's revenue: the merchant's balance gets nothing
                : fees.scheduleFor(connection, readAhead, command.merchantId(), method)
                    .feeFor(amount),
            null,
            Money.zero(currency),
            text(body, "idempotency_key").orElse(null),
            null,
            expiresAt,
            null,
            null,
            now,
            now);
    writes.addAll(registered.writes());
    writes.add(payments.insertion(payment));
    if (invoice != null) {
      writeNow(connection, writes);
      writes.clear();
      invoices.linkPayment(connection, payment.id(), invoice.id());
    }
    return CommandReplies.ok(command, 201, moves.json(payment));
  }

  private static Customer customer(JsonNode customer) {
    if (customer == null || customer.isNull()) {
      return null;
    }
    return new Customer(text(customer, "email").orElse(null), text(customer, "name").orElse(null));
  }

  private static Optional<String> text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? Optional.empty() : Optional.of(value.asText());
  }
}
