package ph.payments.payments.events;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.tx.Transactions;

/** Event log reads for the gateway ({@code GET /v1/events…}). */
@Controller("/internal/events")
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalEventsController {

  private final Transactions transactions;
  private final EventLog log;

  public InternalEventsController(Transactions transactions, EventLog log) {
    this.transactions = transactions;
    this.log = log;
  }

  /**
   * A page of the list, its events exactly as stored (the bytes their webhooks carry): the stored
   * bodies are written into the list as they are, never parsed and written again.
   */
  @Get
  public HttpResponse<byte[]> list(
      HttpRequest<?> request,
      @Nullable @QueryValue Integer limit,
      @Nullable @QueryValue("starting_after") String startingAfter,
      @Nullable @QueryValue String type) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    if (startingAfter != null && !IdType.EVENT.matches(startingAfter)) {
      throw ApiException.invalid(java.util.Map.of("starting_after", "must be an event id"));
    }
    int pageSize = limit == null ? 25 : Math.max(1, Math.min(100, limit));
    EventLog.Page page =
        transactions.inTransaction(
            c ->
                log.list(
                    c, scope.merchantId(), scope.environment(), type, startingAfter, pageSize));
    return HttpResponse.ok(listJson(page)).contentType(MediaType.APPLICATION_JSON_TYPE);
  }

  /** {@code {"object":"list","data":[…],"has_more":…}} around the stored bodies. */
  static byte[] listJson(EventLog.Page page) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256 + 1024 * page.events().size());
    out.writeBytes("{\"object\":\"list\",\"data\":[".getBytes(StandardCharsets.UTF_8));
    for (int i = 0; i < page.events().size(); i++) {
      if (i > 0) {
        out.write(',');
      }
      out.writeBytes(page.events().get(i));
    }
    out.writeBytes(("],\"has_more\":" + page.hasMore() + "}").getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }

  /** The stored event, byte for byte: exactly what its webhook carries. */
  @Get("/{id}")
  public HttpResponse<byte[]> get(HttpRequest<?> request, String id) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    byte[] body =
        transactions.inTransaction(
            c -> {
              EventLog.Stored event =
                  log.find(c, scope.merchantId(), id)
                      .orElseThrow(() -> ApiException.notFound("event"));
              if (!event.environment().equals(scope.environment())) {
                throw new ApiException(
                    ErrorCode.UNAUTHENTICATED,
                    "This event belongs to the other environment; use a key of that environment.");
              }
              return event.body();
            });
    return HttpResponse.ok(body).contentType(MediaType.APPLICATION_JSON_TYPE);
  }
}
