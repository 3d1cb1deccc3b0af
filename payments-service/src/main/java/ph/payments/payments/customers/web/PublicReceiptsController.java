package ph.payments.payments.customers.web;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Value;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.List;
import ph.payments.payments.customers.domain.Customer;
import ph.payments.payments.customers.domain.ReceiptsTokens;
import ph.payments.payments.customers.persistence.JdbcCustomers;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.persistence.JdbcPayments;
import ph.payments.payments.payments.web.PaymentJson;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * What a customer's receipt-history page shows ({@code receipts_history_url}; the HTML page is the
 * hosted pages' work): the customer's name and a summary of each payment of theirs that bears a
 * receipt, newest first. No merchant scope (the customer has no key): found only by the token the
 * URL carries ({@link ReceiptsTokens}), never by the time-ordered customer id; never the customer's
 * email, phone, address or metadata (the {@code merchant_id} is for the gateway, not the page), nor
 * the payments' metadata, fees or webhook settings.
 */
@Controller("/internal/public/receipts")
@ExecuteOn(TaskExecutors.BLOCKING)
public class PublicReceiptsController {

  /** The most receipts one history shows. */
  public static final int LIMIT = 100;

  private final Transactions transactions;
  private final JdbcCustomers customers;
  private final JdbcPayments payments;
  private final String publicBaseUrl;

  public PublicReceiptsController(
      Transactions transactions,
      JdbcCustomers customers,
      JdbcPayments payments,
      @Value("${payments.public-base-url}") String publicBaseUrl) {
    this.transactions = transactions;
    this.customers = customers;
    this.payments = payments;
    this.publicBaseUrl = publicBaseUrl;
  }

  @Get("/{token}")
  public ObjectNode history(String token) {
    if (!ReceiptsTokens.matches(token)) {
      throw ApiException.notFound("receipt history");
    }
    return transactions.inTransaction(
        c -> {
          Customer customer =
              customers
                  .findByReceiptsToken(c, token)
                  .orElseThrow(() -> ApiException.notFound("receipt history"));
          List<Payment> paid =
              payments.receiptsOf(
                  c, customer.merchantId(), customer.environment(), customer.id(), LIMIT);
          ObjectNode json = Json.mapper().createObjectNode();
          json.put("object", "receipt_history");
          // For the gateway (the merchant's display name on the page), never rendered.
          json.put("merchant_id", customer.merchantId());
          json.put("environment", customer.environment());
          json.put("name", customer.name());
          ArrayNode receipts = json.putArray("receipts");
          for (Payment p : paid) {
            ObjectNode receipt = receipts.addObject();
            receipt.put("status", p.status().wire());
            receipt.put("amount", p.amount().amount());
            receipt.put("currency", p.currency());
            receipt.put("method", p.method());
            receipt.put("description", p.description());
            receipt.put(
                "succeeded_at", p.succeededAt() == null ? null : p.succeededAt().getEpochSecond());
            receipt.put("receipt_url", PaymentJson.receiptUrl(p, publicBaseUrl));
          }
          return json;
        });
  }
}
