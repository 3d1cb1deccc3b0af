package ph.payments.payments.links.web;

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
import ph.payments.payments.links.application.MerchantPaymentLinks;
import ph.payments.payments.links.domain.LinkStatus;
import ph.payments.payments.links.domain.PaymentLink;
import ph.payments.payments.links.persistence.JdbcPaymentLinks;
import ph.payments.payments.web.ListPages;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.tx.Transactions;

/**
 * Payment link reads for the gateway ({@code GET /v1/payment_links…}); the merchant and environment
 * come from the gateway's headers. Filter: {@code status} ({@code active} or {@code inactive}; all
 * when absent). Ascending by id, paged with {@code limit} and {@code starting_after}.
 */
@Controller("/internal/payment_links")
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalPaymentLinksController {

  private final Transactions transactions;
  private final JdbcPaymentLinks links;
  private final MerchantPaymentLinks merchantLinks;
  private final String publicBaseUrl;

  public InternalPaymentLinksController(
      Transactions transactions,
      JdbcPaymentLinks links,
      MerchantPaymentLinks merchantLinks,
      @Value("${payments.public-base-url}") String publicBaseUrl) {
    this.transactions = transactions;
    this.links = links;
    this.merchantLinks = merchantLinks;
    this.publicBaseUrl = publicBaseUrl;
  }

  @Get
  public ObjectNode list(
      HttpRequest<?> request,
      @Nullable @QueryValue Integer limit,
      @Nullable @QueryValue("starting_after") String startingAfter,
      @Nullable @QueryValue String status) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    int pageSize = ListPages.pageSize(limit);
    LinkStatus filter = status == null ? null : status(status);
    List<PaymentLink> page =
        transactions.inTransaction(
            c ->
                links.list(
                    c,
                    scope.merchantId(),
                    scope.environment(),
                    filter,
                    startingAfter,
                    ListPages.rowsToRead(pageSize)));
    return ListPages.envelope(page, pageSize, l -> PaymentLinkJson.of(l, publicBaseUrl));
  }

  @Get("/{id}")
  public ObjectNode get(HttpRequest<?> request, String id) {
    InternalHeaders.Scope scope = InternalHeaders.scope(request);
    return transactions.inTransaction(
        c ->
            PaymentLinkJson.of(
                merchantLinks.require(c, id, scope.merchantId(), scope.environment(), false),
                publicBaseUrl));
  }

  private static LinkStatus status(String value) {
    return switch (value) {
      case "active" -> LinkStatus.ACTIVE;
      case "inactive" -> LinkStatus.INACTIVE;
      default -> throw ApiException.invalid(Map.of("status", "must be active or inactive"));
    };
  }
}
