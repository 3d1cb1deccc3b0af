package ph.payments.gateway.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import ph.payments.contracts.Topics;
import ph.payments.gateway.auth.MerchantContext;
import ph.payments.gateway.auth.RequiresScope;
import ph.payments.gateway.payments.EventsController;
import ph.payments.gateway.routing.Owner;
import ph.payments.gateway.routing.ReadRouter;
import ph.payments.gateway.web.CommandEndpoint;
import ph.payments.gateway.web.Fields;
import ph.payments.gateway.web.ListParams;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;

/**
 * Webhook endpoints and deliveries (SPEC parts 4 and 6; docs/webhooks.md). Changes go through the
 * command path to webhook-service with the {@code whe_} id allocated here; reads are forwarded to
 * its internal API. Every body rule is checked here, before anything is written.
 */
@Controller("/v1/webhooks")
@ExecuteOn(TaskExecutors.BLOCKING)
public class WebhooksController {

  public static final String CREATE = "webhooks.endpoints.create";
  static final CommandEndpoint.Creation CREATION =
      new CommandEndpoint.Creation(CREATE, "webhook_endpoint", "/v1/webhooks/endpoints");
  public static final String UPDATE = "webhooks.endpoints.update";
  public static final String DELETE = "webhooks.endpoints.delete";
  public static final String ROTATE_SECRET = "webhooks.endpoints.rotate_secret";
  public static final String REPLAY = "webhooks.deliveries.replay";

  /**
   * The reply fields webhook-service seals with {@code REPLY_SEALING_KEY}: the signing secret of a
   * creation or rotation, opened only into the merchant's response.
   */
  public static final Set<String> SEALED_FIELDS = Set.of("secret");

  /** Event types an endpoint may name (SPEC part 6), and {@code *} for all. */
  static final Set<String> EVENT_TYPES = eventTypes();

  /** What an endpoint created without {@code events} receives (SPEC part 4). */
  static final List<String> DEFAULT_EVENTS = List.of("payment.succeeded", "payment.failed");

  static final int MAX_URL_LENGTH = 2048;
  static final int MAX_DESCRIPTION_LENGTH = 500;
  private static final Set<String> DELIVERY_STATUSES = Set.of("pending", "succeeded", "failed");
  private static final Pattern DELIVERY_ID = Pattern.compile("(?:whd_)?([1-9][0-9]{0,17})");
  private static final Pattern ATTEMPT_ID = Pattern.compile("wha_[1-9][0-9]{0,17}");

  private final CommandEndpoint commands;
  private final ReadRouter reads;

  public WebhooksController(CommandEndpoint commands, ReadRouter reads) {
    this.commands = commands;
    this.reads = reads;
  }

  /** {@code {url, events?, description?}} → 201 with the signing secret, shown this once. */
  @Post("/endpoints")
  @RequiresScope("webhooks:write")
  public HttpResponse<?> create(HttpRequest<?> request, @Nullable @Body JsonNode json) {
    Fields body = Fields.of(json).allowOnly("url", "events", "description");
    String url = null;
    if (!body.has("url")) {
      body.issue("url", "is required");
    } else {
      url = body.optionalUri("url");
    }
    List<String> events = events(body);
    String description = body.optionalString("description", 0, MAX_DESCRIPTION_LENGTH);
    body.validate();

    ObjectNode command = Json.mapper().createObjectNode();
    command.put("url", url);
    ArrayNode eventList = command.putArray("events");
    (events == null ? DEFAULT_EVENTS : events).forEach(eventList::add);
    command.put("description", description);
    return commands.create(
        request,
        MerchantContext.of(request),
        Topics.WEBHOOKS_COMMANDS,
        CREATION,
        IdType.WEBHOOK_ENDPOINT.generate(),
        command,
        SEALED_FIELDS);
  }

  /** {@code {object:"list", data:[…]}} without secrets and without {@code has_more} (SPEC). */
  @Get("/endpoints")
  @RequiresScope("webhooks:read")
  public HttpResponse<String> list(HttpRequest<?> request) {
    return reads.get(
        request,
        MerchantContext.of(request),
        Owner.WEBHOOKS,
        "/internal/webhook_endpoints",
        Set.of());
  }

  @Get("/endpoints/{id}")
  @RequiresScope("webhooks:read")
  public HttpResponse<String> get(HttpRequest<?> request, String id) {
    MerchantContext merchant = MerchantContext.of(request);
    return commands.orPending(
        reads.get(
            request,
            merchant,
            Owner.WEBHOOKS,
            "/internal/webhook_endpoints/" + endpointId(id),
            Set.of()),
        merchant,
        CREATION,
        id);
  }

  /**
   * Any of {@code url}, {@code events}, {@code description} (null clears it) and {@code enabled}.
   */
  @Post("/endpoints/{id}")
  @RequiresScope("webhooks:write")
  public HttpResponse<?> update(HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    String endpoint = endpointId(id);
    Fields body = Fields.of(json).allowOnly("url", "events", "description", "enabled");
    ObjectNode command = Json.mapper().createObjectNode();
    if (json != null && json.has("url")) {
      if (json.get("url").isNull()) {
        body.issue("url", "cannot be removed");
      }
      command.put("url", body.optionalUri("url"));
    }
    if (json != null && json.has("events")) {
      if (json.get("events").isNull()) {
        body.issue("events", "must be an array of event types, or [\"*\"]");
      }
      List<String> events = events(body);
      if (events != null) {
        ArrayNode eventList = command.putArray("events");
        events.forEach(eventList::add);
      }
    }
    if (json != null && json.has("description")) {
      command.put("description", body.optionalString("description", 0, MAX_DESCRIPTION_LENGTH));
    }
    if (json != null && json.has("enabled")) {
      Boolean enabled = body.optionalBoolean("enabled");
      if (json.get("enabled").isNull()) {
        body.issue("enabled", "must be true or false");
      }
      command.put("enabled", enabled);
    }
    body.validate();
    return commands.execute(
        request, MerchantContext.of(request), Topics.WEBHOOKS_COMMANDS, UPDATE, endpoint, command);
  }

  /** The endpoint receives nothing more; its pending deliveries end as failed. */
  @Delete("/endpoints/{id}")
  @RequiresScope("webhooks:write")
  public HttpResponse<?> delete(HttpRequest<?> request, String id) {
    return commands.execute(
        request,
        MerchantContext.of(request),
        Topics.WEBHOOKS_COMMANDS,
        DELETE,
        endpointId(id),
        Json.mapper().createObjectNode());
  }

  /** A new signing secret, shown once; the old one keeps signing for 24 hours. */
  @Post("/endpoints/{id}/rotate_secret")
  @RequiresScope("webhooks:write")
  public HttpResponse<?> rotateSecret(
      HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    String endpoint = endpointId(id);
    emptyBody(json);
    return commands.execute(
        request,
        MerchantContext.of(request),
        Topics.WEBHOOKS_COMMANDS,
        ROTATE_SECRET,
        endpoint,
        Json.mapper().createObjectNode(),
        SEALED_FIELDS);
  }

  /** The endpoint's deliveries, oldest first; {@code status} filters. */
  @Get("/endpoints/{id}/deliveries")
  @RequiresScope("webhooks:read")
  public HttpResponse<String> deliveries(HttpRequest<?> request, String id) {
    String endpoint = endpointId(id);
    ListParams params = ListParams.from(request);
    if (params.startingAfter() != null && !params.startingAfter().matches("whd_[1-9][0-9]{0,17}")) {
      throw ApiException.invalid(Map.of("starting_after", "must be a delivery id (whd_…)"));
    }
    String status = request.getParameters().get("status");
    if (status != null && !DELIVERY_STATUSES.contains(status)) {
      throw ApiException.invalid(Map.of("status", "must be one of failed, pending, succeeded"));
    }
    return reads.get(
        request,
        MerchantContext.of(request),
        Owner.WEBHOOKS,
        "/internal/webhook_endpoints/" + endpoint + "/deliveries",
        Set.of("limit", "starting_after", "status"));
  }

  /** One delivery, by {@code whd_…} or by the number of {@code X-Service-Delivery}. */
  @Get("/deliveries/{id}")
  @RequiresScope("webhooks:read")
  public HttpResponse<String> delivery(HttpRequest<?> request, String id) {
    return reads.get(
        request,
        MerchantContext.of(request),
        Owner.WEBHOOKS,
        "/internal/webhook_deliveries/" + deliveryId(id),
        Set.of());
  }

  /** The delivery's attempt log (kept 90 days): time, status code, latency, error, snippet. */
  @Get("/deliveries/{id}/attempts")
  @RequiresScope("webhooks:read")
  public HttpResponse<String> attempts(HttpRequest<?> request, String id) {
    String delivery = deliveryId(id);
    ListParams params = ListParams.from(request);
    if (params.startingAfter() != null && !ATTEMPT_ID.matcher(params.startingAfter()).matches()) {
      throw ApiException.invalid(Map.of("starting_after", "must be an attempt id (wha_…)"));
    }
    return reads.get(
        request,
        MerchantContext.of(request),
        Owner.WEBHOOKS,
        "/internal/webhook_deliveries/" + delivery + "/attempts",
        Set.of("limit", "starting_after"));
  }

  /** Sends a failed delivery again, with the same delivery id and a fresh retry schedule. */
  @Post("/deliveries/{id}/replay")
  @RequiresScope("webhooks:write")
  public HttpResponse<?> replay(HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    String delivery = deliveryId(id);
    emptyBody(json);
    return commands.execute(
        request,
        MerchantContext.of(request),
        Topics.WEBHOOKS_COMMANDS,
        REPLAY,
        delivery,
        Json.mapper().createObjectNode());
  }

  /**
   * {@code whd_42} for {@code whd_42} or {@code 42}.
   *
   * @throws ApiException 404 for anything that cannot be a delivery id
   */
  public static String deliveryId(String id) {
    var matcher = DELIVERY_ID.matcher(id == null ? "" : id);
    if (!matcher.matches()) {
      throw ApiException.notFound("webhook delivery");
    }
    return "whd_" + matcher.group(1);
  }

  private static String endpointId(String id) {
    if (!IdType.WEBHOOK_ENDPOINT.matches(id)) {
      throw ApiException.notFound("webhook endpoint");
    }
    return id;
  }

  /** Known types or {@code *}, at least one; null when absent or invalid (with an issue). */
  private static List<String> events(Fields body) {
    Set<String> events = body.optionalStringSet("events", EVENT_TYPES);
    if (events == null) {
      return null;
    }
    if (events.isEmpty()) {
      body.issue("events", "must name at least one event type, or \"*\" for all");
      return null;
    }
    return List.copyOf(events);
  }

  /** Operations without parameters take no body, or an empty object. */
  private static void emptyBody(@Nullable JsonNode json) {
    if (json != null && !json.isNull()) {
      Fields.of(json).allowOnly().validate();
    }
  }

  private static Set<String> eventTypes() {
    Set<String> types = new HashSet<>(EventsController.TYPES);
    types.add("*");
    return Set.copyOf(types);
  }
}
