package ph.payments.gateway.staticqrs;

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
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;

/**
 * Static QR codes (SPEC part 2 "StaticQr", issue 16; docs/catalog.md "Static QR codes"): create,
 * update and archive through the command path into payments-service, which creates each QR's
 * open-amount payment link with it; reads forwarded to it. Every body rule and limit of SPEC parts
 * 2 and 8 is checked here, before anything is written. Archiving is final: no update un-archives.
 */
@Controller("/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class StaticQrsController {

  static final CommandEndpoint.Creation CREATION =
      new CommandEndpoint.Creation(CommandTypes.STATIC_QRS_CREATE, "static_qr", "/v1/static_qrs");

  public static final int NAME_MAX = 120;
  public static final int REFERENCE_MAX = 60;
  public static final int LOCATION_MAX = 200;
  public static final int DEFAULT_METHOD_MAX = 40;

  static final String[] FIELDS = {"name", "reference", "location", "default_method", "currency"};

  /** Fields an update may not set to null. */
  static final Set<String> NOT_NULLABLE = Set.of("name", "currency");

  private final CommandEndpoint commands;
  private final ReadRouter reads;

  public StaticQrsController(CommandEndpoint commands, ReadRouter reads) {
    this.commands = commands;
    this.reads = reads;
  }

  @Post("/static_qrs")
  @RequiresScope("static_qrs:write")
  public HttpResponse<?> create(HttpRequest<?> request, @Nullable @Body JsonNode json) {
    Fields body = Fields.of(json).allowOnly(FIELDS);
    body.requiredString("name", 1, NAME_MAX);
    fields(body);
    body.validate();
    return commands.create(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        CREATION,
        IdType.STATIC_QR.generate(),
        json);
  }

  @Patch("/static_qrs/{id}")
  @RequiresScope("static_qrs:write")
  public HttpResponse<?> update(HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    requireQrId(id);
    Fields body = Fields.of(json).allowOnly(FIELDS);
    if (json != null && json.isObject()) {
      for (String name : NOT_NULLABLE) {
        if (json.has(name) && json.get(name).isNull()) {
          body.issue(name, "cannot be null");
        }
      }
    }
    body.optionalString("name", 1, NAME_MAX);
    fields(body);
    body.validate();
    return commands.execute(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        CommandTypes.STATIC_QRS_UPDATE,
        id,
        json);
  }

  /** The Stripe-style alias of {@code PATCH} (ARCHITECTURE "Catalog API shape"). */
  @Post("/static_qrs/{id}")
  @RequiresScope("static_qrs:write")
  public HttpResponse<?> updateByPost(
      HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    return update(request, id, json);
  }

  /** Final: the QR and its link take no payment from then on. An empty body or none at all. */
  @Post("/static_qrs/{id}/archive")
  @RequiresScope("static_qrs:write")
  public HttpResponse<?> archive(HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    requireQrId(id);
    if (json != null && !json.isNull() && !(json.isObject() && json.isEmpty())) {
      throw ApiException.invalid(Map.of("body", "must be empty"));
    }
    return commands.execute(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        CommandTypes.STATIC_QRS_ARCHIVE,
        id,
        Json.mapper().createObjectNode());
  }

  @Get("/static_qrs")
  @RequiresScope("static_qrs:read")
  public HttpResponse<String> list(HttpRequest<?> request) {
    ListParams.from(request);
    String archived = request.getParameters().get("archived");
    if (archived != null && !archived.equals("true") && !archived.equals("false")) {
      throw ApiException.invalid(Map.of("archived", "must be true or false"));
    }
    return reads.get(
        request,
        MerchantContext.of(request),
        Owner.PAYMENTS,
        "/internal/static_qrs",
        Set.of("limit", "starting_after", "archived"));
  }

  @Get("/static_qrs/{id}")
  @RequiresScope("static_qrs:read")
  public HttpResponse<String> get(HttpRequest<?> request, String id) {
    requireQrId(id);
    MerchantContext merchant = MerchantContext.of(request);
    return commands.orPending(
        reads.get(request, merchant, Owner.PAYMENTS, "/internal/static_qrs/" + id, Set.of()),
        merchant,
        CREATION,
        id);
  }

  /** The rules create and update share (name aside). */
  private static void fields(Fields body) {
    body.optionalString("reference", 1, REFERENCE_MAX);
    body.optionalString("location", 0, LOCATION_MAX);
    body.optionalString("default_method", 1, DEFAULT_METHOD_MAX);
    body.currency("currency", "PHP");
  }

  private static void requireQrId(String id) {
    if (!IdType.STATIC_QR.matches(id)) {
      throw ApiException.notFound("static QR");
    }
  }
}
