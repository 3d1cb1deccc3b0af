package ph.payments.gateway.pages;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import ph.payments.gateway.edge.ClientAddressLimited;
import ph.payments.gateway.edge.ClientAddressLimits;
import ph.payments.platform.errors.ApiException;

/**
 * The receipt of one payment ({@code receipt_url}: {@code /receipts/{checkout token}}) and a
 * customer's receipt history ({@code receipts_history_url}: {@code /receipts/history/{token}}),
 * docs/hosted-pages.md. A receipt shows what the customer paid (the amount; a customer pays no fee,
 * so the total is the amount), how, when, the reference, and each succeeded refund; never the
 * merchant's fee or net amount. A payment without a receipt yet sends the customer to its checkout
 * page, which shows where it stands.
 */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING)
public class ReceiptPages {

  private final PublicReads reads;
  private final Pages pages;

  public ReceiptPages(PublicReads reads, Pages pages) {
    this.reads = reads;
    this.pages = pages;
  }

  @ClientAddressLimited(ClientAddressLimits.Kind.CHECKOUT)
  @Get(uri = "/receipts/{token}", produces = MediaType.TEXT_HTML)
  public HttpResponse<String> receipt(String token) {
    Optional<JsonNode> found = reads.checkout(token);
    if (found.isEmpty()) {
      return pages.notFound();
    }
    JsonNode p = found.get();
    String status = p.path("status").asText();
    if (!status.equals("succeeded") && !status.equals("refunded")) {
      return pages.seeOther("/checkout/" + token);
    }
    String currency = p.path("currency").asText();
    BigDecimal amount = p.path("amount").decimalValue();
    BigDecimal refunded = p.path("amount_refunded").decimalValue();
    String merchant = reads.merchantName(p.path("merchant_id").asText(null));

    Map<String, Object> m = new HashMap<>();
    m.put("test", "test".equals(p.path("environment").asText()));
    m.put("merchant", merchant.isEmpty() ? "Receipt" : merchant);
    m.put("refunded", status.equals("refunded"));
    m.put("amount", Format.money(amount, currency));
    m.put("description", text(p, "description"));
    m.put("method", Format.method(p.path("method").asText()));
    m.put(
        "date",
        p.path("succeeded_at").canConvertToLong()
            ? Format.time(p.path("succeeded_at").asLong())
            : "");
    m.put("reference", p.path("reference").asText());
    List<Map<String, Object>> refunds = new ArrayList<>();
    for (JsonNode refund : p.path("refunds")) {
      refunds.add(
          Map.of(
              "amount",
              "−" + Format.money(refund.path("amount").decimalValue(), currency),
              "date",
              refund.path("succeeded_at").canConvertToLong()
                  ? Format.time(refund.path("succeeded_at").asLong())
                  : ""));
    }
    m.put("refunds", refunds);
    m.put(
        "net",
        refunds.isEmpty()
            ? null
            : Format.money(amount.subtract(refunded).max(BigDecimal.ZERO), currency));
    m.put("returnUrl", Format.webUrl(text(p, "return_url")));
    return pages.render(HttpStatus.OK, "receipt", m);
  }

  @ClientAddressLimited(ClientAddressLimits.Kind.CHECKOUT)
  @Get(uri = "/receipts/history/{token}", produces = MediaType.TEXT_HTML)
  public HttpResponse<String> history(String token) {
    Optional<JsonNode> found = reads.receiptHistory(token);
    if (found.isEmpty()) {
      return pages.notFound();
    }
    JsonNode h = found.get();
    String merchant = reads.merchantName(h.path("merchant_id").asText(null));
    List<Map<String, Object>> rows = new ArrayList<>();
    for (JsonNode r : h.path("receipts")) {
      String url = r.path("receipt_url").asText("");
      int at = url.indexOf("/receipts/");
      if (at < 0) {
        continue;
      }
      Map<String, Object> row = new HashMap<>();
      // The path only: the page links within whatever origin served it.
      row.put("href", url.substring(at));
      row.put("description", text(r, "description") == null ? "Payment" : text(r, "description"));
      row.put("amount", Format.money(r.path("amount").decimalValue(), r.path("currency").asText()));
      row.put(
          "date",
          r.path("succeeded_at").canConvertToLong()
              ? Format.time(r.path("succeeded_at").asLong())
              : "");
      row.put("method", Format.method(r.path("method").asText()));
      row.put("refunded", "refunded".equals(r.path("status").asText()));
      rows.add(row);
    }
    Map<String, Object> m = new HashMap<>();
    m.put("test", "test".equals(h.path("environment").asText()));
    m.put("merchant", merchant.isEmpty() ? "Receipts" : merchant);
    m.put("customer", h.path("name").asText(""));
    m.put("receipts", rows);
    return pages.render(HttpStatus.OK, "history", m);
  }

  @Error(exception = ApiException.class)
  public HttpResponse<String> failed(HttpRequest<?> request, ApiException e) {
    return pages.error(
        HttpStatus.valueOf(e.httpStatus()),
        e.code().code(),
        "Please try again",
        "This receipt cannot be shown right now. Please reload the page in a moment.",
        false);
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.path(field);
    return value.isTextual() && !value.asText().isEmpty() ? value.asText() : null;
  }
}
