package ph.payments.ledger.holds.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import ph.payments.ledger.holds.application.RecordPayoutOutcome;
import ph.payments.ledger.holds.application.TakeHold;
import ph.payments.ledger.holds.domain.HoldDecision;
import ph.payments.ledger.holds.domain.HoldRequest;
import ph.payments.ledger.holds.domain.PayoutHold;
import ph.payments.ledger.holds.domain.PayoutOutcome;
import ph.payments.ledger.holds.persistence.JdbcHolds;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.money.InvalidAmountException;
import ph.payments.platform.money.Money;
import ph.payments.platform.tx.Transactions;

/**
 * Payout holds for payments-service (docs/ledger.md, "Holds"): {@code POST /internal/holds} takes a
 * payout's debit before the payout is accepted, so {@code insufficient_balance} is known in the
 * creation response. Idempotent on {@code payout_id}:
 *
 * <ul>
 *   <li>201 and the hold when the debit was taken now;
 *   <li>200 and the hold as it stands when the same request was made before;
 *   <li>400 {@code insufficient_balance} when available does not cover the amount, now or when the
 *       payout id was first asked (a refusal is remembered);
 *   <li>409 {@code conflict} when the payout id is known with another merchant, environment, amount
 *       or currency.
 * </ul>
 */
@Controller("/internal/holds")
@ExecuteOn(TaskExecutors.BLOCKING)
public class HoldsController {

  private static final Set<String> ENVIRONMENTS = Set.of("test", "live");
  private static final BigDecimal MAX_AMOUNT = new BigDecimal("999999999999.99");

  private final TakeHold takeHold;
  private final RecordPayoutOutcome outcomes;
  private final JdbcHolds holds;
  private final Transactions transactions;
  private final Clock clock;

  public HoldsController(
      TakeHold takeHold,
      RecordPayoutOutcome outcomes,
      JdbcHolds holds,
      Transactions transactions,
      Clock clock) {
    this.takeHold = takeHold;
    this.outcomes = outcomes;
    this.holds = holds;
    this.transactions = transactions;
    this.clock = clock;
  }

  /** {@code {payout_id, merchant_id, environment, amount, currency}}. */
  @Post
  public HttpResponse<ObjectNode> take(@Nullable @Body JsonNode body) {
    HoldRequest request = parse(body);
    HoldDecision decision = takeHold.take(request);
    if (decision instanceof HoldDecision.Taken taken) {
      return HttpResponse.created(json(taken.hold()));
    }
    if (decision instanceof HoldDecision.Exists exists) {
      return HttpResponse.ok(json(exists.hold()));
    }
    if (decision instanceof HoldDecision.Refused) {
      throw new ApiException(
          ErrorCode.INSUFFICIENT_BALANCE, "The available balance does not cover the payout.");
    }
    throw new ApiException(
        ErrorCode.CONFLICT,
        "This payout id was used with another merchant, environment, amount or currency.");
  }

  /**
   * Holds still {@code held} that were taken before {@code created_before} (epoch seconds), oldest
   * first, at most {@code limit} (1–1000, default 100), after the hold of payout {@code
   * starting_after} when given: what payments-service's reconciler checks for payouts that never
   * appeared (docs/ledger.md, "Orphaned holds").
   */
  @Get
  public ObjectNode held(
      @Nullable @QueryValue String status,
      @Nullable @QueryValue("created_before") Long createdBefore,
      @Nullable @QueryValue Integer limit,
      @Nullable @QueryValue("starting_after") String startingAfter) {
    Map<String, String> issues = new LinkedHashMap<>();
    if (!"held".equals(status)) {
      issues.put("status", "must be held");
    }
    if (createdBefore == null || createdBefore < 0) {
      issues.put("created_before", "must be a time in epoch seconds");
    }
    int max = limit == null ? 100 : limit;
    if (max < 1 || max > 1000) {
      issues.put("limit", "must be between 1 and 1000");
    }
    if (!issues.isEmpty()) {
      throw ApiException.invalid(issues);
    }
    List<PayoutHold> held =
        transactions.inTransaction(
            c -> holds.heldBefore(c, Instant.ofEpochSecond(createdBefore), startingAfter, max));
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("object", "list");
    ArrayNode data = json.putArray("data");
    held.forEach(h -> data.add(json(h)));
    return json;
  }

  @Get("/{payoutId}")
  public ObjectNode get(String payoutId) {
    return json(
        transactions
            .inTransaction(c -> holds.find(c, payoutId))
            .orElseThrow(() -> ApiException.notFound("hold")));
  }

  /**
   * Gives a hold back when its payout was never created (for instance because creating it failed
   * after the hold was taken). Treated as a failure of the payout: a held amount goes back to
   * available once; a settled payout cannot be released (409).
   */
  @Post("/{payoutId}/release")
  public ObjectNode release(String payoutId) {
    RecordPayoutOutcome.Result result =
        transactions.inTransaction(
            c -> {
              PayoutHold hold =
                  holds.find(c, payoutId).orElseThrow(() -> ApiException.notFound("hold"));
              return outcomes.apply(
                  c,
                  new PayoutOutcome(
                      PayoutOutcome.Kind.RELEASED,
                      hold.payoutId(),
                      hold.merchantId(),
                      hold.environment(),
                      hold.amount(),
                      null,
                      null,
                      clock.instant()));
            });
    if (result instanceof RecordPayoutOutcome.Applied applied) {
      return json(applied.hold());
    }
    if (result instanceof RecordPayoutOutcome.Unchanged unchanged) {
      return json(unchanged.hold());
    }
    if (result instanceof RecordPayoutOutcome.Noted noted) {
      return json(noted.hold());
    }
    throw new ApiException(
        ErrorCode.CONFLICT,
        "The hold cannot be released: " + ((RecordPayoutOutcome.Contradiction) result).reason());
  }

  static ObjectNode json(PayoutHold hold) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("object", "payout_hold");
    json.put("payout_id", hold.payoutId());
    json.put("merchant_id", hold.merchantId());
    json.put("environment", hold.environment());
    json.put("status", hold.status().wire());
    json.put("amount", hold.amount().amount());
    json.put("currency", hold.currency());
    json.put("balance_after", hold.balanceAfter());
    json.put("created", hold.createdAt().getEpochSecond());
    json.put("updated", hold.updatedAt().getEpochSecond());
    return json;
  }

  private static HoldRequest parse(JsonNode body) {
    Map<String, String> issues = new LinkedHashMap<>();
    if (body == null || !body.isObject()) {
      throw ApiException.invalid(Map.of("body", "must be a JSON object"));
    }
    String payoutId = text(body, "payout_id");
    if (!IdType.PAYOUT.matches(payoutId)) {
      issues.put("payout_id", "must be a payout id (po_…)");
    }
    String merchantId = text(body, "merchant_id");
    if (!IdType.MERCHANT.matches(merchantId)) {
      issues.put("merchant_id", "must be a merchant id (mer_…)");
    }
    String environment = text(body, "environment");
    if (environment == null || !ENVIRONMENTS.contains(environment)) {
      issues.put("environment", "must be test or live");
    }
    String currency = text(body, "currency");
    if (!Money.isCurrencyCode(currency)) {
      issues.put("currency", "must be a 3-letter upper-case currency code");
    }
    BigDecimal amount = null;
    JsonNode amountNode = body.get("amount");
    if (amountNode == null || !amountNode.isNumber()) {
      issues.put("amount", "must be a number");
    } else {
      amount = amountNode.decimalValue();
      try {
        amount = Money.exactScale(amount);
        if (amount.compareTo(Money.MIN_AMOUNT) < 0 || amount.compareTo(MAX_AMOUNT) > 0) {
          issues.put("amount", "must be between 0.01 and " + MAX_AMOUNT.toPlainString());
        }
      } catch (InvalidAmountException e) {
        issues.put("amount", "must be a multiple of 0.01");
      }
    }
    if (!issues.isEmpty()) {
      throw ApiException.invalid(issues);
    }
    return new HoldRequest(payoutId, merchantId, environment, Money.of(amount, currency));
  }

  private static String text(JsonNode body, String field) {
    JsonNode node = body.get(field);
    return node != null && node.isTextual() ? node.asText() : null;
  }
}
