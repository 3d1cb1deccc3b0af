package ph.payments.gateway.embed.read;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import ph.payments.gateway.edge.ClientAddressLimited;
import ph.payments.gateway.edge.ClientAddressLimits;
import ph.payments.gateway.embed.tokens.EmbedClaims;
import ph.payments.gateway.embed.tokens.Tab;
import ph.payments.gateway.routing.Owner;
import ph.payments.gateway.routing.ReadRouter;
import ph.payments.gateway.web.ListParams;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;

/**
 * The read-only API of the embeddable panel ({@code /embed/v1}, plan of issue 18): the resources
 * exactly as {@code /v1} answers them, read from their owners for the merchant and environment of
 * the token, through the token's tabs ({@link EmbedAuthentication}) and its customer scope, applied
 * here on the server: a scoped token lists only its customer's payments, invoices and customer
 * record, and another customer's payment is 404 {@code not_found}. Lists take {@code limit} and
 * {@code starting_after} like {@code /v1} and are ascending; nothing here changes anything.
 */
@Controller("/embed/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class EmbedReadController {

  private final ReadRouter reads;

  public EmbedReadController(ReadRouter reads) {
    this.reads = reads;
  }

  /** What the panel needs to draw itself: who it shows, to whom, which tabs, until when. */
  @Get("/session")
  @EmbedRoute
  @ClientAddressLimited(ClientAddressLimits.Kind.EMBED)
  public ObjectNode session(HttpRequest<?> request) {
    EmbedCaller caller = EmbedCaller.of(request);
    EmbedClaims claims = caller.claims();
    ObjectNode session = Json.mapper().createObjectNode();
    session.put("object", "embed_session");
    ObjectNode merchant = session.putObject("merchant");
    merchant.put("id", claims.merchantId());
    merchant.put("name", caller.merchantName());
    session.put("environment", claims.environment());
    session.put("audience", claims.audience().wire());
    session.put("surface", claims.surface().wire());
    ArrayNode tabs = session.putArray("tabs");
    claims.tabs().forEach(tab -> tabs.add(tab.wire()));
    session.put("expires_at", DateTimeFormatter.ISO_INSTANT.format(claims.expiresAt()));
    return session;
  }

  @Get("/payments")
  @EmbedRoute(tab = Tab.PAYMENTS)
  @ClientAddressLimited(ClientAddressLimits.Kind.EMBED)
  public HttpResponse<String> payments(HttpRequest<?> request) {
    EmbedClaims claims = EmbedCaller.of(request).claims();
    return read(claims, Owner.PAYMENTS, "/internal/payments", scopedPage(request, claims));
  }

  @Get("/payments/{id}")
  @EmbedRoute(tab = Tab.PAYMENTS)
  @ClientAddressLimited(ClientAddressLimits.Kind.EMBED)
  public HttpResponse<String> payment(HttpRequest<?> request, String id) {
    EmbedClaims claims = EmbedCaller.of(request).claims();
    return relay(HttpStatus.OK, visiblePayment(claims, id, Map.of()).body());
  }

  /** The payment's events, oldest first (what {@code expand=events} adds), for its timeline. */
  @Get("/payments/{id}/events")
  @EmbedRoute(tab = Tab.PAYMENTS)
  @ClientAddressLimited(ClientAddressLimits.Kind.EMBED)
  public ObjectNode paymentEvents(HttpRequest<?> request, String id) {
    ListParams params = eventPage(request);
    EmbedClaims claims = EmbedCaller.of(request).claims();
    JsonNode payment = visiblePayment(claims, id, Map.of("expand", "events")).json();
    ObjectNode list = list();
    ArrayNode data = (ArrayNode) list.get("data");
    boolean more = false;
    for (JsonNode event : payment.path("events")) {
      String eventId = event.path("id").asText();
      if (params.startingAfter() != null && eventId.compareTo(params.startingAfter()) <= 0) {
        continue;
      }
      if (data.size() == params.limit()) {
        more = true;
        break;
      }
      data.add(event);
    }
    list.put("has_more", more);
    return list;
  }

  @Get("/payouts")
  @EmbedRoute(tab = Tab.PAYOUTS)
  @ClientAddressLimited(ClientAddressLimits.Kind.EMBED)
  public HttpResponse<String> payouts(HttpRequest<?> request) {
    EmbedClaims claims = EmbedCaller.of(request).claims();
    return read(claims, Owner.PAYMENTS, "/internal/payouts", page(ListParams.from(request)));
  }

  @Get("/balance")
  @EmbedRoute(tab = Tab.BALANCE)
  @ClientAddressLimited(ClientAddressLimits.Kind.EMBED)
  public HttpResponse<String> balance(HttpRequest<?> request) {
    return read(EmbedCaller.of(request).claims(), Owner.LEDGER, "/internal/balances", Map.of());
  }

  @Get("/invoices")
  @EmbedRoute(tab = Tab.INVOICES)
  @ClientAddressLimited(ClientAddressLimits.Kind.EMBED)
  public HttpResponse<String> invoices(HttpRequest<?> request) {
    EmbedClaims claims = EmbedCaller.of(request).claims();
    return read(claims, Owner.PAYMENTS, "/internal/invoices", scopedPage(request, claims));
  }

  /** The merchant's customers; a scoped token's list holds its one customer. */
  @Get("/customers")
  @EmbedRoute(tab = Tab.CUSTOMERS)
  @ClientAddressLimited(ClientAddressLimits.Kind.EMBED)
  public HttpResponse<String> customers(HttpRequest<?> request) {
    ListParams params = ListParams.from(request);
    EmbedClaims claims = EmbedCaller.of(request).claims();
    if (!claims.scoped()) {
      return read(claims, Owner.PAYMENTS, "/internal/customers", page(params));
    }
    ObjectNode list = list();
    String after = params.startingAfter();
    if (after == null || after.compareTo(claims.customerId()) < 0) {
      HttpResponse<String> customer =
          read(claims, Owner.PAYMENTS, "/internal/customers/" + claims.customerId(), Map.of());
      if (customer.getStatus() == HttpStatus.OK) {
        ((ArrayNode) list.get("data")).add(Json.tree(customer.body()));
      } else if (customer.getStatus().getCode() != HttpStatus.NOT_FOUND.getCode()) {
        return customer;
      }
    }
    return relay(HttpStatus.OK, Json.toText(list));
  }

  /** The merchant's event log, ascending; not narrowed by a scope (events are merchant-wide). */
  @Get("/events")
  @EmbedRoute(tab = Tab.EVENTS)
  @ClientAddressLimited(ClientAddressLimits.Kind.EMBED)
  public HttpResponse<String> events(HttpRequest<?> request) {
    ListParams params = eventPage(request);
    return read(EmbedCaller.of(request).claims(), Owner.PAYMENTS, "/internal/events", page(params));
  }

  /**
   * The payment if the token may see it: of the token's merchant and environment (the owner
   * checks), and of its customer when scoped; otherwise 404 {@code not_found}, the same answer as
   * for an id that does not exist.
   */
  private Visible visiblePayment(EmbedClaims claims, String id, Map<String, String> query) {
    if (!IdType.PAYMENT.matches(id)) {
      throw ApiException.notFound("payment");
    }
    HttpResponse<String> answer =
        reads.get(
            claims.merchantId(),
            claims.environment(),
            Owner.PAYMENTS,
            "/internal/payments/" + id,
            query);
    int status = answer.getStatus().getCode();
    // 401 is the owner's answer for a payment of the other environment: not this token's either.
    if (status == 404 || status == 401) {
      throw ApiException.notFound("payment");
    }
    if (status != 200) {
      throw ApiException.unavailable(
          "A service behind the gateway is unavailable. Please retry.",
          java.time.Duration.ofSeconds(1));
    }
    JsonNode payment = Json.tree(answer.body());
    if (claims.scoped() && !claims.customerId().equals(payment.path("customer_id").asText(null))) {
      throw ApiException.notFound("payment");
    }
    return new Visible(answer.body(), payment);
  }

  /** A payment the token may see: the owner's body as it came, and parsed. */
  private record Visible(String body, JsonNode json) {}

  private HttpResponse<String> read(
      EmbedClaims claims, Owner owner, String path, Map<String, String> query) {
    return reads.get(claims.merchantId(), claims.environment(), owner, path, query);
  }

  /** {@code limit} and {@code starting_after}, and the customer of a scoped token. */
  private static Map<String, String> scopedPage(HttpRequest<?> request, EmbedClaims claims) {
    Map<String, String> query = page(ListParams.from(request));
    if (claims.scoped()) {
      query.put("customer_id", claims.customerId());
    }
    return query;
  }

  private static Map<String, String> page(ListParams params) {
    Map<String, String> query = new LinkedHashMap<>();
    query.put("limit", Integer.toString(params.limit()));
    if (params.startingAfter() != null) {
      query.put("starting_after", params.startingAfter());
    }
    return query;
  }

  /** List parameters whose cursor, if any, is an event id (event ids sort in log order). */
  private static ListParams eventPage(HttpRequest<?> request) {
    ListParams params = ListParams.from(request);
    if (params.startingAfter() != null && !IdType.EVENT.matches(params.startingAfter())) {
      throw ApiException.invalid(Map.of("starting_after", "must be an event id (evt_…)"));
    }
    return params;
  }

  private static ObjectNode list() {
    ObjectNode list = Json.mapper().createObjectNode();
    list.put("object", "list");
    list.putArray("data");
    list.put("has_more", false);
    return list;
  }

  private static HttpResponse<String> relay(HttpStatus status, String body) {
    return HttpResponse.<String>status(status)
        .contentType(MediaType.APPLICATION_JSON_TYPE)
        .body(body);
  }
}
