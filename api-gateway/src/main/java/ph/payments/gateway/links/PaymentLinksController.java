package ph.payments.gateway.links;

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
import java.time.Clock;
import java.time.OffsetDateTime;
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
import ph.payments.platform.money.Money;

/**
 * Payment links (SPEC part 2 "PaymentLink", issue 16; docs/catalog.md "Payment links"): create and
 * update through the command path into payments-service, which owns the links, their slugs and
 * their use; reads forwarded to it. Every body rule and limit of SPEC parts 2 and 8 is checked
 * here, before anything is written.
 */
@Controller("/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class PaymentLinksController {

  static final CommandEndpoint.Creation CREATION =
      new CommandEndpoint.Creation(
          CommandTypes.PAYMENT_LINKS_CREATE, "payment_link", "/v1/payment_links");

  public static final int DESCRIPTION_MAX = 500;
  public static final int METHOD_MAX = 40;
  public static final BigDecimal AMOUNT_MAX = new BigDecimal("999999999999");
  static final Set<String> STATUSES = Set.of("active", "inactive");
  static final Pattern CUSTOMER_ID = Pattern.compile("^cus_[0-9a-z]{1,60}$");

  static final List<String> CREATE_FIELDS =
      List.of(
          "description",
          "amount",
          "currency",
          "method",
          "image_url",
          "success_url",
          "cancel_url",
          "expires_at",
          "customer_id",
          "metadata");

  static final List<String> UPDATE_FIELDS =
      List.of(
          "description",
          "amount",
          "currency",
          "method",
          "image_url",
          "success_url",
          "cancel_url",
          "status",
          "metadata");

  /** Fields an update may not set to null. */
  static final Set<String> NOT_NULLABLE = Set.of("description", "currency", "status", "metadata");

  private final CommandEndpoint commands;
  private final ReadRouter reads;
  private final Clock clock;

  public PaymentLinksController(CommandEndpoint commands, ReadRouter reads, Clock clock) {
    this.commands = commands;
    this.reads = reads;
    this.clock = clock;
  }

  @Post("/payment_links")
  @RequiresScope("payment_links:write")
  public HttpResponse<?> create(HttpRequest<?> request, @Nullable @Body JsonNode json) {
    Fields body = Fields.of(json).allowOnly(CREATE_FIELDS.toArray(String[]::new));
    body.requiredString("description", 1, DESCRIPTION_MAX);
    fields(body);
    OffsetDateTime expiresAt = body.optionalDateTime("expires_at");
    if (expiresAt != null && !expiresAt.toInstant().isAfter(clock.instant())) {
      body.issue("expires_at", "must be in the future");
    }
    body.optionalPattern("customer_id", CUSTOMER_ID, "look like cus_…");
    body.validate();
    return commands.create(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        CREATION,
        IdType.PAYMENT_LINK.generate(),
        json);
  }

  @Patch("/payment_links/{id}")
  @RequiresScope("payment_links:write")
  public HttpResponse<?> update(HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    requireLinkId(id);
    Fields body = Fields.of(json).allowOnly(UPDATE_FIELDS.toArray(String[]::new));
    if (json != null && json.isObject()) {
      for (String name : NOT_NULLABLE) {
        if (json.has(name) && json.get(name).isNull()) {
          body.issue(name, "cannot be null");
        }
      }
    }
    body.optionalString("description", 1, DESCRIPTION_MAX);
    fields(body);
    body.optionalEnum("status", STATUSES);
    body.validate();
    return commands.execute(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        CommandTypes.PAYMENT_LINKS_UPDATE,
        id,
        json);
  }

  /** The Stripe-style alias of {@code PATCH} (ARCHITECTURE "Catalog API shape"). */
  @Post("/payment_links/{id}")
  @RequiresScope("payment_links:write")
  public HttpResponse<?> updateByPost(
      HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    return update(request, id, json);
  }

  @Get("/payment_links")
  @RequiresScope("payment_links:read")
  public HttpResponse<String> list(HttpRequest<?> request) {
    ListParams.from(request);
    String status = request.getParameters().get("status");
    if (status != null && !STATUSES.contains(status)) {
      throw ApiException.invalid(Map.of("status", "must be active or inactive"));
    }
    return reads.get(
        request,
        MerchantContext.of(request),
        Owner.PAYMENTS,
        "/internal/payment_links",
        Set.of("limit", "starting_after", "status"));
  }

  @Get("/payment_links/{id}")
  @RequiresScope("payment_links:read")
  public HttpResponse<String> get(HttpRequest<?> request, String id) {
    requireLinkId(id);
    MerchantContext merchant = MerchantContext.of(request);
    return commands.orPending(
        reads.get(request, merchant, Owner.PAYMENTS, "/internal/payment_links/" + id, Set.of()),
        merchant,
        CREATION,
        id);
  }

  /** The rules create and update share (description and status aside). */
  private static void fields(Fields body) {
    body.optionalAmount("amount", Money.MIN_AMOUNT, AMOUNT_MAX);
    body.currency("currency", "PHP");
    body.optionalString("method", 1, METHOD_MAX);
    body.optionalUri("image_url");
    body.optionalUri("success_url");
    body.optionalUri("cancel_url");
    Metadata.check(body);
  }

  private static void requireLinkId(String id) {
    if (!IdType.PAYMENT_LINK.matches(id)) {
      throw ApiException.notFound("payment link");
    }
  }
}
