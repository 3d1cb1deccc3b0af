package ph.payments.gateway.embed.tokens;

import io.micronaut.core.annotation.Nullable;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * What an embed token says, once verified (docs/decisions.md "Embed tokens"). The merchant and
 * environment are those of the API key that asked for the token; nothing else is trusted on an
 * {@code /embed/v1} request.
 *
 * @param merchantId {@code mer_…} (claims {@code sub} and {@code mer})
 * @param environment {@code test} or {@code live} ({@code env})
 * @param audience {@code aud}
 * @param surface {@code srf}
 * @param tabs the effective tabs, never empty, each allowed for the audience ({@code tabs})
 * @param customerId the customer the token is scoped to, or null for an unscoped merchant token
 *     ({@code scp}: {@code {field: "customer_id", value}}); always set for {@link
 *     Audience#CUSTOMER}
 * @param projectUuid the merchant's own project id, carried for the merchant ({@code prj})
 * @param issuedAt {@code iat}, whole seconds
 * @param expiresAt {@code exp}, whole seconds
 * @param tokenId {@code jti}: random, unique per token
 */
public record EmbedClaims(
    String merchantId,
    String environment,
    Audience audience,
    Surface surface,
    List<Tab> tabs,
    @Nullable String customerId,
    UUID projectUuid,
    Instant issuedAt,
    Instant expiresAt,
    String tokenId) {

  /** Claim names beyond the registered ones (RFC 7519). */
  static final String MERCHANT = "mer";

  static final String ENVIRONMENT = "env";
  static final String SURFACE = "srf";
  static final String TABS = "tabs";
  static final String SCOPE = "scp";
  static final String SCOPE_FIELD = "field";
  static final String SCOPE_VALUE = "value";
  static final String PROJECT = "prj";

  /** The one scope field a token carries: an {@code external_id} is resolved when it is made. */
  static final String CUSTOMER_ID = "customer_id";

  public EmbedClaims {
    tabs = List.copyOf(tabs);
  }

  public boolean scoped() {
    return customerId != null;
  }
}
