package ph.payments.gateway.balance;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.List;
import java.util.Map;
import java.util.Set;
import ph.payments.gateway.auth.MerchantContext;
import ph.payments.gateway.auth.RequiresScope;
import ph.payments.gateway.routing.Owner;
import ph.payments.gateway.routing.ReadRouter;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.money.Money;

/**
 * The merchant's balance (SPEC parts 2 and 4), served by ledger-service for the key's environment:
 * the {@code balance_list} with one entry per currency with activity, or with {@code ?currency=}
 * the single {@code balance} object ({@code 0.00} for a currency without activity).
 */
@Controller("/v1/balance")
@ExecuteOn(TaskExecutors.BLOCKING)
public class BalanceController {

  private final ReadRouter reads;

  public BalanceController(ReadRouter reads) {
    this.reads = reads;
  }

  /**
   * SPEC gives {@code currency} a minimum length of 3; a currency code is exactly three upper-case
   * letters (SPEC part 8), so anything else is 400 naming {@code currency}.
   */
  @Get
  @RequiresScope("balance:read")
  public HttpResponse<String> balance(HttpRequest<?> request) {
    List<String> currency = request.getParameters().getAll("currency");
    if (currency.size() > 1 || (currency.size() == 1 && !Money.isCurrencyCode(currency.get(0)))) {
      throw ApiException.invalid(
          Map.of("currency", "must be one 3-letter upper-case currency code, e.g. PHP"));
    }
    return reads.get(
        request,
        MerchantContext.of(request),
        Owner.LEDGER,
        "/internal/balances",
        Set.of("currency"));
  }
}
