package ph.payments.gateway.pages;

import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import jakarta.inject.Singleton;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;

/**
 * Answers of the hosted pages: rendered HTML with the headers every page carries, redirects, and
 * the human error page ({@code #error} with {@code data-code} the SPEC code).
 *
 * <p>Headers: {@code Content-Security-Policy} allows only this origin's script, style, fonts and
 * forms (no inline script or style anywhere), images also over https (a payment link's image) and
 * no framing; {@code X-Content-Type-Options: nosniff}, {@code Referrer-Policy: same-origin} (a page
 * URL carries its token, which must not leak to the merchant's site or an image host; not {@code
 * no-referrer}, under which a browser posts forms with {@code Origin: null}, and Micronaut refuses
 * such a POST to a localhost address as a drive-by-localhost attack), {@code Cache-Control:
 * no-store} (a payment's state changes; a shared computer keeps no copy).
 */
@Singleton
public class Pages {

  public static final String CSP =
      "default-src 'self'; img-src 'self' https:; form-action 'self'; frame-ancestors 'none';"
          + " base-uri 'none'; object-src 'none'";

  private static final MediaType HTML = MediaType.of("text/html;charset=utf-8");

  private final Templates templates;

  public Pages(Templates templates) {
    this.templates = templates;
  }

  /** {@code template} rendered with {@code model}, with status {@code status}. */
  public MutableHttpResponse<String> render(
      HttpStatus status, String template, Map<String, Object> model) {
    return secured(HttpResponse.<String>status(status).body(templates.render(template, model)))
        .contentType(HTML);
  }

  /** 303 See Other to {@code path} on this origin. */
  public MutableHttpResponse<String> seeOther(String path) {
    return secured(HttpResponse.<String>status(HttpStatus.SEE_OTHER))
        .header(HttpHeaders.LOCATION, URI.create(path).toString());
  }

  /**
   * The error page: a heading, a sentence for people and {@code code} in {@code data-code}.
   *
   * @param test whether to show the test-mode banner (unknown when the resource was not found)
   */
  public MutableHttpResponse<String> error(
      HttpStatus status, String code, String title, String message, boolean test) {
    Map<String, Object> model = new HashMap<>();
    model.put("code", code);
    model.put("title", title);
    model.put("message", message);
    model.put("test", test);
    return render(status, "error", model);
  }

  /** 404 {@code not_found} for an unknown, mistyped or expired-from-memory address. */
  public MutableHttpResponse<String> notFound() {
    return error(
        HttpStatus.NOT_FOUND,
        "not_found",
        "Page not found",
        "This payment page does not exist. Check the link you were sent, or ask the shop for a new"
            + " one.",
        false);
  }

  /** 403 {@code invalid_token}: a form whose CSRF token is missing or not this browser's. */
  public MutableHttpResponse<String> invalidToken() {
    return error(
        HttpStatus.FORBIDDEN,
        "invalid_token",
        "Please reload the page",
        "This form has expired or was sent from another page. Reload the page and try again;"
            + " nothing was charged.",
        false);
  }

  /** The headers every page and redirect carries. */
  public static <T> MutableHttpResponse<T> secured(MutableHttpResponse<T> response) {
    return response
        .header("Content-Security-Policy", CSP)
        .header("X-Content-Type-Options", "nosniff")
        .header("Referrer-Policy", "same-origin")
        .header("X-Frame-Options", "DENY")
        .header(HttpHeaders.CACHE_CONTROL, "no-store");
  }
}
