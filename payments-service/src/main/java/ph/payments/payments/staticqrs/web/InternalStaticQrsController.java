package ph.payments.payments.staticqrs.web;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.List;
import java.util.Map;
import ph.payments.payments.staticqrs.application.MerchantStaticQrs;
import ph.payments.payments.staticqrs.domain.StaticQr;
import ph.payments.payments.staticqrs.persistence.JdbcStaticQrs;
import ph.payments.payments.web.ListPages;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.tx.Transactions;

/**
 * Static QR reads for the gateway ({@code GET /v1/static_qrs…}); the merchant and environment come
 * from the gateway's headers. Filter: {@code archived} (default false, as for products). Ascending
 * by id, paged with {@code limit} and {@code starting_after}.
 */
@Controller("/internal/static_qrs")
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalStaticQrsController {

  private final Transactions transactions;
  private final JdbcStaticQrs qrs;
  private final MerchantStaticQrs merchantQrs;
  private final String publicBaseUrl;

  public InternalStaticQrsController(
      Transactions transactions,
      JdbcStaticQrs qrs,
      MerchantStaticQrs merchantQrs,
      @Value("${payments.public-base-url}") String publicBaseUrl) {
    this.transactions = transactions;
    this.qrs = qrs;
    this.merchantQrs = merchantQrs;
    this.publicBaseUrl = publicBaseUrl;
  }

  @Get
  public ObjectNode list(
      HttpRequest<?> request,
      @Nullable @QueryValue Integer limit,
      @Nullable @QueryValue("starting_after") String startingAfter,
      @Nullable @QueryValue String archived) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    int pageSize = ListPages.pageSize(limit);
    Boolean archivedFilter =
        switch (archived == null ? "false" : archived) {
          case "true" -> Boolean.TRUE;
          case "false" -> Boolean.FALSE;
          default -> throw ApiException.invalid(Map.of("archived", "must be true or false"));
        };
    List<StaticQr> page =
        transactions.inTransaction(
            c ->
                qrs.list(
                    c,
                    scope.merchantId(),
                    scope.environment(),
                    archivedFilter,
                    startingAfter,
                    ListPages.rowsToRead(pageSize)));
    return ListPages.envelope(page, pageSize, q -> StaticQrJson.of(q, publicBaseUrl));
  }

  @Get("/{id}")
  public ObjectNode get(HttpRequest<?> request, String id) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    return transactions.inTransaction(
        c ->
            StaticQrJson.of(
                merchantQrs.require(c, id, scope.merchantId(), scope.environment(), false),
                publicBaseUrl));
  }
}
