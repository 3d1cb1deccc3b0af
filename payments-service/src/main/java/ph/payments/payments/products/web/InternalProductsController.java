package ph.payments.payments.products.web;

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
import ph.payments.payments.products.application.MerchantProducts;
import ph.payments.payments.products.domain.Product;
import ph.payments.payments.products.persistence.JdbcProducts;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.tx.Transactions;

/**
 * Product reads for the gateway ({@code GET /v1/products…}); the merchant and environment come from
 * the gateway's headers. Filters: {@code archived} (default false), {@code category} (exact),
 * {@code in_stock}, {@code low_stock}, and {@code q} (a case-insensitive part of the name, sku or
 * barcode).
 */
@Controller("/internal/products")
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalProductsController {

  private final Transactions transactions;
  private final JdbcProducts products;
  private final MerchantProducts merchantProducts;

  public InternalProductsController(
      Transactions transactions, JdbcProducts products, MerchantProducts merchantProducts) {
    this.transactions = transactions;
    this.products = products;
    this.merchantProducts = merchantProducts;
  }

  @Get
  public ObjectNode list(
      HttpRequest<?> request,
      @Nullable @QueryValue Integer limit,
      @Nullable @QueryValue("starting_after") String startingAfter,
      @Nullable @QueryValue String archived,
      @Nullable @QueryValue String category,
      @Nullable @QueryValue("in_stock") String inStock,
      @Nullable @QueryValue("low_stock") String lowStock,
      @Nullable @QueryValue String q) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    int pageSize = limit == null ? 25 : Math.max(1, Math.min(100, limit));
    Boolean archivedFilter = archived == null ? Boolean.FALSE : bool("archived", archived);
    JdbcProducts.Filter filter =
        new JdbcProducts.Filter(
            archivedFilter,
            category,
            inStock == null ? null : bool("in_stock", inStock),
            lowStock == null ? null : bool("low_stock", lowStock),
            q == null || q.isEmpty() ? null : q);
    List<Product> page =
        transactions.inTransaction(
            c ->
                products.list(
                    c,
                    scope.merchantId(),
                    scope.environment(),
                    filter,
                    startingAfter,
                    pageSize + 1));
    ObjectNode list = Json.mapper().createObjectNode();
    list.put("object", "list");
    ArrayNode data = list.putArray("data");
    page.stream().limit(pageSize).forEach(p -> data.add(ProductJson.of(p)));
    list.put("has_more", page.size() > pageSize);
    return list;
  }

  @Get("/{id}")
  public ObjectNode get(HttpRequest<?> request, String id) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    return transactions.inTransaction(
        c ->
            ProductJson.of(
                merchantProducts.require(c, id, scope.merchantId(), scope.environment(), false)));
  }

  private static Boolean bool(String name, String value) {
    return switch (value) {
      case "true" -> Boolean.TRUE;
      case "false" -> Boolean.FALSE;
      default -> throw ApiException.invalid(Map.of(name, "must be true or false"));
    };
  }
}
