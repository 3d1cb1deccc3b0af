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
 * The customer-facing side of a payment without an API key, besides the hosted pages ({@link
 * ph.payments.gateway.pages.CheckoutPages}): the QR image ({@code qr_code_url}, PNG and SVG) and
 * the public endpoint where providers report ({@code /callbacks/providers/{name}}, verified by
 * payments-service).
 *
 * <p>Images are addressed by the payment's checkout token (192 random bits, {@code ct_…}), resolved
 * by payments-service; a payment id in their place is 404, so one link does not lead to the
 * time-ordered neighbours of its payment.
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
}
