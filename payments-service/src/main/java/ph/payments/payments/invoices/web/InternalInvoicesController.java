package ph.payments.payments.invoices.web;

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
import ph.payments.payments.invoices.application.MerchantInvoices;
import ph.payments.payments.invoices.domain.Invoice;
import ph.payments.payments.invoices.domain.InvoiceStatus;
import ph.payments.payments.invoices.persistence.JdbcInvoices;
import ph.payments.payments.web.ListPages;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.tx.Transactions;

/**
 * Invoice reads for the gateway ({@code GET /v1/invoices…}); the merchant and environment come from
 * the gateway's headers. Filters: {@code status}, {@code customer_id}. Ascending by id, paged with
 * {@code limit} and {@code starting_after}.
 */
@Controller("/internal/invoices")
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalInvoicesController {

  private final Transactions transactions;
  private final JdbcInvoices invoices;
  private final MerchantInvoices merchantInvoices;
  private final String publicBaseUrl;

  public InternalInvoicesController(
      Transactions transactions,
      JdbcInvoices invoices,
      MerchantInvoices merchantInvoices,
      @Value("${payments.public-base-url}") String publicBaseUrl) {
    this.transactions = transactions;
    this.invoices = invoices;
    this.merchantInvoices = merchantInvoices;
    this.publicBaseUrl = publicBaseUrl;
  }

  @Get
  public ObjectNode list(
      HttpRequest<?> request,
      @Nullable @QueryValue Integer limit,
      @Nullable @QueryValue("starting_after") String startingAfter,
      @Nullable @QueryValue String status,
      @Nullable @QueryValue("customer_id") String customerId) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    int pageSize = ListPages.pageSize(limit);
    InvoiceStatus filter = status == null ? null : status(status);
    List<Invoice> page =
        transactions.inTransaction(
            c ->
                invoices.list(
                    c,
                    scope.merchantId(),
                    scope.environment(),
                    filter,
                    customerId,
                    startingAfter,
                    ListPages.rowsToRead(pageSize)));
    return ListPages.envelope(page, pageSize, v -> InvoiceJson.of(v, publicBaseUrl));
  }

  @Get("/{id}")
  public ObjectNode get(HttpRequest<?> request, String id) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    return transactions.inTransaction(
        c ->
            InvoiceJson.of(
                merchantInvoices.require(c, id, scope.merchantId(), scope.environment(), false),
                publicBaseUrl));
  }

  private static InvoiceStatus status(String value) {
    for (InvoiceStatus s : InvoiceStatus.values()) {
      if (s.wire().equals(value)) {
        return s;
      }
    }
    throw ApiException.invalid(Map.of("status", "must be one of draft, sent, partial, paid, void"));
  }
}
