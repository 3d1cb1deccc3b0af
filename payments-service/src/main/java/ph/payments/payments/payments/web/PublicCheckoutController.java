package ph.payments.payments.payments.web;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Value;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.time.Instant;
import java.util.List;
import ph.payments.payments.links.application.PaymentLinks;
import ph.payments.payments.payments.domain.CheckoutTokens;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.persistence.JdbcPayments;
import ph.payments.payments.providers.sandbox.SandboxProvider;
import ph.payments.payments.providers.sandbox.SandboxProviders;
import ph.payments.payments.refunds.domain.Refund;
import ph.payments.payments.refunds.domain.RefundStatus;
import ph.payments.payments.refunds.persistence.JdbcRefunds;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * What the gateway's hosted pages may know of a payment (checkout page, QR images, receipt page;
 * docs/hosted-pages.md): no merchant scope (the customer has no key), so only what those pages show
 * anyway — never metadata, customer details, fees, provider or webhook settings. Two fields are for
 * the gateway, not the page: {@code merchant_id} (to look up the merchant's display name and to
 * address the sandbox command) and {@code reference}, the payment id, which the receipt shows as
 * its reference and the sandbox command names. Looked up only by the checkout token the payment's
 * public URLs carry ({@link CheckoutTokens}): the time-ordered payment id resolves nothing here.
 *
 * <p>{@code transfer} holds a bank transfer's instructions ({@code bank}, {@code account_name},
 * {@code account_number}, {@code reference}) for {@code bank_transfer} payments, otherwise null.
 * {@code next_action} is {@code "3ds_challenge"} while a sandbox card order waits for its 3-D
 * Secure challenge, otherwise null. {@code refunds} lists the succeeded refunds, oldest first.
 */
@Controller("/internal/public/checkouts")
@ExecuteOn(TaskExecutors.BLOCKING)
public class PublicCheckoutController {

  /** The most refund lines a receipt shows. */
  static final int REFUND_LINES = 100;

  private final Transactions transactions;
  private final JdbcPayments payments;
  private final JdbcRefunds refunds;
  private final SandboxProviders sandbox;
  private final PaymentLinks links;
  private final String publicBaseUrl;

  public PublicCheckoutController(
      Transactions transactions,
      JdbcPayments payments,
      JdbcRefunds refunds,
      SandboxProviders sandbox,
      PaymentLinks links,
      @Value("${payments.public-base-url}") String publicBaseUrl) {
    this.transactions = transactions;
    this.payments = payments;
    this.refunds = refunds;
    this.sandbox = sandbox;
    this.links = links;
    this.publicBaseUrl = publicBaseUrl;
  }

  @Get("/{token}")
  public ObjectNode checkout(String token) {
    if (!CheckoutTokens.matches(token)) {
      throw ApiException.notFound("checkout");
    }
    return transactions.inTransaction(
        c -> {
          Payment payment =
              payments
                  .findByCheckoutToken(c, token)
                  .orElseThrow(() -> ApiException.notFound("checkout"));
          List<Refund> succeeded =
              refunds.list(
                  c,
                  payment.merchantId(),
                  payment.environment(),
                  RefundStatus.SUCCEEDED,
                  payment.id(),
                  null,
                  REFUND_LINES);
          String nextAction = null;
          SandboxProvider.TransferInstructions transfer = null;
          SandboxProvider provider =
              payment.providerRef() == null
                  ? null
                  : sandbox.byName(payment.provider()).orElse(null);
          if (provider != null) {
            if ("challenge".equals(provider.orderStatus(c, payment.providerRef()))) {
              nextAction = "3ds_challenge";
            }
            transfer = provider.transferInstructions(payment.providerRef());
          }
          ObjectNode json = json(payment, succeeded, nextAction);
          // Where a customer who abandons a link's payment goes: the link's cancel_url.
          json.put("cancel_url", links.cancelUrlOf(c, payment.paymentLinkId()).orElse(null));
          if (transfer == null) {
            json.putNull("transfer");
          } else {
            ObjectNode instructions = json.putObject("transfer");
            instructions.put("bank", transfer.bank());
            instructions.put("account_name", transfer.accountName());
            instructions.put("account_number", transfer.accountNumber());
            instructions.put("reference", transfer.reference());
          }
          return json;
        });
  }

  private ObjectNode json(Payment payment, List<Refund> succeeded, String nextAction) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("merchant_id", payment.merchantId());
    json.put("reference", payment.id());
    json.put("environment", payment.environment());
    json.put("status", payment.status().wire());
    json.put("amount", payment.amount().amount());
    json.put("currency", payment.currency());
    json.put("method", payment.method());
    json.put("description", payment.description());
    json.put("qr_code", payment.checkout().qrCode());
    json.put("app_link", payment.checkout().appLink());
    json.put("return_url", payment.returnUrl());
    json.putNull("cancel_url");
    json.put("expires_at", seconds(payment.expiresAt()));
    json.put("created", seconds(payment.createdAt()));
    json.put("succeeded_at", seconds(payment.succeededAt()));
    json.put("failed_at", seconds(payment.failedAt()));
    if (payment.failure() == null) {
      json.putNull("failure");
    } else {
      json.putObject("failure").put("message", payment.failure().message());
    }
    json.put("next_action", nextAction);
    json.put("amount_refunded", payment.refunded().amount());
    ArrayNode lines = json.putArray("refunds");
    for (Refund refund : succeeded) {
      ObjectNode line = lines.addObject();
      line.put("amount", refund.amount().amount());
      line.put("status", refund.status().wire());
      line.put("succeeded_at", seconds(refund.succeededAt()));
    }
    json.put("receipt_url", PaymentJson.receiptUrl(payment, publicBaseUrl));
    return json;
  }

  private static Long seconds(Instant instant) {
    return instant == null ? null : instant.getEpochSecond();
  }
}
