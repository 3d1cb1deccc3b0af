package ph.payments.payments.payments.web;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import ph.payments.payments.payments.domain.CheckoutTokens;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.persistence.JdbcPayments;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * What a customer's browser may see of a payment, for the gateway's public checkout page and QR
 * images: no merchant scope (the customer has no key), so only what the checkout shows anyway —
 * never metadata, customer details, fees or webhook settings, nor the payment id. Looked up only by
 * the checkout token the payment's public URLs carry ({@link CheckoutTokens}): the time-ordered
 * payment id resolves nothing here, so one checkout link does not lead to its neighbours.
 */
@Controller("/internal/public/checkouts")
@ExecuteOn(TaskExecutors.BLOCKING)
public class PublicCheckoutController {

  private final Transactions transactions;
  private final JdbcPayments payments;

  public PublicCheckoutController(Transactions transactions, JdbcPayments payments) {
    this.transactions = transactions;
    this.payments = payments;
  }

  @Get("/{token}")
  public ObjectNode checkout(String token) {
    if (!CheckoutTokens.matches(token)) {
      throw ApiException.notFound("checkout");
    }
    Payment payment =
        transactions
            .inTransaction(c -> payments.findByCheckoutToken(c, token))
            .orElseThrow(() -> ApiException.notFound("checkout"));
    ObjectNode json = Json.mapper().createObjectNode();
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
