package ph.payments.gateway.payouts;

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
 * Payouts and the payout bank registry (SPEC part 4): creation through the command path into
 * payments-service (which asks the ledger for the hold, checks the bank code against its registry
 * and routes to a rail), reads forwarded to it, and the sandbox test helpers. The body's own rules,
 * including each method's destination shape, are checked here.
 */
@Controller("/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class PayoutsController {

  public static final String CREATE = "payouts.create";
  static final CommandEndpoint.Creation CREATION =
      new CommandEndpoint.Creation(CREATE, "payout", "/v1/payouts");
  static final Set<String> STATUSES = Set.of("pending", "processing", "succeeded", "failed");
  static final Set<String> HELPER_ACTIONS = Set.of("succeed", "fail");

  /** A registry code (SWIFT-style, upper case), the cursor of {@code GET /v1/payout-banks}. */
  static final Pattern BANK_CODE = Pattern.compile("[A-Z0-9]{1,32}");

  private final CommandEndpoint commands;
  private final ReadRouter reads;

  public PayoutsController(CommandEndpoint commands, ReadRouter reads) {
    this.commands = commands;
    this.reads = reads;
  }

  @Post("/payouts")
  @RequiresScope("payouts:write")
  @DecidedWithCommand
  public HttpResponse<?> create(HttpRequest<?> request, @Nullable @Body JsonNode json) {
    Fields body =
        Fields.of(json)
            .allowOnly("amount", "method", "destination", "currency", "description", "metadata");
    body.requiredAmount("amount", Money.MIN_AMOUNT, new BigDecimal("999999999999"));
    String method = body.requiredString("method", 1, 40);
    body.currency("currency", "PHP");
    Destinations.check(body, method);
    body.optionalString("description", 0, 1000);
    Metadata.check(body);
    body.validate();
    return commands.create(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        CREATION,
        IdType.PAYOUT.generate(),
        json);
  }

  @Get("/payouts")
  @RequiresScope("payouts:read")
  public HttpResponse<String> list(HttpRequest<?> request) {
    ListParams.from(request);
    String status = request.getParameters().get("status");
    if (status != null && !STATUSES.contains(status)) {
      throw ApiException.invalid(
          Map.of(
              "status",
              "must be one of " + String.join(", ", STATUSES.stream().sorted().toList())));
    }
    return reads.get(
        request,
        MerchantContext.of(request),
        Owner.PAYMENTS,
        "/internal/payouts",
        Set.of("limit", "starting_after", "status"));
  }

  @Get("/payouts/{id}")
  @RequiresScope("payouts:read")
  public HttpResponse<String> get(HttpRequest<?> request, String id) {
    requirePayoutId(id);
    MerchantContext merchant = MerchantContext.of(request);
    return commands.orPending(
        reads.get(request, merchant, Owner.PAYMENTS, "/internal/payouts/" + id, Set.of()),
        merchant,
        CREATION,
        id);
  }

  /**
   * The bank-code registry for bank payouts, ordered by code, paged like every list; {@code
   * starting_after} is the last code of the previous page.
   */
  @Get("/payout-banks")
  @RequiresScope("payouts:read")
  public HttpResponse<String> banks(HttpRequest<?> request) {
    ListParams.from(request, BANK_CODE);
    return reads.get(
        request,
        MerchantContext.of(request),
        Owner.PAYMENTS,
        "/internal/payout-banks",
        Set.of("limit", "starting_after"));
  }

  /** Sandbox only: the rail decides a payout it has not finished. */
  @Post("/test_helpers/payouts/{id}/{action}")
  @TestModeOnly
  @RequiresScope("payouts:write")
  @DecidedWithCommand
  public HttpResponse<?> testHelper(
      HttpRequest<?> request, String id, String action, @Nullable @Body JsonNode json) {
    if (!HELPER_ACTIONS.contains(action)) {
      throw ApiException.notFound("test helper");
    }
    requirePayoutId(id);
    return commands.execute(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        "test_helpers.payouts." + action,
        id,
        TestHelperBodies.of(action, json));
  }

  private static void requirePayoutId(String id) {
    if (!IdType.PAYOUT.matches(id)) {
      throw ApiException.notFound("payout");
    }
  }
}
