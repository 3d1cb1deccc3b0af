package ph.payments.gateway.payments;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.Map;
import java.util.Set;
import ph.payments.gateway.auth.MerchantContext;
import ph.payments.gateway.auth.RequiresScope;
import ph.payments.gateway.routing.Owner;
import ph.payments.gateway.routing.ReadRouter;
import ph.payments.gateway.web.ListParams;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;

/** The canonical event log (SPEC part 6), ascending, for reconciliation by polling. */
@Controller("/v1/events")
@ExecuteOn(TaskExecutors.BLOCKING)
public class EventsController {

  public static final Set<String> TYPES =
      Set.of(
          "payment.processing",
          "payment.succeeded",
          "payment.failed",
          "payment.expired",
          "refund.created",
          "refund.succeeded",
          "refund.failed",
          "payout.succeeded",
          "payout.failed",
          "invoice.balance_due",
          "invoice.forfeited",
          "transfer.sent",
          "transfer.received",
          "claim.expired",
          "product.stock_adjusted");

  private final ReadRouter reads;

  public EventsController(ReadRouter reads) {
    this.reads = reads;
  }

  @Get
  @RequiresScope("events:read")
  public HttpResponse<String> list(HttpRequest<?> request) {
    ListParams params = ListParams.from(request);
    if (params.startingAfter() != null && !IdType.EVENT.matches(params.startingAfter())) {
      throw ApiException.invalid(Map.of("starting_after", "must be an event id (evt_…)"));
    }
    String type = request.getParameters().get("type");
    if (type != null && !TYPES.contains(type)) {
      throw ApiException.invalid(Map.of("type", "must be an event type of SPEC part 6"));
    }
    return reads.get(
        request,
        MerchantContext.of(request),
        Owner.PAYMENTS,
        "/internal/events",
        Set.of("limit", "starting_after", "type"));
  }

  @Get("/{id}")
  @RequiresScope("events:read")
  public HttpResponse<String> get(HttpRequest<?> request, String id) {
    if (!IdType.EVENT.matches(id)) {
      throw ApiException.notFound("event");
    }
    return reads.get(
        request, MerchantContext.of(request), Owner.PAYMENTS, "/internal/events/" + id, Set.of());
  }
}
