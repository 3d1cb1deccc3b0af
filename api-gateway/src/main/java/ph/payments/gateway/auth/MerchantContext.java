package ph.payments.gateway.auth;

import io.micronaut.http.HttpRequest;
import java.util.Set;

/**
 * Who is calling, established by {@link ApiKeyAuthentication} from the API key alone: the merchant
 * and environment never come from the request's path, query or body.
 *
 * @param merchantId {@code mer_…}
 * @param environment {@code test} or {@code live}, from the key's prefix
 * @param apiKeyId {@code key_…}
 * @param scopes what the key may do
 * @param rateLimitPerMinute the key's limit: its override or the default
 * @param merchantName the merchant's display name (shown to payers, e.g. in QR payloads)
 */
public record MerchantContext(
    String merchantId,
    String environment,
    String apiKeyId,
    Set<String> scopes,
    int rateLimitPerMinute,
    String merchantName) {

  /** Request attribute under which the authenticated context is stored. */
  public static final String ATTRIBUTE = "ph.payments.merchant-context";

  public boolean isTest() {
    return "test".equals(environment);
  }

  /**
   * The context of an authenticated {@code /v1} request.
   *
   * @throws IllegalStateException when called for a request the filter did not authenticate
   */
  public static MerchantContext of(HttpRequest<?> request) {
    return request
        .getAttribute(ATTRIBUTE, MerchantContext.class)
        .orElseThrow(() -> new IllegalStateException("request was not authenticated"));
  }
}
