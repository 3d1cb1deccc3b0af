package ph.payments.payments.invoices.web;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Value;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.List;
import java.util.Optional;
import ph.payments.payments.customers.persistence.JdbcCustomers;
import ph.payments.payments.invoices.domain.Invoice;
import ph.payments.payments.invoices.domain.InvoiceStatus;
import ph.payments.payments.invoices.domain.InvoiceTokens;
import ph.payments.payments.invoices.persistence.JdbcInvoices;
import ph.payments.payments.payments.web.PaymentJson;
import ph.payments.payments.providers.ProviderRouter;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * What the gateway's public invoice page ({@code /i/{token}}) needs, found by the token only (no
 * merchant scope: the customer has no key). The shape is the contract of the plan of issue 17.
 * {@code id} and {@code merchant_id} are for the gateway (the payment command), never rendered. A
 * draft is not shown to customers: 404 like an unknown token.
 */
@Controller("/internal/public/invoices")
@ExecuteOn(TaskExecutors.BLOCKING)
public class PublicInvoicesController {

  private final Transactions transactions;
  private final JdbcInvoices invoices;
  private final JdbcCustomers customers;
  private final ProviderRouter router;
  private final String publicBaseUrl;

  public PublicInvoicesController(
      Transactions transactions,
      JdbcInvoices invoices,
      JdbcCustomers customers,
      ProviderRouter router,
      @Value("${payments.public-base-url}") String publicBaseUrl) {
    this.transactions = transactions;
    this.invoices = invoices;
    this.customers = customers;
    this.router = router;
    this.publicBaseUrl = publicBaseUrl;
  }

  private record Found(
      Invoice invoice, String customerName, List<JdbcInvoices.PaidPayment> payments) {}

  @Get("/{token}")
  public ObjectNode invoice(String token) {
    if (!InvoiceTokens.matches(token)) {
      throw ApiException.notFound("invoice");
    }
    Found found =
        transactions
            .inTransaction(
                c -> {
                  Optional<Invoice> invoice =
                      invoices.findByToken(c, token).filter(v -> v.status() != InvoiceStatus.DRAFT);
                  if (invoice.isEmpty()) {
                    return Optional.<Found>empty();
                  }
                  Invoice v = invoice.get();
                  String name =
                      v.customerId() == null
                          ? null
                          : customers.find(c, v.customerId()).map(cu -> cu.name()).orElse(null);
                  return Optional.of(new Found(v, name, invoices.paidPayments(c, v.id())));
                })
            .orElseThrow(() -> ApiException.notFound("invoice"));
    Invoice v = found.invoice();
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("id", v.id());
    json.put("merchant_id", v.merchantId());
    json.put("environment", v.environment());
    json.put("kind", v.kind().wire());
    json.put("number", v.number());
    json.put("status", v.status().wire());
    json.put("currency", v.currency());
    json.put("description", v.description());
    json.put("customer_name", found.customerName());
    InvoiceJson.lineItems(json.putArray("line_items"), v.lineItems());
    json.put("subtotal", v.subtotal());
    json.put("discount_amount", v.discountAmount());
    json.put("tax_amount", v.taxAmount());
    json.put("amount", v.amount());
    json.put("amount_paid", v.amountPaid());
    json.put("amount_remaining", v.amountRemaining());
    json.put("amount_due_now", v.amountDueNow());
    json.put("stage", v.stage());
    json.put("allow_partial_payment", v.allowPartialPayment());
    json.put("deposit_rate", v.depositRate());
    json.put("due_date", v.dueDate() == null ? null : v.dueDate().toString());
    json.put("deposit_due_at", InvoiceJson.seconds(v.depositDueAt()));
    json.put("balance_due_at", InvoiceJson.seconds(v.balanceDueAt()));
    json.put("issued_at", InvoiceJson.seconds(v.issuedAt()));
    json.put("paid_at", InvoiceJson.seconds(v.paidAt()));
    json.put("void_at", InvoiceJson.seconds(v.voidAt()));
    json.put("forfeited_at", InvoiceJson.seconds(v.forfeitedAt()));
    json.put("notes", v.notes());
    json.put("terms", v.terms());
    ArrayNode payments = json.putArray("payments");
    for (JdbcInvoices.PaidPayment p : found.payments()) {
      ObjectNode payment = payments.addObject();
      payment.put("amount", p.amount());
      payment.put("amount_refunded", p.refunded());
      payment.put("method", p.method());
      payment.put("succeeded_at", p.succeededAt().getEpochSecond());
      payment.put(
          "receipt_url",
          p.checkoutToken() == null
              ? null
              : publicBaseUrl + PaymentJson.RECEIPTS_PATH + p.checkoutToken());
    }
    ArrayNode methods = json.putArray("methods");
    router.methods(v.environment(), v.currency()).forEach(methods::add);
    return json;
  }
}
