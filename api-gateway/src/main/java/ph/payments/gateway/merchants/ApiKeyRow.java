package ph.payments.gateway.merchants;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;
import io.micronaut.data.annotation.TypeDef;
import io.micronaut.data.model.DataType;
import java.time.Instant;
import java.util.Set;

/** A row of {@code api_keys}: everything about a key except its secret. */
@MappedEntity("api_keys")
public record ApiKeyRow(
    @Id String id,
    String merchantId,
    String environment,
    byte[] secretHash,
    String secretLast4,
    @TypeDef(type = DataType.STRING_ARRAY) String[] scopes,
    @Nullable Integer rateLimitPerMinute,
    Instant createdAt,
    @Nullable Instant revokedAt) {

  public boolean isRevoked() {
    return revokedAt != null;
  }

  public Set<String> scopeSet() {
    return Set.of(scopes);
  }

  ApiKeyRow revoked(Instant at) {
    return new ApiKeyRow(
        id,
        merchantId,
        environment,
        secretHash,
        secretLast4,
        scopes,
        rateLimitPerMinute,
        createdAt,
        at);
  }

  ApiKeyRow withRateLimit(@Nullable Integer perMinute) {
    return new ApiKeyRow(
        id,
        merchantId,
        environment,
        secretHash,
        secretLast4,
        scopes,
        perMinute,
        createdAt,
        revokedAt);
  }
}
