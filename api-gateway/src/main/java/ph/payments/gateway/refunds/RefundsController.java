package ph.payments.gateway.refunds;

import com.fasterxml.jackson.databind.JsonNode;
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
import ph.payments.gateway.web.TestHelperBodies;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.money.Money;

/**
 * Refunds (SPEC part 4): creation through the command path into payments-service, which owns the
 * rules that need the payment (its state, what remains refundable); reads forwarded to it; the
 * sandbox test helpers. The body's own rules are checked here, before anything is written.
 */
@Controller("/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class RefundsController {

  public static final String CREATE = "refunds.create";
  static final CommandEndpoint.Creation CREATION =
      new CommandEndpoint.Creation(CREATE, "refund", "/v1/refunds");
  static final Set<String> REASONS =
      Set.of("duplicate", "fraudulent", "requested_by_customer", "other");
  static final Set<String> STATUSES =
      Set.of("pending", "processing", "pending_manual", "succeeded", "failed");
  static final Set<String> HELPER_ACTIONS = Set.of("succeed", "fail");

  private final CommandEndpoint commands;
  private final ReadRouter reads;

  public RefundsController(CommandEndpoint commands, ReadRouter reads) {
    this.commands = commands;
    this.reads = reads;
  }

  @Post("/refunds")
  @RequiresScope("refunds:write")
  @DecidedWithCommand
  public HttpResponse<?> create(HttpRequest<?> request, @Nullable @Body JsonNode json) {
    Fields body = Fields.of(json).allowOnly("payment", "amount", "reason");
    String payment = body.requiredString("payment", 1, 255);
    if (payment != null && !IdType.PAYMENT.matches(payment)) {
      body.issue("payment", "must be a payment id (pay_…)");
    }
    body.optionalAmount("amount", Money.MIN_AMOUNT, new BigDecimal("999999999999"));
    body.optionalEnum("reason", REASONS);
    body.validate();
    return commands.create(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        CREATION,
        IdType.REFUND.generate(),
        json);
  }

  @Get("/refunds")
  @RequiresScope("refunds:read")
  public HttpResponse<String> list(HttpRequest<?> request) {
    ListParams.from(request);
    String status = request.getParameters().get("status");
    if (status != null && !STATUSES.contains(status)) {
      throw ApiException.invalid(
          Map.of(
              "status",
              "must be one of " + String.join(", ", STATUSES.stream().sorted().toList())));
    }
    String payment = request.getParameters().get("payment");
    if (payment != null && !IdType.PAYMENT.matches(payment)) {
      throw ApiException.invalid(Map.of("payment", "must be a payment id (pay_…)"));
    }
    return reads.get(
        request,
        MerchantContext.of(request),
        Owner.PAYMENTS,
        "/internal/refunds",
        Set.of("limit", "starting_after", "status", "payment"));
  }

  @Get("/refunds/{id}")
  @RequiresScope("refunds:read")
  public HttpResponse<String> get(HttpRequest<?> request, String id) {
    requireRefundId(id);
    MerchantContext merchant = MerchantContext.of(request);
    return commands.orPending(
        reads.get(request, merchant, Owner.PAYMENTS, "/internal/refunds/" + id, Set.of()),
        merchant,
        CREATION,
        id);
  }

  /** Sandbox only: the bank or the operators decide a refund that was not answered at once. */
  @Post("/test_helpers/refunds/{id}/{action}")
  @TestModeOnly
  @RequiresScope("refunds:write")
  @DecidedWithCommand
  public HttpResponse<?> testHelper(
      HttpRequest<?> request, String id, String action, @Nullable @Body JsonNode json) {
    if (!HELPER_ACTIONS.contains(action)) {
      throw ApiException.notFound("test helper");
    }
    requireRefundId(id);
    return commands.execute(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        "test_helpers.refunds." + action,
        id,
        TestHelperBodies.of(action, json));
  }

  private static void requireRefundId(String id) {
    if (!IdType.REFUND.matches(id)) {
      throw ApiException.notFound("refund");
    }
  }
}
