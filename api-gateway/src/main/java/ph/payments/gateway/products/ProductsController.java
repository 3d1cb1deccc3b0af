package ph.payments.gateway.products;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Patch;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import ph.payments.contracts.Topics;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.gateway.auth.MerchantContext;
import ph.payments.gateway.auth.RequiresScope;
import ph.payments.gateway.routing.Owner;
import ph.payments.gateway.routing.ReadRouter;
import ph.payments.gateway.web.CommandEndpoint;
import ph.payments.gateway.web.Fields;
import ph.payments.gateway.web.ListParams;
import ph.payments.gateway.web.Metadata;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;

/**
 * Products (SPEC part 2 "Product", issue 15; docs/catalog.md "Products"): create, update and stock
 * adjustments through the command path into payments-service, which owns sku/barcode uniqueness,
 * generation and the stock; reads forwarded to it. Every body rule and limit is checked here,
 * before anything is written.
 */
@Controller("/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ProductsController {

  static final CommandEndpoint.Creation CREATION =
      new CommandEndpoint.Creation(CommandTypes.PRODUCTS_CREATE, "product", "/v1/products");

  public static final int NAME_MAX = 200;
  public static final int DESCRIPTION_MAX = 2000;
  public static final int SKU_MAX = 80;
  public static final int BARCODE_MAX = 80;
  public static final int CATEGORY_MAX = 100;
  public static final int REASON_MAX = 500;
  public static final int QUERY_MAX = 200;

  /** The largest stock, threshold, set value and adjustment (payments-service agrees). */
  public static final int STOCK_MAX = 1_000_000_000;

  public static final BigDecimal PRICE_MAX = new BigDecimal("999999999999");

  static final List<String> CREATE_FIELDS =
      List.of(
          "name",
          "description",
          "price",
          "currency",
          "sku",
          "barcode",
          "image_url",
          "track_inventory",
          "stock",
          "low_stock_threshold",
          "category",
          "metadata");

  /** Fields an update may not set to null. */
  static final Set<String> NOT_NULLABLE =
      Set.of("name", "currency", "track_inventory", "stock", "archived", "metadata");

  private final CommandEndpoint commands;
  private final ReadRouter reads;

  public ProductsController(CommandEndpoint commands, ReadRouter reads) {
    this.commands = commands;
    this.reads = reads;
  }

  @Post("/products")
  @RequiresScope("products:write")
  public HttpResponse<?> create(HttpRequest<?> request, @Nullable @Body JsonNode json) {
    Fields body = Fields.of(json).allowOnly(CREATE_FIELDS.toArray(String[]::new));
    body.requiredString("name", 1, NAME_MAX);
    fields(body);
    body.validate();
    return commands.create(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        CREATION,
        IdType.PRODUCT.generate(),
        json);
  }

  @Patch("/products/{id}")
  @RequiresScope("products:write")
  public HttpResponse<?> update(HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    requireProductId(id);
    List<String> allowed = new java.util.ArrayList<>(CREATE_FIELDS);
    allowed.add("archived");
    Fields body = Fields.of(json).allowOnly(allowed.toArray(String[]::new));
    if (json != null && json.isObject()) {
      for (String name : NOT_NULLABLE) {
        if (json.has(name) && json.get(name).isNull()) {
          body.issue(name, "cannot be null");
        }
      }
    }
    body.optionalString("name", 1, NAME_MAX);
    fields(body);
    body.optionalBoolean("archived");
    body.validate();
    return commands.execute(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        CommandTypes.PRODUCTS_UPDATE,
        id,
        json);
  }

  /** The Stripe-style alias of {@code PATCH} (ARCHITECTURE "Catalog API shape"). */
  @Post("/products/{id}")
  @RequiresScope("products:write")
  public HttpResponse<?> updateByPost(
      HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    return update(request, id, json);
  }

  @Post("/products/{id}/stock_adjustments")
  @RequiresScope("products:write")
  public HttpResponse<?> adjustStock(
      HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    requireProductId(id);
    Fields body = Fields.of(json).allowOnly("quantity", "set", "reason");
    boolean quantity = body.has("quantity");
    boolean set = body.has("set");
    if (quantity && set) {
      body.issue("set", "give either quantity or set, not both");
    } else if (!quantity && !set) {
      body.issue("quantity", "is required (or set)");
    }
    Integer delta = body.optionalInteger("quantity", -STOCK_MAX, STOCK_MAX);
    if (delta != null && delta == 0) {
      body.issue("quantity", "must not be 0");
    }
    body.optionalInteger("set", 0, STOCK_MAX);
    body.optionalString("reason", 1, REASON_MAX);
    body.validate();
    return commands.execute(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        CommandTypes.PRODUCTS_ADJUST_STOCK,
        id,
        json);
  }

  @Get("/products")
  @RequiresScope("products:read")
  public HttpResponse<String> list(HttpRequest<?> request) {
    ListParams.from(request);
    Map<String, String> issues = new LinkedHashMap<>();
    for (String name : List.of("archived", "in_stock", "low_stock")) {
      String value = request.getParameters().get(name);
      if (value != null && !value.equals("true") && !value.equals("false")) {
        issues.put(name, "must be true or false");
      }
    }
    length(request, "category", CATEGORY_MAX, issues);
    length(request, "q", QUERY_MAX, issues);
    if (!issues.isEmpty()) {
      throw ApiException.invalid(issues);
    }
    return reads.get(
        request,
        MerchantContext.of(request),
        Owner.PAYMENTS,
        "/internal/products",
        Set.of("limit", "starting_after", "archived", "category", "in_stock", "low_stock", "q"));
  }

  @Get("/products/{id}")
  @RequiresScope("products:read")
  public HttpResponse<String> get(HttpRequest<?> request, String id) {
    requireProductId(id);
    MerchantContext merchant = MerchantContext.of(request);
    return commands.orPending(
        reads.get(request, merchant, Owner.PAYMENTS, "/internal/products/" + id, Set.of()),
        merchant,
        CREATION,
        id);
  }

  /** The rules create and update share (name aside). */
  private static void fields(Fields body) {
    body.optionalString("description", 0, DESCRIPTION_MAX);
    body.optionalAmount("price", BigDecimal.ZERO, PRICE_MAX);
    body.currency("currency", "PHP");
    body.optionalString("sku", 1, SKU_MAX);
    body.optionalString("barcode", 1, BARCODE_MAX);
    body.optionalUri("image_url");
    body.optionalBoolean("track_inventory");
    body.optionalInteger("stock", 0, STOCK_MAX);
    body.optionalInteger("low_stock_threshold", 0, STOCK_MAX);
    body.optionalString("category", 1, CATEGORY_MAX);
    Metadata.check(body);
  }

  private static void length(
      HttpRequest<?> request, String name, int max, Map<String, String> issues) {
    String value = request.getParameters().get(name);
    if (value != null && (value.isEmpty() || value.codePointCount(0, value.length()) > max)) {
      issues.put(name, "must be 1 to " + max + " characters");
    }
  }

  private static void requireProductId(String id) {
    if (!IdType.PRODUCT.matches(id)) {
      throw ApiException.notFound("product");
    }
  }
}
