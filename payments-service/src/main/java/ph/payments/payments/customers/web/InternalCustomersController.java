package ph.payments.payments.customers.web;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.List;
import ph.payments.payments.customers.application.MerchantCustomers;
import ph.payments.payments.customers.domain.Customer;
import ph.payments.payments.customers.persistence.JdbcCustomers;
import ph.payments.platform.json.Json;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.tx.Transactions;

/**
 * Customer reads for the gateway ({@code GET /v1/customers…}); the merchant and environment come
 * from the gateway's headers. Parameters were checked by the gateway. {@code external_id} (the
 * customers whose {@code metadata.external_id} it is) serves the gateway's embed tokens scoped by
 * the merchant's own customer id (issue 18); {@code /v1} does not offer it.
 */
@Controller("/internal/customers")
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalCustomersController {

  private final Transactions transactions;
  private final JdbcCustomers customers;
  private final MerchantCustomers merchantCustomers;
  private final String publicBaseUrl;

  public InternalCustomersController(
      Transactions transactions,
      JdbcCustomers customers,
      MerchantCustomers merchantCustomers,
      @Value("${payments.public-base-url}") String publicBaseUrl) {
    this.transactions = transactions;
    this.customers = customers;
    this.merchantCustomers = merchantCustomers;
    this.publicBaseUrl = publicBaseUrl;
  }

  @Get
  public ObjectNode list(
      HttpRequest<?> request,
      @Nullable @QueryValue Integer limit,
      @Nullable @QueryValue("starting_after") String startingAfter,
      @Nullable @QueryValue String email,
      @Nullable @QueryValue("external_id") String externalId) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    int pageSize = limit == null ? 25 : Math.max(1, Math.min(100, limit));
    List<Customer> page =
        transactions.inTransaction(
            c ->
                customers.list(
                    c,
                    scope.merchantId(),
                    scope.environment(),
                    email,
                    externalId,
                    startingAfter,
                    pageSize + 1));
    ObjectNode list = Json.mapper().createObjectNode();
    list.put("object", "list");
    ArrayNode data = list.putArray("data");
    page.stream().limit(pageSize).forEach(c -> data.add(CustomerJson.of(c, publicBaseUrl)));
    list.put("has_more", page.size() > pageSize);
    return list;
  }

  @Get("/{id}")
  public ObjectNode get(HttpRequest<?> request, String id) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    return transactions.inTransaction(
        c ->
            CustomerJson.of(
                merchantCustomers.require(c, id, scope.merchantId(), scope.environment(), false),
                publicBaseUrl));
  }
}
