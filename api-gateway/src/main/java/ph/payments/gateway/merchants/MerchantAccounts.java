package ph.payments.gateway.merchants;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.transaction.annotation.Transactional;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;

/**
 * The operator's use cases on merchants and keys. Each returns the merchant (or key) as the
 * operator API shows it; a new key's secret appears only in the result that created it.
 */
@Singleton
public class MerchantAccounts {

  private final MerchantRepository merchants;
  private final ApiKeyRepository keys;
  private final ApiKeySecrets secrets;
  private final Clock clock;

  public MerchantAccounts(
      MerchantRepository merchants, ApiKeyRepository keys, ApiKeySecrets secrets, Clock clock) {
    this.merchants = merchants;
    this.keys = keys;
    this.secrets = secrets;
    this.clock = clock;
  }

  /** A merchant's view with its keys; {@code fresh} is the one key whose secret is shown. */
  public record MerchantView(MerchantRow merchant, List<KeyView> keys) {}

  /** A key as shown; {@code secret} is non-null only right after creation. */
  public record KeyView(ApiKeyRow key, @Nullable String secret) {}

  /** Signs a merchant up: active, not live, with a test key that may do everything. */
  @Transactional
  public MerchantView create(String name, String email) {
    Instant now = clock.instant();
    MerchantRow merchant =
        merchants.save(
            new MerchantRow(
                IdType.MERCHANT.generate(), name, email, MerchantRow.ACTIVE, false, now, now));
    KeyView testKey = issueKey(merchant.id(), "test", Set.of(Scopes.ALL), null, now);
    return view(merchant, testKey);
  }

  @Transactional
  public MerchantView find(String merchantId) {
    return view(merchant(merchantId), null);
  }

  /** Takes the merchant live and issues a live key the first time; again changes nothing. */
  @Transactional
  public MerchantView activate(String merchantId) {
    MerchantRow merchant = merchant(merchantId);
    if (merchant.live()) {
      return view(merchant, null);
    }
    Instant now = clock.instant();
    MerchantRow live = merchants.update(merchant.goneLive(now));
    return view(live, issueKey(merchantId, "live", Set.of(Scopes.ALL), null, now));
  }

  /** After this, every key of the merchant is answered 403 {@code merchant_inactive}. */
  @Transactional
  public MerchantView deactivate(String merchantId) {
    MerchantRow merchant = merchant(merchantId);
    return view(merchants.update(merchant.withStatus(MerchantRow.INACTIVE, clock.instant())), null);
  }

  @Transactional
  public MerchantView reactivate(String merchantId) {
    MerchantRow merchant = merchant(merchantId);
    return view(merchants.update(merchant.withStatus(MerchantRow.ACTIVE, clock.instant())), null);
  }

  @Transactional
  public KeyView createKey(
      String merchantId, String environment, Set<String> scopes, @Nullable Integer perMinute) {
    merchant(merchantId);
    return issueKey(merchantId, environment, scopes, perMinute, clock.instant());
  }

  /** After this, the key is answered 401 {@code unauthenticated}. Revoking twice is harmless. */
  @Transactional
  public KeyView revokeKey(String keyId) {
    ApiKeyRow key = key(keyId);
    return new KeyView(key.isRevoked() ? key : keys.update(key.revoked(clock.instant())), null);
  }

  /** Sets (or with null, clears) the key's requests-per-minute override. */
  @Transactional
  public KeyView setRateLimit(String keyId, @Nullable Integer perMinute) {
    return new KeyView(keys.update(key(keyId).withRateLimit(perMinute)), null);
  }

  private KeyView issueKey(
      String merchantId,
      String environment,
      Set<String> scopes,
      @Nullable Integer perMinute,
      Instant now) {
    String secret = secrets.newSecret(environment);
    ApiKeyRow key =
        keys.save(
            new ApiKeyRow(
                IdType.API_KEY.generate(),
                merchantId,
                environment,
                secrets.hash(secret),
                secret.substring(secret.length() - 4),
                scopes.stream().sorted().toArray(String[]::new),
                perMinute,
                now,
                null));
    return new KeyView(key, secret);
  }

  private MerchantView view(MerchantRow merchant, @Nullable KeyView fresh) {
    List<KeyView> shown = new ArrayList<>();
    for (ApiKeyRow key : keys.findByMerchantIdOrderByCreatedAt(merchant.id())) {
      if (key.isRevoked()) {
        continue;
      }
      boolean isFresh = fresh != null && fresh.key().id().equals(key.id());
      shown.add(isFresh ? fresh : new KeyView(key, null));
    }
    return new MerchantView(merchant, shown);
  }

  private MerchantRow merchant(String merchantId) {
    return merchants.findById(merchantId).orElseThrow(() -> ApiException.notFound("merchant"));
  }

  private ApiKeyRow key(String keyId) {
    return keys.findById(keyId).orElseThrow(() -> ApiException.notFound("API key"));
  }
}
