package ph.payments.ledger.balances;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * Operator read (through the gateway's {@code GET /admin/v1/ledger/negative_balances}): merchants
 * whose available balance is below zero, most negative first. {@code environment} ({@code test} or
 * {@code live}) narrows the list; {@code limit} 1–1000, default 100.
 */
@Controller("/internal/negative_balances")
@ExecuteOn(TaskExecutors.BLOCKING)
public class NegativeBalancesController {

  private static final Set<String> ENVIRONMENTS = Set.of("test", "live");

  private final Transactions transactions;
  private final NegativeBalances negative;

  public NegativeBalancesController(Transactions transactions, NegativeBalances negative) {
    this.transactions = transactions;
    this.negative = negative;
  }

  @Get
  public ObjectNode list(
      @Nullable @QueryValue String environment, @Nullable @QueryValue Integer limit) {
    Map<String, String> issues = new LinkedHashMap<>();
    if (environment != null && !ENVIRONMENTS.contains(environment)) {
      issues.put("environment", "must be test or live");
    }
    int max = limit == null ? 100 : limit;
    if (max < 1 || max > 1000) {
      issues.put("limit", "must be between 1 and 1000");
    }
    if (!issues.isEmpty()) {
      throw ApiException.invalid(issues);
    }
    List<NegativeBalances.NegativeBalance> rows =
        transactions.inTransaction(c -> negative.list(c, environment, max));
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("object", "list");
    ArrayNode data = json.putArray("data");
    for (NegativeBalances.NegativeBalance row : rows) {
      ObjectNode item = data.addObject();
      item.put("object", "negative_balance");
      item.put("merchant_id", row.merchantId());
      item.put("environment", row.environment());
      item.put("currency", row.currency());
      item.put("available", row.balance());
      item.put("since", row.since().getEpochSecond());
    }
    return json;
  }
}
