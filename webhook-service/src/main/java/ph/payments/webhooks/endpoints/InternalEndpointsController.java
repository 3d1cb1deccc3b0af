package ph.payments.webhooks.endpoints;

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
import java.util.OptionalLong;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.tx.Transactions;
import ph.payments.webhooks.deliveries.DeliveryJson;
import ph.payments.webhooks.deliveries.DeliveryStatus;
import ph.payments.webhooks.deliveries.DeliveryView;
import ph.payments.webhooks.deliveries.JdbcDeliveries;

/**
 * Endpoint reads for the gateway ({@code GET /v1/webhooks/endpoints…}); the merchant and
 * environment come from the gateway's headers. Secrets are never part of a read.
 */
@Controller("/internal/webhook_endpoints")
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalEndpointsController {

  private final Transactions transactions;
  private final JdbcWebhookEndpoints endpoints;
  private final JdbcDeliveries deliveries;

  public InternalEndpointsController(
      Transactions transactions, JdbcWebhookEndpoints endpoints, JdbcDeliveries deliveries) {
    this.transactions = transactions;
    this.endpoints = endpoints;
    this.deliveries = deliveries;
  }

  /** {@code {object:"list", data:[…]}}: the list of endpoints has no {@code has_more} (SPEC). */
  @Get
  public ObjectNode list(HttpRequest<?> request) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    List<WebhookEndpoint> all =
        transactions.inTransaction(c -> endpoints.list(c, scope.merchantId(), scope.environment()));
    ObjectNode list = Json.mapper().createObjectNode();
    list.put("object", "list");
    ArrayNode data = list.putArray("data");
    all.forEach(endpoint -> data.add(EndpointJson.of(endpoint)));
    return list;
  }

  @Get("/{id}")
  public ObjectNode get(HttpRequest<?> request, String id) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    return EndpointJson.of(transactions.inTransaction(c -> require(c, id, scope)));
  }

  /** The endpoint's deliveries, oldest first, paged by delivery id. */
  @Get("/{id}/deliveries")
  public ObjectNode deliveries(
      HttpRequest<?> request,
      String id,
      @Nullable @QueryValue Integer limit,
      @Nullable @QueryValue("starting_after") String startingAfter,
      @Nullable @QueryValue String status) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    int pageSize = limit == null ? 25 : Math.max(1, Math.min(100, limit));
    long after = 0;
    if (startingAfter != null) {
      OptionalLong parsed = DeliveryJson.parseDelivery(startingAfter);
      if (parsed.isEmpty()) {
        throw ApiException.invalid(Map.of("starting_after", "must be a delivery id (whd_…)"));
      }
      after = parsed.getAsLong();
    }
    DeliveryStatus filter = null;
    if (status != null) {
      try {
        filter = DeliveryStatus.fromWire(status);
      } catch (IllegalArgumentException e) {
        throw ApiException.invalid(Map.of("status", "must be pending, succeeded or failed"));
      }
    }
    long afterId = after;
    DeliveryStatus statusFilter = filter;
    List<DeliveryView> page =
        transactions.inTransaction(
            c -> {
              require(c, id, scope);
              return deliveries.forEndpoint(c, id, statusFilter, afterId, pageSize + 1);
            });
    ObjectNode list = Json.mapper().createObjectNode();
    list.put("object", "list");
    ArrayNode data = list.putArray("data");
    page.stream().limit(pageSize).forEach(d -> data.add(DeliveryJson.of(d)));
    list.put("has_more", page.size() > pageSize);
    return list;
  }

  private WebhookEndpoint require(Connection connection, String id, InternalHeaders.Scope scope)
      throws SQLException {
    if (IdType.WEBHOOK_ENDPOINT.matches(id)) {
      var found = endpoints.find(connection, id, scope.merchantId(), scope.environment(), false);
      if (found.isPresent()) {
        return found.get();
      }
      if (endpoints.existsInOtherEnvironment(
          connection, id, scope.merchantId(), scope.environment())) {
        throw new ApiException(
            ErrorCode.UNAUTHENTICATED,
            "This webhook endpoint belongs to the other environment; use a key of that"
                + " environment.");
      }
    }
    throw ApiException.notFound("webhook endpoint");
  }
}
