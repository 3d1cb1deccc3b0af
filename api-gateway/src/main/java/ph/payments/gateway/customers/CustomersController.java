package ph.payments.gateway.customers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * Customers (SPEC part 2 "Customer", docs/catalog.md): creation and updates through the command
 * path into payments-service, which owns the directory and the email uniqueness; reads forwarded to
 * it. Every body rule and limit of SPEC parts 2 and 8 is checked here, before anything is written.
 */
@Controller("/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class CustomersController {

  static final CommandEndpoint.Creation CREATION =
      new CommandEndpoint.Creation(CommandTypes.CUSTOMERS_CREATE, "customer", "/v1/customers");

  static final int NAME = 200;
  static final int EMAIL = 255;
  static final int PHONE = 40;
  static final int LINE = 200;
  static final int CITY = 100;
  static final int REGION = 100;
  static final int POSTAL_CODE = 20;
  private static final Pattern COUNTRY = Pattern.compile("^[A-Z]{2}$");
  private static final Pattern EMAIL_FORMAT = Pattern.compile("^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$");

  private final CommandEndpoint commands;
  private final ReadRouter reads;

  public CustomersController(CommandEndpoint commands, ReadRouter reads) {
    this.commands = commands;
    this.reads = reads;
  }

  @Post("/customers")
  @RequiresScope("customers:write")
  public HttpResponse<?> create(HttpRequest<?> request, @Nullable @Body JsonNode json) {
    Fields body = fields(json, true);
    body.validate();
    return commands.create(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        CREATION,
        IdType.CUSTOMER.generate(),
        json);
  }

  @Get("/customers")
  @RequiresScope("customers:read")
  public HttpResponse<String> list(HttpRequest<?> request) {
    ListParams.from(request);
    String email = request.getParameters().get("email");
    if (email != null && (email.isEmpty() || email.length() > EMAIL)) {
      throw ApiException.invalid(Map.of("email", "must be 1 to " + EMAIL + " characters"));
    }
    return reads.get(
        request,
        MerchantContext.of(request),
        Owner.PAYMENTS,
        "/internal/customers",
        Set.of("limit", "starting_after", "email"));
  }

  @Get("/customers/{id}")
  @RequiresScope("customers:read")
  public HttpResponse<String> get(HttpRequest<?> request, String id) {
    requireCustomerId(id);
    MerchantContext merchant = MerchantContext.of(request);
    return commands.orPending(
        reads.get(request, merchant, Owner.PAYMENTS, "/internal/customers/" + id, Set.of()),
        merchant,
        CREATION,
        id);
  }

  @Patch("/customers/{id}")
  @RequiresScope("customers:write")
  public HttpResponse<?> update(HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    requireCustomerId(id);
    Fields body = fields(json, false);
    body.validate();
    return commands.execute(
        request,
        MerchantContext.of(request),
        Topics.PAYMENTS_COMMANDS,
        CommandTypes.CUSTOMERS_UPDATE,
        id,
        json);
  }

  /** The Stripe-style alias of {@code PATCH /v1/customers/{id}}. */
  @Post("/customers/{id}")
  @RequiresScope("customers:write")
  public HttpResponse<?> updateByPost(
      HttpRequest<?> request, String id, @Nullable @Body JsonNode json) {
    return update(request, id, json);
  }

  /**
   * The create body (SPEC part 2) or, with {@code create} false, the update body: the same fields,
   * all optional, and {@code address.country} also nullable.
   */
  static Fields fields(@Nullable JsonNode json, boolean create) {
    Fields body = Fields.of(json).allowOnly("name", "email", "phone", "address", "metadata");
    if (create) {
      body.requiredString("name", 1, NAME);
    } else if (body.isNull("name")) {
      body.issue("name", "cannot be null");
    } else {
      body.optionalString("name", 1, NAME);
    }
    // An empty string, like null, clears the email.
    String email = body.optionalString("email", 0, EMAIL);
    if (email != null && !email.isEmpty() && !EMAIL_FORMAT.matcher(email).matches()) {
      body.issue("email", "must be an email address");
    }
    body.optionalString("phone", 0, PHONE);
    ObjectNode address = body.optionalObject("address");
    if (address != null) {
      Fields parts =
          Fields.of(address)
              .allowOnly("line1", "line2", "city", "region", "postal_code", "country");
      parts.optionalString("line1", 0, LINE);
      parts.optionalString("line2", 0, LINE);
      parts.optionalString("city", 0, CITY);
      parts.optionalString("region", 0, REGION);
      parts.optionalString("postal_code", 0, POSTAL_CODE);
      if (create && parts.isNull("country")) {
        parts.issue("country", "must be a 2-letter ISO 3166-1 country code, or absent for PH");
      }
      String country = parts.optionalString("country", 2, 2);
      if (country != null && !COUNTRY.matcher(country).matches()) {
        parts.issue("country", "must be a 2-letter uppercase ISO 3166-1 country code");
      }
      body.issues("address", parts);
    }
    Metadata.check(body);
    return body;
  }

  private static void requireCustomerId(String id) {
    if (!IdType.CUSTOMER.matches(id)) {
      throw ApiException.notFound("customer");
    }
  }
}
