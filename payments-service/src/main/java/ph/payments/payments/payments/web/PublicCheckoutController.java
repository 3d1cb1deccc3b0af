package ph.payments.payments.payments.web;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.persistence.JdbcPayments;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * What a customer's browser may see of a payment, for the gateway's public checkout page and QR
 * images: no merchant scope (the customer has no key), so only what the checkout shows anyway —
 * never metadata, customer details, fees or webhook settings.
 */
@Controller("/internal/public/payments")
@ExecuteOn(TaskExecutors.BLOCKING)
public class PublicCheckoutController {

  private final Transactions transactions;
  private final JdbcPayments payments;

  public PublicCheckoutController(Transactions transactions, JdbcPayments payments) {
    this.transactions = transactions;
    this.payments = payments;
  }

  @Get("/{id}")
  public ObjectNode checkout(String id) {
    if (!IdType.PAYMENT.matches(id)) {
      throw ApiException.notFound("payment");
    }
    Payment payment =
        transactions
            .inTransaction(c -> payments.find(c, id))
            .orElseThrow(() -> ApiException.notFound("payment"));
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("id", payment.id());
    json.put("environment", payment.environment());
    json.put("status", payment.status().wire());
    json.put("amount", payment.amount().amount());
    json.put("currency", payment.currency());
    json.put("method", payment.method());
    json.put("description", payment.description());
    json.put("qr_code", payment.checkout().qrCode());
    json.put("app_link", payment.checkout().appLink());
    json.put("return_url", payment.returnUrl());
    json.put(
        "expires_at", payment.expiresAt() == null ? null : payment.expiresAt().getEpochSecond());
    return json;
  }
}
