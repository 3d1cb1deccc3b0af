package ph.payments.gateway.payments;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.math.BigDecimal;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import ph.payments.contracts.Topics;
import ph.payments.gateway.auth.MerchantContext;
import ph.payments.gateway.auth.RequiresScope;
import ph.payments.gateway.auth.TestModeOnly;
import ph.payments.gateway.ratelimit.DecidedWithCommand;
import ph.payments.gateway.routing.Owner;
import ph.payments.gateway.routing.ReadRouter;
import ph.payments.gateway.web.CommandEndpoint;
import ph.payments.gateway.web.Fields;
import ph.payments.gateway.web.ListParams;
import ph.payments.gateway.web.Metadata;
import ph.payments.gateway.web.TestHelperBodies;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.money.Money;

/**
 * Payments (SPEC part 4): creation through the command path into payments-service, reads forwarded
 * to it, and the sandbox test helpers. Every body rule of SPEC parts 4 and 8 is checked here,
 * before anything is written. With {@code payment_link_id} (issue 16) {@code amount} and {@code
 * method} become optional; the link's own rules are payments-service's. With {@code invoice_id}
 * (issue 17) {@code amount} is optional (the amount due now); the invoice's rules are
 * payments-service's.
 */
@Controller("/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class PaymentsController {

  public static final String CREATE = "payments.create";
  static final CommandEndpoint.Creation CREATION =
      new CommandEndpoint.Creation(CREATE, "payment", "/v1/payments");
  static final Set<String> STATUSES =
      Set.of("pending", "processing", "succeeded", "failed", "expired", "refunded");
  static final Set<String> HELPER_ACTIONS = Set.of("process", "succeed", "fail", "expire");
  private static final Pattern CUSTOMER_ID = Pattern.compile("^cus_[0-9a-z]{1,60}$");
  private static final Pattern PAYMENT_LINK_ID = Pattern.compile("^plk_[0-9a-z]{1,60}$");

  private final CommandEndpoint commands;
  private final ReadRouter reads;

  public PaymentsController(CommandEndpoint commands, ReadRouter reads) {
    this.commands = commands;
    this.reads = reads;
  }

  @Post("/payments")
  @RequiresScope("payments:write")
  @DecidedWithCommand
  public HttpResponse<?> create(HttpRequest<?> request, @Nullable @Body JsonNode json) {
    Fields body =
        Fields.of(json)
            .allowOnly(
                "amount",
                "method",
                "currency",
                "description",
                "return_url",
                "webhook_url",
                "customer",
                "customer_id",
                "payment_link_id",
                "invoice_id",
                "metadata");
    // Through a payment link the link may fix the amount and the method: then they are optional
    // here, and payments-service checks them against the link (docs/catalog.md).
    if (body.has("invoice_id")) {
      // Paying an invoice (issue 17): without an amount the payment takes the amount due now;
      // payments-service checks it against the invoice.
      String invoiceId = body.optionalString("invoice_id", 1, 255);
      if (invoiceId != null && !IdType.INVOICE.matches(invoiceId)) {
        body.issue("invoice_id", "must be an invoice id (inv_…)");
      }
      if (body.has("payment_link_id")) {
        body.issue("invoice_id", "cannot be given with payment_link_id");
      }
      body.optionalAmount("amount", Money.MIN_AMOUNT, new BigDecimal("999999999999"));
      body.requiredString("method", 1, 40);
    } else if (body.has("payment_link_id")) {
      body.optionalPattern("payment_link_id", PAYMENT_LINK_ID, "look like plk_…");
      body.optionalAmount("amount", Money.MIN_AMOUNT, new BigDecimal("999999999999"));
      body.optionalString("method", 1, 40);
    } else {
      body.requiredAmount("amount", Money.MIN_AMOUNT, new BigDecimal("999999999999"));
      body.requiredString("method", 1, 40);
    }
    body.currency("currency", "PHP");
    body.optionalString("description", 0, 1000);
    body.optionalUri("return_url");
    body.optionalUri("webhook_url");
    customer(body);
    body.optionalPattern("customer_id", CUSTOMER_ID, "look like cus_…");
    Metadata.check(body);
    body.validate();

    MerchantContext merchant = MerchantContext.of(request);
    ObjectNode command = ((ObjectNode) json).deepCopy();
    command.put("idempotency_key", request.getHeaders().get("Idempotency-Key"));
    command.put("merchant_name", merchant.merchantName());
    return commands.create(
        request, merchant, Topics.PAYMENTS_COMMANDS, CREATION, IdType.PAYMENT.generate(), command);
  }

  @Get("/payments")
  @RequiresScope("payments:read")
  public HttpResponse<String> list(HttpRequest<?> request) {
    ListParams.from(request);
    String status = request.getParameters().get("status");
    if (status != null && !STATUSES.contains(status)) {
      throw ApiException.invalid(
          Map.of("status", "must be one of " + String.join(", ", sorted(STATUSES))));
    }
    String customerId = request.getParameters().get("customer_id");
    if (customerId != null && !IdType.CUSTOMER.matches(customerId)) {
      throw ApiException.invalid(Map.of("customer_id", "must be a customer id (cus_…)"));
    }
    return reads.get(
        request,
        MerchantContext.of(request),
        Owner.PAYMENTS,
        "/internal/payments",
        Set.of("limit", "starting_after", "status", "customer_id"));
  }

  @Get("/payments/{id}")
  @RequiresScope("payments:read")
  public HttpResponse<String> get(HttpRequest<?> request, String id) {
    String expand = request.getParameters().get("expand");
    if (expand != null && !expand.equals("events")) {
      throw ApiException.invalid(Map.of("expand", "the only value is events"));
    }
    requirePaymentId(id);
    MerchantContext merchant = MerchantContext.of(request);
    return commands.orPending(
        reads.get(request, merchant, Owner.PAYMENTS, "/internal/payments/" + id, Set.of("expand")),
        merchant,
        CREATION,
        id);
  }

  /** Sandbox only: what the customer or provider did, through the sandbox provider. */
  @Post("/test_helpers/payments/{id}/{action}")
  @TestModeOnly
  @RequiresScope("payments:write")
  @DecidedWithCommand
  public HttpResponse<?> testHelper(
      HttpRequest<?> request, String id, String action, @Nullable @Body JsonNode json) {
    if (!HELPER_ACTIONS.contains(action)) {
      throw ApiException.notFound("test helper");
    }
    requirePaymentId(id);
    return commands.execute(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        "test_helpers.payments." + action,
        id,
        TestHelperBodies.of(action, json));
  }

  private static void requirePaymentId(String id) {
    if (!IdType.PAYMENT.matches(id)) {
      throw ApiException.notFound("payment");
    }
  }

  private static void customer(Fields body) {
    ObjectNode customer = body.optionalObject("customer");
    if (customer == null) {
      return;
    }
    Fields fields = Fields.of(customer).allowOnly("email", "name");
    fields.optionalEmail("email");
    fields.optionalString("name", 1, 200);
    if (!fields.valid()) {
      body.issue(
          "customer", "must be {email, name} with a valid email and a name of 1 to 200 characters");
    }
  }

  private static java.util.List<String> sorted(Set<String> values) {
    return values.stream().sorted().toList();
  }
}
