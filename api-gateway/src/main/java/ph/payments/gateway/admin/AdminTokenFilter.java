package ph.payments.gateway.admin;

import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.errors.ErrorEnvelope;

/**
 * The operator API ({@code /admin/v1/**}) answers only {@code Bearer $PAYMENTS_ADMIN_TOKEN}. Both
 * sides are hashed before the constant-time comparison, so not even the token's length leaks.
 */
@ServerFilter("/admin/**")
public class AdminTokenFilter {

  private static final Logger log = LoggerFactory.getLogger(AdminTokenFilter.class);
  private static final String BEARER = "Bearer ";

  /**
   * Request attribute set once the operator token is accepted: the first 12 hex digits of its
   * SHA-256, which names the token in the operator audit without revealing it.
   */
  public static final String TOKEN_HASH_ATTRIBUTE = "operator.token-hash";

  private final byte[] tokenDigest;

  public AdminTokenFilter(@Nullable @Value("${admin.token:}") String token) {
    if (token == null || token.isBlank()) {
      log.warn("PAYMENTS_ADMIN_TOKEN is not set: the operator API refuses every request");
      this.tokenDigest = null;
    } else {
      this.tokenDigest = sha256(token);
    }
  }

  @RequestFilter
  @Nullable
  public HttpResponse<?> check(HttpRequest<?> request) {
    String authorization = request.getHeaders().getAuthorization().orElse("");
    if (tokenDigest != null
        && authorization.startsWith(BEARER)
        && MessageDigest.isEqual(tokenDigest, sha256(authorization.substring(BEARER.length())))) {
      request.setAttribute(TOKEN_HASH_ATTRIBUTE, HexFormat.of().formatHex(tokenDigest, 0, 6));
      return null;
    }
    return HttpResponse.status(HttpStatus.UNAUTHORIZED)
        .body(ErrorEnvelope.of(ErrorCode.UNAUTHENTICATED, "Missing or invalid operator token."));
  }

  private static byte[] sha256(String value) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
