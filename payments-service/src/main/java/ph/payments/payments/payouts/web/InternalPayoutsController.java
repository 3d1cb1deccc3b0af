package ph.payments.payments.payouts.web;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.List;
import java.util.Map;
import ph.payments.payments.payouts.application.MerchantPayouts;
import ph.payments.payments.payouts.domain.Payout;
import ph.payments.payments.payouts.domain.PayoutStatus;
import ph.payments.payments.payouts.persistence.JdbcPayoutBanks;
import ph.payments.payments.payouts.persistence.JdbcPayouts;
import ph.payments.payments.web.ListPages;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.tx.Transactions;

/**
 * Payout reads for the gateway ({@code GET /v1/payouts…}, {@code GET /v1/payout-banks}); the
 * merchant and environment come from the gateway's headers.
 */
@Controller("/internal")
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalPayoutsController {

  private final Transactions transactions;
  private final JdbcPayouts payouts;
  private final MerchantPayouts merchantPayouts;
  private final JdbcPayoutBanks banks;

  public InternalPayoutsController(
      Transactions transactions,
      JdbcPayouts payouts,
      MerchantPayouts merchantPayouts,
      JdbcPayoutBanks banks) {
    this.transactions = transactions;
    this.payouts = payouts;
    this.merchantPayouts = merchantPayouts;
    this.banks = banks;
  }

  @Get("/payouts")
  public ObjectNode list(
      HttpRequest<?> request,
      @Nullable @QueryValue Integer limit,
      @Nullable @QueryValue("starting_after") String startingAfter,
      @Nullable @QueryValue String status) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    int pageSize = limit == null ? 25 : Math.max(1, Math.min(100, limit));
    PayoutStatus filter = status == null ? null : parseStatus(status);
    List<Payout> page =
        transactions.inTransaction(
            c ->
                payouts.list(
                    c,
                    scope.merchantId(),
                    scope.environment(),
                    filter,
                    startingAfter,
                    pageSize + 1));
    ObjectNode list = Json.mapper().createObjectNode();
    list.put("object", "list");
    ArrayNode data = list.putArray("data");
    page.stream().limit(pageSize).forEach(p -> data.add(PayoutJson.of(p)));
    list.put("has_more", page.size() > pageSize);
    return list;
  }

  @Get("/payouts/{id}")
  public ObjectNode get(HttpRequest<?> request, String id) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    return transactions.inTransaction(
        c ->
            PayoutJson.of(merchantPayouts.require(c, id, scope.merchantId(), scope.environment())));
  }

  /**
   * The registry ordered by code, paged like every list (SPEC part 4: {@code limit}, default 25,
   * and {@code starting_after}, here the last code of the previous page). Inactive codes are listed
   * with status 0.
   */
  @Get("/payout-banks")
  public ObjectNode banks(
      @Nullable @QueryValue Integer limit,
      @Nullable @QueryValue("starting_after") String startingAfter) {
    int pageSize = ListPages.pageSize(limit);
    List<JdbcPayoutBanks.PayoutBank> rows =
        transactions.inTransaction(
            c -> banks.page(c, startingAfter, ListPages.rowsToRead(pageSize)));
    return ListPages.envelope(
        rows,
        pageSize,
        bank -> {
          ObjectNode json = Json.mapper().createObjectNode();
          json.put("code", bank.code());
          json.put("name", bank.name());
          json.put("brstn", bank.brstn());
          json.put("status", bank.status());
          return json;
        });
  }

  private static PayoutStatus parseStatus(String status) {
    try {
      return PayoutStatus.fromWire(status);
    } catch (IllegalArgumentException e) {
      throw ApiException.invalid(Map.of("status", "must be a payout status"));
    }
  }
}
