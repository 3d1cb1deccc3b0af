package ph.payments.gateway.balance;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.uri.UriBuilder;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import ph.payments.gateway.routing.Owner;
import ph.payments.gateway.routing.ReadRouter;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;

/**
 * The ledger on the operator API (behind the admin token filter on {@code /admin/**}): the audit
 * and a merchant's statement. Forwarded to ledger-service without a merchant scope (operators are
 * not a merchant; the statement names its merchant in the query), which checks the parameters and
 * answers 400 naming them.
 */
@Controller("/admin/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class LedgerOperatorController {

  private static final MediaType CSV = MediaType.of("text/csv");

  private final ReadRouter reads;

  public LedgerOperatorController(ReadRouter reads) {
    this.reads = reads;
  }

  /** Recomputes every balance from the postings and reports every difference. */
  @Get("/ledger/audit")
  public HttpResponse<String> audit() {
    return reads.getPublic(Owner.LEDGER, "/internal/audit");
  }

  /**
   * Merchants whose available balance is below zero (refunds may take it there; payouts never do):
   * merchant, environment, currency, balance and since when. See docs/ledger.md, "Negative
   * balances".
   */
  @Get("/ledger/negative_balances")
  public HttpResponse<String> negativeBalances(
      @Nullable @QueryValue String environment, @Nullable @QueryValue String limit) {
    UriBuilder uri = UriBuilder.of("/internal/negative_balances");
    if (environment != null) {
      uri.queryParam("environment", environment);
    }
    if (limit != null) {
      uri.queryParam("limit", limit);
    }
    return reads.getPublic(Owner.LEDGER, uri.build().toString());
  }

  /** The merchant's postings of a period as CSV; see ledger-service {@code Statements}. */
  @Get("/merchants/{id}/statement")
  public HttpResponse<String> statement(
      String id,
      @Nullable @QueryValue String environment,
      @Nullable @QueryValue String from,
      @Nullable @QueryValue String to,
      @Nullable @QueryValue String currency) {
    if (!IdType.MERCHANT.matches(id)) {
      throw ApiException.notFound("merchant");
    }
    UriBuilder uri =
        UriBuilder.of("/internal/statements")
            .queryParam("merchant_id", id)
            .queryParam("environment", environment == null ? "" : environment);
    if (from != null) {
      uri.queryParam("from", from);
    }
    if (to != null) {
      uri.queryParam("to", to);
    }
    if (currency != null) {
      uri.queryParam("currency", currency);
    }
    HttpResponse<String> answer =
        reads.getPublic(Owner.LEDGER, uri.build().toString(), CSV, MediaType.APPLICATION_JSON_TYPE);
    if (answer.getStatus().getCode() != 200) {
      return answer; // the ledger's error envelope, as JSON
    }
    return HttpResponse.ok(answer.body())
        .contentType(MediaType.of("text/csv; charset=utf-8"))
        .header(
            "Content-Disposition",
            "attachment; filename=\"statement-" + id + "-" + environment + ".csv\"");
  }
}
