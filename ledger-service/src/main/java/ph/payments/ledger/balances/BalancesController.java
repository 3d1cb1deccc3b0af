package ph.payments.ledger.balances;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.math.BigDecimal;
import java.util.Map;
import ph.payments.ledger.journal.domain.AccountCode;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.money.Money;
import ph.payments.platform.tx.Transactions;

/**
 * Balance reads for the gateway ({@code GET /v1/balance}, SPEC parts 2 and 4). The merchant and
 * environment come from the gateway's headers, never from the query.
 */
@Controller("/internal/balances")
@ExecuteOn(TaskExecutors.BLOCKING)
public class BalancesController {

  private final Transactions transactions;
  private final JdbcBalances balances;

  public BalancesController(Transactions transactions, JdbcBalances balances) {
    this.transactions = transactions;
    this.balances = balances;
  }

  /**
   * Without {@code currency}: the {@code balance_list}, one entry per currency with activity
   * (negative balances included). With it: the single {@code balance}, {@code 0.00} for a currency
   * without activity.
   */
  @Get
  public ObjectNode get(HttpRequest<?> request, @Nullable @QueryValue String currency) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    ObjectNode json = Json.mapper().createObjectNode();
    if (currency == null) {
      Map<String, BigDecimal> available =
          transactions.inTransaction(
              c -> balances.available(c, scope.merchantId(), scope.environment()));
      json.put("object", "balance_list");
      json.put("environment", scope.environment());
      ObjectNode byCurrency = json.putObject("available");
      available.forEach(byCurrency::put);
      return json;
    }
    if (!Money.isCurrencyCode(currency)) {
      throw ApiException.invalid(
          Map.of("currency", "must be a 3-letter upper-case currency code, e.g. PHP"));
    }
    BigDecimal available =
        transactions
            .inTransaction(
                c ->
                    balances.balance(
                        c,
                        AccountCode.MERCHANT_AVAILABLE,
                        scope.merchantId(),
                        scope.environment(),
                        currency))
            .orElse(Money.zero(currency).amount());
    json.put("object", "balance");
    json.put("environment", scope.environment());
    json.put("currency", currency);
    json.put("available", available);
    return json;
  }
}
