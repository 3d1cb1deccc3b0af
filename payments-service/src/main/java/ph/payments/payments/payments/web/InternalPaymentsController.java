package ph.payments.payments.payments.web;

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
import ph.payments.payments.events.EventLog;
import ph.payments.payments.payments.application.MerchantPayments;
import ph.payments.payments.payments.application.PaymentMoves;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.domain.PaymentStatus;
import ph.payments.payments.payments.persistence.JdbcPayments;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.tx.Transactions;

/**
 * Payment reads for the gateway ({@code GET /v1/payments…}); the merchant and environment come from
 * the gateway's headers. Parameters were checked by the gateway; they are re-checked here only as
 * far as safety needs.
 */
@Controller("/internal/payments")
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalPaymentsController {

  private final Transactions transactions;
  private final JdbcPayments payments;
  private final MerchantPayments merchantPayments;
  private final EventLog events;
  private final PaymentMoves moves;

  public InternalPaymentsController(
      Transactions transactions,
      JdbcPayments payments,
      MerchantPayments merchantPayments,
      EventLog events,
      PaymentMoves moves) {
    this.transactions = transactions;
    this.payments = payments;
    this.merchantPayments = merchantPayments;
    this.events = events;
    this.moves = moves;
  }

  @Get
  public ObjectNode list(
      HttpRequest<?> request,
      @Nullable @QueryValue Integer limit,
      @Nullable @QueryValue("starting_after") String startingAfter,
      @Nullable @QueryValue String status,
      @Nullable @QueryValue("customer_id") String customerId) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    int pageSize = limit == null ? 25 : Math.max(1, Math.min(100, limit));
    PaymentStatus filter = status == null ? null : parseStatus(status);
    List<Payment> page =
        transactions.inTransaction(
            c ->
                payments.list(
                    c,
                    scope.merchantId(),
                    scope.environment(),
                    filter,
                    customerId,
                    startingAfter,
                    pageSize + 1));
    ObjectNode list = Json.mapper().createObjectNode();
    list.put("object", "list");
    ArrayNode data = list.putArray("data");
    page.stream().limit(pageSize).forEach(p -> data.add(moves.json(p)));
    list.put("has_more", page.size() > pageSize);
    return list;
  }

  @Get("/{id}")
  public ObjectNode get(HttpRequest<?> request, String id, @Nullable @QueryValue String expand) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    return transactions.inTransaction(
        c -> {
          Payment payment =
              merchantPayments.require(c, id, scope.merchantId(), scope.environment(), false);
          ObjectNode json = moves.json(payment);
          if ("events".equals(expand)) {
            ArrayNode timeline = json.putArray("events");
            for (byte[] event : events.forResource(c, payment.id())) {
              timeline.add(Json.tree(event));
            }
          }
          return json;
        });
  }

  private static PaymentStatus parseStatus(String status) {
    try {
      return PaymentStatus.fromWire(status);
    } catch (IllegalArgumentException e) {
      throw ApiException.invalid(java.util.Map.of("status", "must be a payment status"));
    }
  }
}
