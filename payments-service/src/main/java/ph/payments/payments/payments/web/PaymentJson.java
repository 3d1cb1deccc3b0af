package ph.payments.payments.payments.web;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.platform.json.Json;

/**
 * The payment resource exactly as SPEC part 2 lists its fields, in that order. This one shape is
 * what the API returns, what events carry in {@code data.object}, and what webhooks deliver.
 */
public final class PaymentJson {

  /**
   * @param receiptBaseUrl public base of receipt pages, e.g. {@code http://localhost:8080}
   */
  public static ObjectNode of(Payment p, String receiptBaseUrl) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("id", p.id());
    json.put("object", "payment");
    json.put("environment", p.environment());
    json.put("status", p.status().wire());
    json.put("amount", p.amount().amount());
    json.put("currency", p.currency());
    json.put("method", p.method());
    json.put("provider", p.provider());
    json.put("provider_ref", p.providerRef());
    json.put("checkout_url", p.checkout().checkoutUrl());
    json.put("qr_code", p.checkout().qrCode());
    json.put("qr_code_url", p.checkout().qrCodeUrl());
    json.put("app_link", p.checkout().appLink());
    json.put("return_url", p.returnUrl());
    json.put("description", p.description());
    if (p.customer() == null) {
      json.putNull("customer");
    } else {
      ObjectNode customer = json.putObject("customer");
      customer.put("email", p.customer().email());
      customer.put("name", p.customer().name());
    }
    json.set("metadata", p.metadata());
    json.put("customer_id", p.customerId());
    json.put("payment_link_id", p.paymentLinkId());
    json.put("fee_amount", p.fee().amount());
    json.put("net_amount", p.net() == null ? null : p.net().amount());
    json.put("idempotency_key", p.idempotencyKey());
    if (p.failure() == null) {
      json.putNull("failure");
    } else {
      ObjectNode failure = json.putObject("failure");
      failure.put("code", p.failure().code());
      failure.put("message", p.failure().message());
    }
    json.put("expires_at", seconds(p.expiresAt()));
    json.put("succeeded_at", seconds(p.succeededAt()));
    json.put("failed_at", seconds(p.failedAt()));
    json.put("created", p.createdAt().getEpochSecond());
    json.put("receipt_url", receiptUrl(p, receiptBaseUrl));
    return json;
  }

  /**
   * The public receipt page of a payment that bears a receipt, or null: {@code /receipts/{checkout
   * token}}, the same unguessable token as its checkout page (never the time-ordered payment id);
   * null also for the rare payment without a token.
   */
  public static String receiptUrl(Payment p, String receiptBaseUrl) {
    String token = p.checkout().token();
    return p.status().bearsReceipt() && token != null
        ? receiptBaseUrl + RECEIPTS_PATH + token
        : null;
  }

  /** Where a receipt URL's token goes, after the public base URL. */
  public static final String RECEIPTS_PATH = "/receipts/";

  private static Long seconds(Instant instant) {
    return instant == null ? null : instant.getEpochSecond();
  }

  private PaymentJson() {}
}
