package ph.payments.gateway.pages;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import ph.payments.gateway.edge.ClientAddressLimited;
import ph.payments.gateway.edge.ClientAddressLimits;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;

/**
 * An invoice's public page ({@code /i/{token}}, the invoice's {@code url}) and the payment it
 * creates (POST: the same {@code payments.create} command as the API, with {@code invoice_id});
 * docs/hosted-pages.md. Everything shown is read from payments-service's public invoice read
 * ({@code /internal/public/invoices/{token}}, which does not find drafts); the payment's merchant
 * and environment come from it, never from the form.
 *
 * <p>The page shows the invoice (line items, totals, due dates, notes, terms, amount paid and
 * remaining, the payments made with links to their receipts) and, while something is due, a form:
 * the amount due now as text (the deposit of a two-stage invoice first, then the balance), or an
 * amount field prefilled with the remaining when the invoice allows partial payment, and the
 * methods. A refusal shows the page again with the SPEC code in {@code #error[data-code]} and the
 * API's status: {@code invoice_paid} and {@code invoice_void} 409, {@code partial_not_allowed}, and
 * the form's own {@code amount_required}, {@code method_required} and {@code invalid_request} 400.
 */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING)
public class InvoicePages {

  private final PublicReads reads;
  private final Pages pages;
  private final FormTokens tokens;
  private final PagePayments payments;

  public InvoicePages(PublicReads reads, Pages pages, FormTokens tokens, PagePayments payments) {
    this.reads = reads;
    this.pages = pages;
    this.tokens = tokens;
    this.payments = payments;
  }

  /** A refusal shown above the form: the SPEC code, its status, and words for people. */
  record Problem(HttpStatus status, String code, String message) {}

  @ClientAddressLimited(ClientAddressLimits.Kind.CHECKOUT)
  @Get(uri = "/i/{token}", produces = MediaType.TEXT_HTML)
  public HttpResponse<String> page(HttpRequest<?> request, String token) {
    Optional<JsonNode> invoice = reads.invoice(token);
    if (invoice.isEmpty()) {
      return pages.notFound();
    }
    return render(request, token, invoice.get(), null, null);
  }

  /**
   * What the page's script polls while the invoice takes payments (the page's {@code
   * data-poll-state}): status and amount paid, so a payment that succeeds while the customer looks
   * at the page (a QR paid from a phone, a bank transfer) shows without a manual reload.
   */
  @ClientAddressLimited(ClientAddressLimits.Kind.CHECKOUT)
  @Get(uri = "/i/{token}/status", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<String> status(String token) {
    JsonNode invoice = reads.invoice(token).orElseThrow(() -> ApiException.notFound("invoice"));
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("status", invoice.path("status").asText());
    json.put("state", pollState(invoice));
    return Pages.secured(HttpResponse.ok(Json.toText(json)))
        .contentType(MediaType.APPLICATION_JSON_TYPE);
  }

  private static String pollState(JsonNode invoice) {
    return invoice.path("status").asText() + ":" + decimal(invoice, "amount_paid").toPlainString();
  }

  @ClientAddressLimited(ClientAddressLimits.Kind.PAGE_FORM)
  @Post(
      uri = "/i/{token}",
      consumes = MediaType.APPLICATION_FORM_URLENCODED,
      produces = MediaType.TEXT_HTML)
  public HttpResponse<String> pay(
      HttpRequest<?> request, String token, @Nullable @Body Map<String, String> form) {
    Map<String, String> fields = form == null ? Map.of() : form;
    Optional<String> formToken = tokens.verified(request, fields.get(FormTokens.FIELD));
    if (formToken.isEmpty()) {
      return pages.invalidToken();
    }
    Optional<JsonNode> found = reads.invoice(token);
    if (found.isEmpty()) {
      return pages.notFound();
    }
    JsonNode invoice = found.get();
    String typed = fields.getOrDefault("amount", "").trim();
    Problem closed = closedProblem(invoice);
    if (closed != null) {
      return render(request, token, invoice, typed, closed);
    }
    String currency = invoice.path("currency").asText("PHP");
    BigDecimal remaining = decimal(invoice, "amount_remaining");
    BigDecimal amount;
    if (partialAllowed(invoice)) {
      if (typed.isEmpty()) {
        return render(
            request,
            token,
            invoice,
            typed,
            new Problem(HttpStatus.BAD_REQUEST, "amount_required", "Enter the amount to pay."));
      }
      amount = LinkPages.amount(typed);
      if (amount == null) {
        return render(
            request,
            token,
            invoice,
            typed,
            new Problem(
                HttpStatus.BAD_REQUEST,
                "invalid_request",
                "Enter an amount such as 1500 or 1,500.00 (at least 0.01)."));
      }
      if (amount.compareTo(remaining) > 0) {
        return render(
            request,
            token,
            invoice,
            typed,
            new Problem(
                HttpStatus.BAD_REQUEST,
                "invalid_request",
                "The most you can pay is the "
                    + Format.money(remaining, currency)
                    + " remaining."));
      }
    } else {
      amount = dueNow(invoice);
      BigDecimal shown = LinkPages.amount(fields.getOrDefault("amount_due", ""));
      if (shown != null && shown.compareTo(amount) != 0) {
        // The invoice moved since the page was shown (another tab paid the deposit): the customer
        // agrees to the new amount before paying it.
        return render(
            request,
            token,
            invoice,
            typed,
            new Problem(
                HttpStatus.CONFLICT,
                "conflict",
                "The amount due is now "
                    + Format.money(amount, currency)
                    + ". Check it and press Pay again."));
      }
    }
    String method = fields.getOrDefault("method", "");
    if (method.isEmpty()) {
      return render(
          request,
          token,
          invoice,
          typed,
          new Problem(HttpStatus.BAD_REQUEST, "method_required", "Choose how you want to pay."));
    }
    if (!offered(invoice).contains(method)) {
      return render(
          request,
          token,
          invoice,
          typed,
          new Problem(
              HttpStatus.BAD_REQUEST, "invalid_request", "Choose one of the payment methods."));
    }

    ObjectNode body = Json.mapper().createObjectNode();
    body.put("invoice_id", invoice.path("id").asText());
    body.put("amount", amount);
    body.put("method", method);
    PagePayments.Outcome outcome = payments.create(invoice, body, formToken.get(), "/i/" + token);
    if (outcome instanceof PagePayments.Answered answered) {
      return answered.response();
    }
    PageCommands.Reply reply = ((PagePayments.Refused) outcome).reply();
    String code = reply.code();
    if (reply.status() >= 500 || code.isEmpty()) {
      return pages.error(
          HttpStatus.SERVICE_UNAVAILABLE,
          code.isEmpty() ? "internal_error" : code,
          "Please try again",
          "The payment could not be set up just now. Please try again in a moment; nothing was"
              + " charged.",
          isTest(invoice));
    }
    // Shown on the invoice as it stands now (a refusal usually means it moved).
    JsonNode now = reads.invoice(token).orElse(invoice);
    return render(
        request,
        token,
        now,
        typed,
        new Problem(HttpStatus.valueOf(reply.status()), code, refusal(code, now, reply)));
  }

  @Error(exception = ApiException.class)
  public HttpResponse<String> failed(HttpRequest<?> request, ApiException e) {
    if (e.httpStatus() == 404) {
      return pages.notFound();
    }
    return pages.error(
        HttpStatus.valueOf(e.httpStatus()),
        e.code().code(),
        "Please try again",
        "This invoice cannot be shown right now. Please try again in a moment; nothing was charged"
            + " twice.",
        false);
  }

  /** Words for a refusal of the payment by payments-service. */
  private String refusal(String code, JsonNode invoice, PageCommands.Reply reply) {
    String currency = invoice.path("currency").asText("PHP");
    return switch (code) {
      case "invoice_paid" -> "This invoice is already paid in full. Nothing more is due.";
      case "invoice_void" ->
          "This invoice was cancelled and takes no payments. Ask "
              + merchantOr(invoice)
              + " if you have questions.";
      case "invoice_not_sent" ->
          "This invoice cannot be paid yet. Ask " + merchantOr(invoice) + " to send it again.";
      case "partial_not_allowed" ->
          "This invoice takes no partial payments: pay the amount due now, "
              + Format.money(dueNow(invoice), currency)
              + ".";
      case "amount_required" -> "Enter the amount to pay.";
      case "method_required" -> "Choose how you want to pay.";
      default -> reply.message().isEmpty() ? "The payment could not be created." : reply.message();
    };
  }

  /** Why an invoice takes no payment now, or null while something is due. */
  private Problem closedProblem(JsonNode invoice) {
    String status = invoice.path("status").asText();
    if (status.equals("void") || invoice.path("forfeited_at").canConvertToLong()) {
      return new Problem(
          HttpStatus.CONFLICT,
          "invoice_void",
          "This invoice was cancelled and takes no payments. Ask "
              + merchantOr(invoice)
              + " if you have questions.");
    }
    if (status.equals("paid") || decimal(invoice, "amount_remaining").signum() <= 0) {
      return new Problem(
          HttpStatus.CONFLICT,
          "invoice_paid",
          "This invoice is already paid in full. Nothing more is due.");
    }
    return null;
  }

  private HttpResponse<String> render(
      HttpRequest<?> request,
      String token,
      JsonNode invoice,
      @Nullable String typedAmount,
      @Nullable Problem problem) {
    String currency = invoice.path("currency").asText("PHP");
    String status = invoice.path("status").asText();
    boolean forfeited = invoice.path("forfeited_at").canConvertToLong();
    boolean payable = closedProblem(invoice) == null;
    String stage = text(invoice, "stage");
    BigDecimal remaining = decimal(invoice, "amount_remaining");

    Map<String, Object> m = new HashMap<>();
    m.put("test", isTest(invoice));
    m.put("token", token);
    m.put("merchant", merchantOf(invoice));
    m.put("number", text(invoice, "number"));
    m.put("status", status);
    m.put("pollState", payable ? pollState(invoice) : null);
    m.put("statusLabel", statusLabel(status, forfeited, stage));
    m.put("statusClass", "status-" + (forfeited ? "void" : status));
    m.put("customer", text(invoice, "customer_name"));
    m.put("description", text(invoice, "description"));
    m.put("issued", day(invoice, "issued_at"));
    m.put("dueDate", dueDate(invoice));
    m.put("depositDue", day(invoice, "deposit_due_at"));
    m.put("balanceDue", day(invoice, "balance_due_at"));
    m.put("depositRate", rate(invoice));
    m.put("depositPaid", !"deposit".equals(stage) && decimal(invoice, "amount_paid").signum() > 0);
    m.put("notes", text(invoice, "notes"));
    m.put("terms", text(invoice, "terms"));

    List<Map<String, Object>> items = new ArrayList<>();
    for (JsonNode item : invoice.path("line_items")) {
      Map<String, Object> row = new HashMap<>();
      row.put("description", item.path("description").asText(""));
      row.put("quantity", quantity(item.path("quantity")));
      row.put("unit", Format.money(item.path("unit_amount").decimalValue(), currency));
      row.put("amount", Format.money(item.path("amount").decimalValue(), currency));
      items.add(row);
    }
    m.put("items", items);
    m.put("subtotal", money(invoice, "subtotal", currency));
    BigDecimal discount = decimal(invoice, "discount_amount");
    m.put("discount", discount.signum() > 0 ? "−" + Format.money(discount, currency) : null);
    BigDecimal tax = decimal(invoice, "tax_amount");
    m.put("tax", tax.signum() > 0 ? Format.money(tax, currency) : null);
    m.put("total", money(invoice, "amount", currency));
    m.put("paid", money(invoice, "amount_paid", currency));
    m.put("remaining", Format.money(remaining, currency));
    m.put("paidAt", time(invoice, "paid_at"));

    List<Map<String, Object>> payments = new ArrayList<>();
    for (JsonNode p : invoice.path("payments")) {
      Map<String, Object> row = new HashMap<>();
      row.put("amount", Format.money(p.path("amount").decimalValue(), currency));
      BigDecimal refunded =
          p.path("amount_refunded").isNumber()
              ? p.path("amount_refunded").decimalValue()
              : BigDecimal.ZERO;
      row.put("refunded", refunded.signum() > 0 ? Format.money(refunded, currency) : null);
      row.put("method", Format.method(p.path("method").asText()));
      row.put("date", time(p, "succeeded_at"));
      String url = p.path("receipt_url").asText("");
      int at = url.indexOf("/receipts/");
      // The path only: the page links within whatever origin served it.
      row.put("receipt", at < 0 ? null : url.substring(at));
      payments.add(row);
    }
    m.put("payments", payments);

    m.put("payable", payable);
    m.put("closed", !payable && (status.equals("void") || forfeited));
    m.put("forfeited", forfeited);
    m.put("partial", partialAllowed(invoice));
    BigDecimal due = dueNow(invoice);
    m.put("amountDue", Format.money(due, currency));
    m.put("amountDueValue", due.setScale(2).toPlainString());
    m.put(
        "amountDueLabel",
        "deposit".equals(stage)
            ? "Deposit due now"
            : "balance".equals(stage) ? "Balance due now" : "Amount due");
    m.put(
        "dueBy",
        "deposit".equals(stage)
            ? day(invoice, "deposit_due_at")
            : Optional.ofNullable(day(invoice, "balance_due_at")).orElse(dueDate(invoice)));
    m.put("currency", currency);
    m.put("remainingValue", remaining.setScale(2).toPlainString());
    m.put(
        "typedAmount",
        // Prefilled with the remaining; a form sent back shows what was typed, even nothing.
        typedAmount == null ? remaining.setScale(2).toPlainString() : typedAmount);
    List<String> offered = offered(invoice);
    List<Map<String, Object>> methods = new ArrayList<>();
    for (String method : offered) {
      methods.add(
          Map.of(
              "value",
              method,
              "id",
              "method-" + method,
              "label",
              Format.method(method),
              "checked",
              offered.size() == 1));
    }
    m.put("methods", methods);
    m.put(
        "error",
        problem == null ? null : Map.of("code", problem.code(), "message", problem.message()));
    HttpStatus httpStatus = problem == null ? HttpStatus.OK : problem.status();
    if (!payable) {
      return pages.render(httpStatus, "invoice", m);
    }
    String cookie = tokens.cookieOf(request);
    m.put("csrf", tokens.fieldFor(cookie));
    return tokens.set(pages.render(httpStatus, "invoice", m), cookie);
  }

  private static String statusLabel(String status, boolean forfeited, String stage) {
    if (forfeited) {
      return "Lapsed";
    }
    return switch (status) {
      case "paid" -> "Paid";
      case "void" -> "Cancelled";
      case "partial" -> "balance".equals(stage) ? "Deposit paid" : "Partly paid";
      default -> "deposit".equals(stage) ? "Deposit due" : "Awaiting payment";
    };
  }

  /** What a customer pays now when the amount is not theirs to choose. */
  private static BigDecimal dueNow(JsonNode invoice) {
    JsonNode due = invoice.path("amount_due_now");
    return due.isNumber() ? due.decimalValue() : decimal(invoice, "amount_remaining");
  }

  private static boolean partialAllowed(JsonNode invoice) {
    return invoice.path("allow_partial_payment").asBoolean(false);
  }

  private String merchantOf(JsonNode invoice) {
    String name = reads.merchantName(invoice.path("merchant_id").asText(null));
    return name.isEmpty() ? "Invoice" : name;
  }

  private String merchantOr(JsonNode invoice) {
    String name = reads.merchantName(invoice.path("merchant_id").asText(null));
    return name.isEmpty() ? "the shop" : name;
  }

  private static List<String> offered(JsonNode invoice) {
    List<String> methods = new ArrayList<>();
    invoice.path("methods").forEach(m -> methods.add(m.asText()));
    return methods;
  }

  private static boolean isTest(JsonNode invoice) {
    return "test".equals(invoice.path("environment").asText());
  }

  /** {@code 2}, {@code 1.5}: a quantity as people write it. */
  static String quantity(JsonNode quantity) {
    if (!quantity.isNumber()) {
      return "1";
    }
    BigDecimal q = quantity.decimalValue().stripTrailingZeros();
    return q.scale() < 0 ? q.setScale(0).toPlainString() : q.toPlainString();
  }

  /** {@code 50%} of a deposit rate of 0.5, or null. */
  private static String rate(JsonNode invoice) {
    JsonNode rate = invoice.path("deposit_rate");
    if (!rate.isNumber()) {
      return null;
    }
    BigDecimal percent = rate.decimalValue().movePointRight(2).stripTrailingZeros();
    return (percent.scale() < 0 ? percent.setScale(0) : percent).toPlainString() + "%";
  }

  private static String dueDate(JsonNode invoice) {
    String date = text(invoice, "due_date");
    if (date == null) {
      return null;
    }
    try {
      return Format.day(LocalDate.parse(date));
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static String day(JsonNode node, String field) {
    return node.path(field).canConvertToLong() ? Format.day(node.path(field).asLong()) : null;
  }

  private static String time(JsonNode node, String field) {
    return node.path(field).canConvertToLong() ? Format.time(node.path(field).asLong()) : "";
  }

  private static BigDecimal decimal(JsonNode node, String field) {
    JsonNode value = node.path(field);
    return value.isNumber() ? value.decimalValue() : BigDecimal.ZERO;
  }

  private static String money(JsonNode node, String field, String currency) {
    return Format.money(decimal(node, field), currency);
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.path(field);
    return value.isTextual() && !value.asText().isEmpty() ? value.asText() : null;
  }
}
