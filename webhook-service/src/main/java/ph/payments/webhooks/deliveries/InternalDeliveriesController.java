package ph.payments.webhooks.deliveries;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.json.Json;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.tx.Transactions;

/**
 * Delivery reads for the gateway: one delivery ({@code GET /v1/webhooks/deliveries/{id}}) and its
 * attempt log ({@code …/attempts}), within the merchant environment of the caller's key.
 */
@Controller("/internal/webhook_deliveries")
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalDeliveriesController {

  private final Transactions transactions;
  private final JdbcDeliveries deliveries;

  public InternalDeliveriesController(Transactions transactions, JdbcDeliveries deliveries) {
    this.transactions = transactions;
    this.deliveries = deliveries;
  }

  @Get("/{id}")
  public ObjectNode get(HttpRequest<?> request, String id) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    return DeliveryJson.of(transactions.inTransaction(c -> require(c, id, scope)));
  }

  /** The attempts in the order they were made, paged by attempt id. */
  @Get("/{id}/attempts")
  public ObjectNode attempts(
      HttpRequest<?> request,
      String id,
      @Nullable @QueryValue Integer limit,
      @Nullable @QueryValue("starting_after") String startingAfter) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    int pageSize = limit == null ? 25 : Math.max(1, Math.min(100, limit));
    long after = 0;
    if (startingAfter != null) {
      OptionalLong parsed = DeliveryJson.parseAttempt(startingAfter);
      if (parsed.isEmpty()) {
        throw ApiException.invalid(Map.of("starting_after", "must be an attempt id (wha_…)"));
      }
      after = parsed.getAsLong();
    }
    long afterId = after;
    List<AttemptView> page =
        transactions.inTransaction(
            c -> {
              DeliveryView delivery = require(c, id, scope);
              return deliveries.attempts(c, delivery.id(), afterId, pageSize + 1);
            });
    ObjectNode list = Json.mapper().createObjectNode();
    list.put("object", "list");
    ArrayNode data = list.putArray("data");
    page.stream().limit(pageSize).forEach(a -> data.add(DeliveryJson.attempt(a)));
    list.put("has_more", page.size() > pageSize);
    return list;
  }

  private DeliveryView require(Connection connection, String id, InternalHeaders.Scope scope)
      throws SQLException {
    OptionalLong number = DeliveryJson.parseDelivery(id);
    Optional<DeliveryView> found =
        number.isPresent() ? deliveries.find(connection, number.getAsLong()) : Optional.empty();
    if (found.isEmpty() || !found.get().merchantId().equals(scope.merchantId())) {
      throw ApiException.notFound("webhook delivery");
    }
    if (!found.get().environment().equals(scope.environment())) {
      throw new ApiException(
          ErrorCode.UNAUTHENTICATED,
          "This delivery belongs to the other environment; use a key of that environment.");
    }
    return found.get();
  }
}
