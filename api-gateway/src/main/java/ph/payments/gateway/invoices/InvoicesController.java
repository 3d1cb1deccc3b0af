package ph.payments.gateway.invoices;

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
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
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
 * Invoices (SPEC part 2 "Invoice", issue 17; docs/invoices.md): create, update, send and void
 * through the command path into payments-service, which owns the invoices, their money, numbers and
 * state; reads forwarded to it. Every body rule and limit of SPEC parts 2 and 8 is checked here,
 * before anything is written; the rules that need the whole invoice (a discount above the subtotal,
 * a deposit that leaves no balance) and its state are payments-service's.
 */
@Controller("/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class InvoicesController {

  static final CommandEndpoint.Creation CREATION =
      new CommandEndpoint.Creation(CommandTypes.INVOICES_CREATE, "invoice", "/v1/invoices");

  public static final int LINE_ITEMS_MAX = 50;
  public static final int LINE_DESCRIPTION_MAX = 500;
  public static final int DESCRIPTION_MAX = 500;
  public static final int NOTES_MAX = 2000;

  /** The largest amount of any kind (SPEC part 8's payment maximum). */
  public static final BigDecimal AMOUNT_MAX = new BigDecimal("999999999999");

  /** Quantities: above 0, at most this, at most {@link #QUANTITY_DECIMALS} decimals. */
  public static final BigDecimal QUANTITY_MAX = new BigDecimal("1000000");

  public static final int QUANTITY_DECIMALS = 4;

  /** Unit amounts may carry fractions of a centavo (a price per gram); line amounts may not. */
  public static final int UNIT_AMOUNT_DECIMALS = 4;

  static final Set<String> STATUSES = Set.of("draft", "sent", "partial", "paid", "void");
  static final Pattern CUSTOMER_ID = Pattern.compile("^cus_[0-9a-z]{1,60}$");

  /** SPEC: pattern {@code ^shp_}; kept as given (no shipment resource exists), so any non-blank. */
  static final Pattern SHIPMENT_ID = Pattern.compile("^shp_\\S+$");

  private static final Pattern DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");

  static final List<String> CREATE_FIELDS =
      List.of(
          "line_items",
          "customer_id",
          "description",
          "tax_amount",
          "discount_amount",
          "currency",
          "due_date",
          "notes",
          "terms",
          "allow_partial_payment",
          "deposit_rate",
          "shipment_id",
          "metadata");

  /** SPEC: the create body minus {@code currency}, {@code deposit_rate} and {@code shipment_id}. */
  static final List<String> UPDATE_FIELDS =
      List.of(
          "line_items",
          "customer_id",
          "description",
          "tax_amount",
          "discount_amount",
          "due_date",
          "notes",
          "terms",
          "allow_partial_payment",
          "metadata");

  /** Fields an update may not set to null. */
  static final Set<String> NOT_NULLABLE = Set.of("line_items", "allow_partial_payment", "metadata");

  private static final List<String> LINE_FIELDS =
      List.of("description", "quantity", "unit_amount", "amount");

  private final CommandEndpoint commands;
  private final ReadRouter reads;

  public InvoicesController(CommandEndpoint commands, ReadRouter reads) {
    this.commands = commands;
    this.reads = reads;
  }

  @Post("/invoices")
  @RequiresScope("invoices:write")
  public HttpResponse<?> create(HttpRequest<?> request, @Nullable @Body JsonNode json) {
    Fields body = Fields.of(json).allowOnly(CREATE_FIELDS.toArray(String[]::new));
    if (!body.has("line_items")) {
      body.issue("line_items", "is required");
    }
    fields(body, json);
    body.currency("currency", "PHP");
    if (body.has("deposit_rate")) {
      BigDecimal rate = decimal(body, json, "deposit_rate", 8);
      if (rate != null && (rate.signum() <= 0 || rate.compareTo(BigDecimal.ONE) >= 0)) {
        body.issue("deposit_rate", "must be greater than 0 and less than 1");
      }
    }
    body.optionalPattern("shipment_id", SHIPMENT_ID, "look like shp_…");
    body.validate();
    return commands.create(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        CREATION,
        IdType.INVOICE.generate(),
        json);
  }

  @Patch("/invoices/{id}")
  @RequiresScope("invoices:write")
  public HttpResponse<?> update(HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    requireInvoiceId(id);
    Fields body = Fields.of(json).allowOnly(UPDATE_FIELDS.toArray(String[]::new));
    if (json != null && json.isObject()) {
      for (String name : NOT_NULLABLE) {
        if (json.has(name) && json.get(name).isNull()) {
          body.issue(name, "cannot be null");
        }
      }
    }
    fields(body, json);
    body.validate();
    return commands.execute(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        CommandTypes.INVOICES_UPDATE,
        id,
        json);
  }

  /** The Stripe-style alias of {@code PATCH} (ARCHITECTURE "Catalog API shape"). */
  @Post("/invoices/{id}")
  @RequiresScope("invoices:write")
  public HttpResponse<?> updateByPost(
      HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    return update(request, id, json);
  }

  @Post("/invoices/{id}/send")
  @RequiresScope("invoices:write")
  public HttpResponse<?> send(HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    return action(request, id, json, CommandTypes.INVOICES_SEND);
  }

  @Post("/invoices/{id}/void")
  @RequiresScope("invoices:write")
  public HttpResponse<?> voidInvoice(
      HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    return action(request, id, json, CommandTypes.INVOICES_VOID);
  }

  @Get("/invoices")
  @RequiresScope("invoices:read")
  public HttpResponse<String> list(HttpRequest<?> request) {
    ListParams.from(request);
    String status = request.getParameters().get("status");
    if (status != null && !STATUSES.contains(status)) {
      throw ApiException.invalid(
          Map.of("status", "must be one of draft, sent, partial, paid, void"));
    }
    String customerId = request.getParameters().get("customer_id");
    if (customerId != null && !IdType.CUSTOMER.matches(customerId)) {
      throw ApiException.invalid(Map.of("customer_id", "must be a customer id (cus_…)"));
    }
    return reads.get(
        request,
        MerchantContext.of(request),
        Owner.PAYMENTS,
        "/internal/invoices",
        Set.of("limit", "starting_after", "status", "customer_id"));
  }

  @Get("/invoices/{id}")
  @RequiresScope("invoices:read")
  public HttpResponse<String> get(HttpRequest<?> request, String id) {
    requireInvoiceId(id);
    MerchantContext merchant = MerchantContext.of(request);
    return commands.orPending(
        reads.get(request, merchant, Owner.PAYMENTS, "/internal/invoices/" + id, Set.of()),
        merchant,
        CREATION,
        id);
  }

  private HttpResponse<?> action(
      HttpRequest<?> request, String id, @Nullable JsonNode json, String type) {
    requireInvoiceId(id);
    if (json != null && !json.isNull() && !(json.isObject() && json.isEmpty())) {
      throw ApiException.invalid(Map.of("body", "must be empty or {}"));
    }
    return commands.execute(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        type,
        id,
        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode());
  }

  /** The rules create and update share. */
  private static void fields(Fields body, @Nullable JsonNode json) {
    if (body.has("line_items")) {
      lineItems(body, json.get("line_items"));
    }
    body.optionalPattern("customer_id", CUSTOMER_ID, "look like cus_…");
    body.optionalString("description", 0, DESCRIPTION_MAX);
    body.optionalAmount("tax_amount", BigDecimal.ZERO, AMOUNT_MAX);
    body.optionalAmount("discount_amount", BigDecimal.ZERO, AMOUNT_MAX);
    dueDate(body);
    body.optionalString("notes", 0, NOTES_MAX);
    body.optionalString("terms", 0, NOTES_MAX);
    body.optionalBoolean("allow_partial_payment");
    Metadata.check(body);
  }

  private static void lineItems(Fields body, JsonNode items) {
    if (!items.isArray()) {
      body.issue("line_items", "must be an array");
      return;
    }
    if (items.isEmpty() || items.size() > LINE_ITEMS_MAX) {
      body.issue("line_items", "must have 1 to " + LINE_ITEMS_MAX + " items");
      return;
    }
    for (int i = 0; i < items.size(); i++) {
      JsonNode item = items.get(i);
      Fields line = Fields.of(item).allowOnly(LINE_FIELDS.toArray(String[]::new));
      line.requiredString("description", 1, LINE_DESCRIPTION_MAX);
      if (!line.has("quantity")) {
        line.issue("quantity", "is required");
      } else {
        BigDecimal quantity = decimal(line, item, "quantity", QUANTITY_DECIMALS);
        if (quantity != null && (quantity.signum() <= 0 || quantity.compareTo(QUANTITY_MAX) > 0)) {
          line.issue("quantity", "must be greater than 0 and at most 1000000");
        }
      }
      if (!line.has("unit_amount")) {
        line.issue("unit_amount", "is required");
      } else {
        BigDecimal unit = decimal(line, item, "unit_amount", UNIT_AMOUNT_DECIMALS);
        if (unit != null && (unit.signum() < 0 || unit.compareTo(AMOUNT_MAX) > 0)) {
          line.issue("unit_amount", "must be between 0 and 999999999999");
        }
      }
      line.optionalAmount("amount", BigDecimal.ZERO, AMOUNT_MAX);
      body.issues("line_items[" + i + "]", line);
    }
  }

  /**
   * A JSON number with at most {@code decimals} decimals, read exactly; null (and an issue) else.
   */
  private static @Nullable BigDecimal decimal(
      Fields fields, JsonNode json, String name, int decimals) {
    JsonNode node = json.get(name);
    if (!node.isNumber()) {
      fields.issue(name, "must be a number");
      return null;
    }
    BigDecimal value = node.decimalValue();
    if (value.stripTrailingZeros().scale() > decimals) {
      fields.issue(name, "must have at most " + decimals + " decimals");
      return null;
    }
    return value;
  }

  private static void requireInvoiceId(String id) {
    if (!IdType.INVOICE.matches(id)) {
      throw ApiException.notFound("invoice");
    }
  }

  /** {@code due_date}, when given: a calendar date {@code YYYY-MM-DD}. */
  static void dueDate(Fields body) {
    if (body.has("due_date")) {
      String value = body.optionalString("due_date", 10, 10);
      if (value != null) {
        try {
          if (!DATE.matcher(value).matches()) {
            throw new DateTimeParseException("", value, 0);
          }
          LocalDate.parse(value);
        } catch (DateTimeParseException e) {
          body.issue("due_date", "must be a date, YYYY-MM-DD");
        }
      }
    }
  }
}
