package ph.payments.gateway.checkout;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.Map;
import java.util.regex.Pattern;
import ph.payments.gateway.edge.ClientAddressLimited;
import ph.payments.gateway.edge.ClientAddressLimits;
import ph.payments.gateway.routing.Owner;
import ph.payments.gateway.routing.ReadRouter;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;

/**
 * The customer-facing side of a payment, without an API key: the checkout page ({@code
 * checkout_url}), the QR image ({@code qr_code_url}, PNG and SVG) and the public endpoint where
 * providers report ({@code /callbacks/providers/{name}}, verified by payments-service). The
 * checkout page is deliberately simple for now; the full hosted checkout comes later.
 *
 * <p>Pages and images are addressed by the payment's checkout token (192 random bits, {@code
 * ct_…}), resolved by payments-service; a payment id in their place is 404, so one link does not
 * lead to the time-ordered neighbours of its payment.
 */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING)
public class CheckoutController {

  private final ReadRouter router;

  public CheckoutController(ReadRouter router) {
    this.router = router;
  }

  /** What a checkout token looks like; anything else is 404 without asking the owner. */
  static final Pattern TOKEN = Pattern.compile("ct_[A-Za-z0-9_-]{32}");

  @ClientAddressLimited(ClientAddressLimits.Kind.CHECKOUT)
  @Get(uri = "/qr/{token}.png", produces = "image/png")
  public HttpResponse<byte[]> png(String token) {
    return HttpResponse.ok(QrImages.png(qrPayload(token))).contentType(MediaType.IMAGE_PNG_TYPE);
  }

  @ClientAddressLimited(ClientAddressLimits.Kind.CHECKOUT)
  @Get(uri = "/qr/{token}.svg", produces = "image/svg+xml")
  public HttpResponse<String> svg(String token) {
    return HttpResponse.ok(QrImages.svg(qrPayload(token)))
        .contentType(MediaType.of("image/svg+xml"));
  }

  @ClientAddressLimited(ClientAddressLimits.Kind.CHECKOUT)
  @Get(uri = "/checkout/{token}", produces = MediaType.TEXT_HTML)
  public HttpResponse<String> page(String token) {
    JsonNode payment = publicView(token);
    String qr =
        payment.path("qr_code").isTextual()
            ? "<img alt=\"QR code to pay\" width=\"280\" height=\"280\" src=\"/qr/"
                + escape(token)
                + ".svg\">"
            : "";
    String app =
        payment.path("app_link").isTextual()
            ? "<p><a href=\""
                + escape(payment.get("app_link").asText())
                + "\">Open your wallet app</a></p>"
            : "";
    String test =
        "test".equals(payment.path("environment").asText())
            ? "<p class=\"test\">TEST MODE: no real money moves.</p>"
            : "";
    String html =
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            + "<title>Pay "
            + escape(amount(payment))
            + "</title></head><body>"
            + test
            + "<h1>"
            + escape(amount(payment))
            + "</h1>"
            + "<p>"
            + escape(payment.path("description").asText(""))
            + "</p>"
            + "<p>Status: <strong id=\"status\">"
            + escape(payment.path("status").asText())
            + "</strong></p>"
            + qr
            + app
            + "</body></html>";
    return HttpResponse.ok(html)
        .contentType(MediaType.TEXT_HTML_TYPE)
        .header("Content-Security-Policy", "default-src 'self'; style-src 'unsafe-inline'")
        .header("X-Content-Type-Options", "nosniff");
  }

  /** Providers call this public URL; the body and signature reach payments-service untouched. */
  @ClientAddressLimited(ClientAddressLimits.Kind.CALLBACK)
  @Post(uri = "/callbacks/providers/{provider}", consumes = MediaType.APPLICATION_JSON)
  public HttpResponse<String> providerCallback(
      HttpRequest<?> request,
      String provider,
      @Body byte[] body,
      @Nullable @Header("X-Provider-Signature") String signature) {
    if (!provider.matches("[a-z0-9_]{1,40}")) {
      throw ApiException.notFound("provider");
    }
    return router.postRaw(
        Owner.PAYMENTS,
        "/internal/providers/" + provider + "/callbacks",
        body,
        signature == null ? Map.of() : Map.of("X-Provider-Signature", signature));
  }

  private String qrPayload(String token) {
    JsonNode payment = publicView(token);
    if (!payment.path("qr_code").isTextual()) {
      throw ApiException.notFound("QR code");
    }
    return payment.get("qr_code").asText();
  }

  private JsonNode publicView(String token) {
    if (!TOKEN.matcher(token).matches()) {
      throw ApiException.notFound("checkout");
    }
    HttpResponse<String> answer =
        router.getPublic(Owner.PAYMENTS, "/internal/public/checkouts/" + token);
    if (answer.getStatus().getCode() != 200) {
      throw ApiException.notFound("checkout");
    }
    return Json.tree(answer.body());
  }

  private static String amount(JsonNode payment) {
    return payment.path("currency").asText()
        + " "
        + payment.path("amount").decimalValue().toPlainString();
  }

  private static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (char c : text.toCharArray()) {
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
