package ph.payments.gateway.pages;

import io.micronaut.context.annotation.Value;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.cookie.Cookie;
import io.micronaut.http.cookie.SameSite;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Pattern;
import ph.payments.gateway.idempotency.IdempotencyKey;

/**
 * CSRF protection of the hosted pages' forms: a double-submit cookie. The browser holds a random
 * {@code csrf} cookie (256 bits, HttpOnly, SameSite=Strict, Secure when the public base URL is
 * https); every form carries a hidden {@code csrf} field of that value plus a fresh nonce, {@code
 * <cookie>.<nonce>}. A POST is accepted only when the field's cookie part equals the cookie
 * (compared in constant time): another site can make a browser send the cookie (not even that, with
 * SameSite=Strict) but can neither read it nor set it, so it cannot write the field.
 *
 * <p>The nonce makes each rendered form's token unique, so the token doubles as the form's
 * idempotency key ({@link #idempotencyKey}): pressing Pay twice sends one command, and a fresh page
 * gives a fresh key. The key is a hash of the token, so the cookie is never stored.
 */
@Singleton
public class FormTokens {

  public static final String COOKIE = "csrf";
  public static final String FIELD = "csrf";

  private static final Pattern COOKIE_VALUE = Pattern.compile("[A-Za-z0-9_-]{43}");
  private static final Pattern FIELD_VALUE =
      Pattern.compile("[A-Za-z0-9_-]{43}\\.[A-Za-z0-9_-]{22}");
  private static final SecureRandom RANDOM = new SecureRandom();

  private final boolean secure;

  public FormTokens(
      @Value("${gateway.public-base-url:`http://localhost:8080`}") String publicBaseUrl) {
    this.secure = publicBaseUrl.startsWith("https:");
  }

  /** The cookie a page's forms are bound to: the request's own when well formed, else a new one. */
  public String cookieOf(HttpRequest<?> request) {
    return keepOrNew(cookie(request));
  }

  /** {@code existing} when it is a well-formed cookie value, else a new one. */
  String keepOrNew(String existing) {
    return existing != null && COOKIE_VALUE.matcher(existing).matches() ? existing : random(32);
  }

  /** A form field for {@code cookie}: unique to this rendering of the form. */
  public String fieldFor(String cookie) {
    return cookie + "." + random(16);
  }

  /** Sets {@code cookie} on {@code response} (again, if the browser holds it already). */
  public <T> MutableHttpResponse<T> set(MutableHttpResponse<T> response, String cookie) {
    return response.cookie(
        Cookie.of(COOKIE, cookie)
            .httpOnly(true)
            .sameSite(SameSite.Strict)
            .path("/")
            .secure(secure));
  }

  /**
   * The form's token when it matches the request's cookie, else empty (missing, malformed or
   * another cookie's).
   */
  public Optional<String> verified(HttpRequest<?> request, String field) {
    return matching(cookie(request), field);
  }

  /** As {@link #verified(HttpRequest, String)} for the cookie value {@code cookie} (or null). */
  static Optional<String> matching(String cookie, String field) {
    if (field == null || !FIELD_VALUE.matcher(field).matches()) {
      return Optional.empty();
    }
    if (cookie == null || !COOKIE_VALUE.matcher(cookie).matches()) {
      return Optional.empty();
    }
    byte[] expected = cookie.getBytes(StandardCharsets.US_ASCII);
    byte[] given = field.substring(0, field.indexOf('.')).getBytes(StandardCharsets.US_ASCII);
    return MessageDigest.isEqual(expected, given) ? Optional.of(field) : Optional.empty();
  }

  /** The idempotency key of the command a form sends: derived from its token, never the cookie. */
  public static IdempotencyKey idempotencyKey(String verifiedField) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256")
              .digest(verifiedField.getBytes(StandardCharsets.US_ASCII));
      return new IdempotencyKey(
          "form_" + Base64.getUrlEncoder().withoutPadding().encodeToString(hash));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String cookie(HttpRequest<?> request) {
    return request.getCookies().findCookie(COOKIE).map(Cookie::getValue).orElse(null);
  }

  private static String random(int bytes) {
    byte[] value = new byte[bytes];
    RANDOM.nextBytes(value);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(value);
  }
}
