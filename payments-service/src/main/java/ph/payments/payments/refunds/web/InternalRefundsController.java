package ph.payments.payments.refunds.web;

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
import ph.payments.payments.refunds.application.MerchantRefunds;
import ph.payments.payments.refunds.domain.Refund;
import ph.payments.payments.refunds.domain.RefundStatus;
import ph.payments.payments.refunds.persistence.JdbcRefunds;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.tx.Transactions;

/**
 * Refund reads for the gateway ({@code GET /v1/refunds…}); the merchant and environment come from
 * the gateway's headers. Filters: {@code status} and {@code payment}.
 */
@Controller("/internal/refunds")
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalRefundsController {

  private final Transactions transactions;
  private final JdbcRefunds refunds;
  private final MerchantRefunds merchantRefunds;

  public InternalRefundsController(
      Transactions transactions, JdbcRefunds refunds, MerchantRefunds merchantRefunds) {
    this.transactions = transactions;
    this.refunds = refunds;
    this.merchantRefunds = merchantRefunds;
  }

  @Get
  public ObjectNode list(
      HttpRequest<?> request,
      @Nullable @QueryValue Integer limit,
      @Nullable @QueryValue("starting_after") String startingAfter,
      @Nullable @QueryValue String status,
      @Nullable @QueryValue String payment) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    int pageSize = limit == null ? 25 : Math.max(1, Math.min(100, limit));
    RefundStatus filter = status == null ? null : parseStatus(status);
    if (payment != null && !IdType.PAYMENT.matches(payment)) {
      throw ApiException.invalid(Map.of("payment", "must be a payment id (pay_…)"));
    }
    List<Refund> page =
        transactions.inTransaction(
            c ->
                refunds.list(
                    c,
                    scope.merchantId(),
                    scope.environment(),
                    filter,
                    payment,
                    startingAfter,
                    pageSize + 1));
    ObjectNode list = Json.mapper().createObjectNode();
    list.put("object", "list");
    ArrayNode data = list.putArray("data");
    page.stream().limit(pageSize).forEach(r -> data.add(RefundJson.of(r)));
    list.put("has_more", page.size() > pageSize);
    return list;
  }

  @Get("/{id}")
  public ObjectNode get(HttpRequest<?> request, String id) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    return transactions.inTransaction(
        c ->
            RefundJson.of(merchantRefunds.require(c, id, scope.merchantId(), scope.environment())));
  }

  private static RefundStatus parseStatus(String status) {
    try {
      return RefundStatus.fromWire(status);
    } catch (IllegalArgumentException e) {
      throw ApiException.invalid(Map.of("status", "must be a refund status"));
    }
  }
}
