package ph.payments.platform.micronaut;

import io.micronaut.http.HttpRequest;
import java.util.Set;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.ids.IdType;

/**
 * Headers the gateway puts on internal calls. The merchant and environment always come from the
 * caller's API key at the gateway, never from the merchant's request; owners read them here.
 */
public final class InternalHeaders {

  public static final String TOKEN = InternalTokenFilter.HEADER;
  public static final String MERCHANT_ID = "X-Merchant-Id";
  public static final String ENVIRONMENT = "X-Environment";

  private static final Set<String> ENVIRONMENTS = Set.of("test", "live");

  /** Whose data an internal request is about. */
  public record Scope(String merchantId, String environment) {}

  /**
   * @throws ApiException 500 when the gateway did not send a well-formed scope: a bug, never the
   *     merchant's fault, and never guessed
   */
  public static Scope scope(HttpRequest<?> request) {
    String merchantId = request.getHeaders().get(MERCHANT_ID);
    String environment = request.getHeaders().get(ENVIRONMENT);
    if (!IdType.MERCHANT.matches(merchantId) || !ENVIRONMENTS.contains(environment)) {
      throw new ApiException(ErrorCode.INTERNAL_ERROR, "Internal call without a merchant scope.");
    }
    return new Scope(merchantId, environment);
  }

  private InternalHeaders() {}
}
