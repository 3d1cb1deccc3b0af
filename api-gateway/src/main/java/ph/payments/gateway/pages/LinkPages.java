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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import ph.payments.gateway.checkout.QrImages;
import ph.payments.gateway.edge.ClientAddressLimited;
import ph.payments.gateway.edge.ClientAddressLimits;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;

/**
 * A payment link's public page ({@code /l/{slug}}), the payment it creates (POST, through the same
 * {@code payments.create} command as the API, with {@code payment_link_id}), its QR code ({@code
 * /l/{slug}/qr.svg}, encoding the link's absolute URL) and the static QR print view ({@code
 * /l/{slug}/print}); docs/hosted-pages.md. Everything is read from payments-service's public link
 * read ({@code /internal/public/links/{slug}}); the merchant and environment of the payment come
 * from it, never from the form.
 *
 * <p>A link that takes no payment is a human page with the SPEC code in {@code #error[data-code]}
 * and the API's status: {@code link_inactive} 409 (also an archived static QR's link), {@code
 * link_expired} 410. A form without an amount or method the link needs is shown again with {@code
 * amount_required} or {@code method_required} (400).
 */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING)
public class LinkPages {

  static final BigDecimal MAX_AMOUNT = new BigDecimal("999999999999");

  private final PublicReads reads;
  private final Pages pages;
  private final FormTokens tokens;
  private final PagePayments payments;

  public LinkPages(PublicReads reads, Pages pages, FormTokens tokens, PagePayments payments) {
    this.reads = reads;
    this.pages = pages;
    this.tokens = tokens;
    this.payments = payments;
  }

  /** A page-level error: the SPEC code, its status, and words for people. */
  record Problem(HttpStatus status, String code, String message) {}

  @ClientAddressLimited(ClientAddressLimits.Kind.CHECKOUT)
  @Get(uri = "/l/{slug}", produces = MediaType.TEXT_HTML)
  public HttpResponse<String> page(HttpRequest<?> request, String slug) {
    Optional<JsonNode> link = reads.link(slug);
    if (link.isEmpty()) {
      return pages.notFound();
    }
    HttpResponse<String> closed = closed(link.get());
    return closed != null ? closed : form(request, HttpStatus.OK, link.get(), null, null);
  }

  @ClientAddressLimited(ClientAddressLimits.Kind.PAGE_FORM)
  @Post(
      uri = "/l/{slug}",
      consumes = MediaType.APPLICATION_FORM_URLENCODED,
      produces = MediaType.TEXT_HTML)
  public HttpResponse<String> pay(
      HttpRequest<?> request, String slug, @Nullable @Body Map<String, String> form) {
    Map<String, String> fields = form == null ? Map.of() : form;
    Optional<String> formToken = tokens.verified(request, fields.get(FormTokens.FIELD));
    if (formToken.isEmpty()) {
      return pages.invalidToken();
    }
    Optional<JsonNode> found = reads.link(slug);
    if (found.isEmpty()) {
      return pages.notFound();
    }
    JsonNode link = found.get();
    HttpResponse<String> closed = closed(link);
    if (closed != null) {
      return closed;
    }
    String typedAmount = fields.getOrDefault("amount", "").trim();
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("payment_link_id", link.path("id").asText());
    if (link.path("amount").isNull() || link.path("amount").isMissingNode()) {
      if (typedAmount.isEmpty()) {
        return form(request, HttpStatus.BAD_REQUEST, link, typedAmount, amountRequired());
      }
      BigDecimal amount = amount(typedAmount);
      if (amount == null) {
        return form(
            request,
            HttpStatus.BAD_REQUEST,
            link,
            typedAmount,
            new Problem(
                HttpStatus.BAD_REQUEST,
                "invalid_request",
                "Enter an amount such as 1500 or 1,500.00 (at least 0.01)."));
      }
      body.put("amount", amount);
    }
    if (link.path("method").isNull() || link.path("method").isMissingNode()) {
      String method = fields.getOrDefault("method", "");
      if (method.isEmpty()) {
        return form(
            request,
            HttpStatus.BAD_REQUEST,
            link,
            typedAmount,
            new Problem(HttpStatus.BAD_REQUEST, "method_required", "Choose how you want to pay."));
      }
      if (!offered(link).contains(method)) {
        return form(
            request,
            HttpStatus.BAD_REQUEST,
            link,
            typedAmount,
            new Problem(
                HttpStatus.BAD_REQUEST, "invalid_request", "Choose one of the payment methods."));
      }
      body.put("method", method);
    }
    PagePayments.Outcome outcome = payments.create(link, body, formToken.get(), "/l/" + slug);
    if (outcome instanceof PagePayments.Answered answered) {
      return answered.response();
    }
    PageCommands.Reply reply = ((PagePayments.Refused) outcome).reply();
    return switch (reply.code()) {
      case "link_inactive" -> inactive(link);
      case "link_expired" -> expired(link);
      case "amount_required" ->
          form(request, HttpStatus.BAD_REQUEST, link, typedAmount, amountRequired());
      default ->
          form(
              request,
              HttpStatus.valueOf(reply.status() >= 500 ? 400 : reply.status()),
              link,
              typedAmount,
              new Problem(
                  HttpStatus.BAD_REQUEST,
                  reply.code().isEmpty() ? "invalid_request" : reply.code(),
                  reply.message().isEmpty()
                      ? "The payment could not be created."
                      : reply.message()));
    };
  }

  /** The link's QR code: its absolute public URL, for a phone camera. */
  @ClientAddressLimited(ClientAddressLimits.Kind.CHECKOUT)
  @Get(uri = "/l/{slug}/qr.svg", produces = "image/svg+xml")
  public HttpResponse<String> qr(String slug) {
    JsonNode link = reads.link(slug).orElseThrow(() -> ApiException.notFound("payment link"));
    return HttpResponse.ok(QrImages.svg(link.path("url").asText()))
        .contentType(MediaType.of("image/svg+xml"))
        .header("X-Content-Type-Options", "nosniff")
        .header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
        .header("Cache-Control", "public, max-age=300");
  }

  /** The static QR print view: a big QR code and what the merchant wrote on it. */
  @ClientAddressLimited(ClientAddressLimits.Kind.CHECKOUT)
  @Get(uri = "/l/{slug}/print", produces = MediaType.TEXT_HTML)
  public HttpResponse<String> print(String slug) {
    Optional<JsonNode> found = reads.link(slug);
    if (found.isEmpty()) {
      return pages.notFound();
    }
    JsonNode link = found.get();
    JsonNode staticQr = link.path("static_qr");
    Map<String, Object> m = new HashMap<>();
    m.put("test", isTest(link));
    m.put("slug", slug);
    m.put("merchant", merchantOf(link));
    m.put(
        "name",
        staticQr.isObject()
            ? staticQr.path("name").asText("")
            : link.path("description").asText(""));
    m.put("location", staticQr.isObject() ? text(staticQr, "location") : null);
    m.put("amount", fixedAmount(link));
    m.put("archived", staticQr.path("archived").asBoolean(false) || !active(link));
    return pages.render(HttpStatus.OK, "print", m);
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
        "This page cannot be shown right now. Please try again in a moment; nothing was charged"
            + " twice.",
        false);
  }

  /** The error page of a link that takes no payment now, or null when it takes payments. */
  private HttpResponse<String> closed(JsonNode link) {
    if (!active(link) || link.path("static_qr").path("archived").asBoolean(false)) {
      return inactive(link);
    }
    if (link.path("expired").asBoolean(false)) {
      return expired(link);
    }
    return null;
  }

  private HttpResponse<String> inactive(JsonNode link) {
    boolean archivedQr = link.path("static_qr").path("archived").asBoolean(false);
    return pages.error(
        HttpStatus.CONFLICT,
        "link_inactive",
        archivedQr ? "This QR code is no longer in use" : "This payment link is not active",
        "It takes no payments now. Ask " + merchantOr(link) + " how to pay instead.",
        isTest(link));
  }

  private HttpResponse<String> expired(JsonNode link) {
    return pages.error(
        HttpStatus.GONE,
        "link_expired",
        "This payment link has expired",
        "It takes no payments any more. Ask " + merchantOr(link) + " for a new link.",
        isTest(link));
  }

  private static Problem amountRequired() {
    return new Problem(HttpStatus.BAD_REQUEST, "amount_required", "Enter the amount to pay.");
  }

  private HttpResponse<String> form(
      HttpRequest<?> request,
      HttpStatus status,
      JsonNode link,
      @Nullable String typedAmount,
      @Nullable Problem problem) {
    String cookie = tokens.cookieOf(request);
    Map<String, Object> m = new HashMap<>();
    m.put("test", isTest(link));
    m.put("slug", link.path("slug").asText());
    m.put("csrf", tokens.fieldFor(cookie));
    m.put("merchant", merchantOf(link));
    m.put("description", text(link, "description"));
    m.put("image", Format.webUrl(text(link, "image_url")));
    m.put("amount", fixedAmount(link));
    m.put("currency", link.path("currency").asText("PHP"));
    m.put("typedAmount", typedAmount == null ? "" : typedAmount);
    String fixed = text(link, "method");
    m.put("fixedMethod", fixed);
    m.put("fixedMethodLabel", fixed == null ? null : Format.method(fixed));
    String preselected = fixed == null ? text(link.path("static_qr"), "default_method") : fixed;
    List<String> offered = offered(link);
    if (preselected == null && offered.size() == 1) {
      preselected = offered.get(0);
    }
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
              method.equals(preselected)));
    }
    m.put("methods", methods);
    m.put(
        "error",
        problem == null ? null : Map.of("code", problem.code(), "message", problem.message()));
    return tokens.set(pages.render(status, "link", m), cookie);
  }

  private String merchantOf(JsonNode link) {
    String name = reads.merchantName(link.path("merchant_id").asText(null));
    return name.isEmpty() ? "Payment" : name;
  }

  private String merchantOr(JsonNode link) {
    String name = reads.merchantName(link.path("merchant_id").asText(null));
    return name.isEmpty() ? "the shop" : name;
  }

  private static String fixedAmount(JsonNode link) {
    JsonNode amount = link.path("amount");
    return amount.isNumber()
        ? Format.money(amount.decimalValue(), link.path("currency").asText("PHP"))
        : null;
  }

  private static List<String> offered(JsonNode link) {
    List<String> methods = new ArrayList<>();
    link.path("methods").forEach(m -> methods.add(m.asText()));
    return methods;
  }

  private static boolean active(JsonNode link) {
    return "active".equals(link.path("status").asText());
  }

  private static boolean isTest(JsonNode link) {
    return "test".equals(link.path("environment").asText());
  }

  /** A typed amount ({@code 1500}, {@code 1,500.00}, {@code ₱ 1500.5}), or null when it is none. */
  static BigDecimal amount(String typed) {
    String plain = typed.replace("₱", "").replace(",", "").replace(" ", "");
    if (!plain.matches("[0-9]{1,12}(\\.[0-9]{1,2})?")) {
      return null;
    }
    BigDecimal amount = new BigDecimal(plain).setScale(2);
    return amount.compareTo(new BigDecimal("0.01")) < 0 || amount.compareTo(MAX_AMOUNT) > 0
        ? null
        : amount;
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.path(field);
    return value.isTextual() && !value.asText().isEmpty() ? value.asText() : null;
  }
}
