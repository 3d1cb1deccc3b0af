package ph.payments.gateway.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import ph.payments.gateway.merchants.ApiKeyRow;
import ph.payments.gateway.merchants.MerchantRow;

/**
 * Keys that authenticated recently, with their merchants, kept for at most {@code
 * gateway.auth.cache-ttl} (default 1 s; 0 turns the cache off) so that a client's stream of
 * requests does not read the same two rows for every request.
 *
 * <p><b>Changes take effect at once on this gateway.</b> The operator endpoints that revoke a key,
 * change its limit or (de)activate a merchant call {@link #invalidateAll()} after their transaction
 * committed. A lookup that read the rows before that commit does not put them into the cache
 * afterwards: every load carries the generation it started in, and a load from an older generation
 * is answered but not kept. Another gateway instance sees the change within the TTL (the trade-off
 * is in docs/decisions.md, "Authenticated-key cache").
 *
 * <p>Only keys that were found are kept: an unknown secret is looked up every time, so a key made a
 * moment ago on another instance works at once. The entry is keyed by the secret's keyed hash,
 * never by the secret.
 */
@Singleton
public class AuthenticatedKeys {

  /** What authentication needs of a key: the key and its merchant as read together. */
  public record Found(ApiKeyRow key, MerchantRow merchant) {}

  private final Cache<String, Found> cache;
  private final boolean enabled;
  private final AtomicLong generation = new AtomicLong();

  public AuthenticatedKeys(@Value("${gateway.auth.cache-ttl:1s}") Duration ttl) {
    this.enabled = !ttl.isZero() && !ttl.isNegative();
    this.cache =
        Caffeine.newBuilder()
            .expireAfterWrite(enabled ? ttl : Duration.ofMillis(1))
            .maximumSize(10_000)
            .build();
  }

  /**
   * The key with this keyed hash if the cache holds it (never when the cache is off): what {@link
   * #find} answers without loading, so a caller can skip the hand-off to a thread that may block.
   */
  public Optional<Found> cached(byte[] secretHash) {
    return enabled
        ? Optional.ofNullable(cache.getIfPresent(HexFormat.of().formatHex(secretHash)))
        : Optional.empty();
  }

  /**
   * The key with this keyed hash: from the cache, or from {@code load} (which reads the database
   * and is empty for an unknown key, a revoked one included as found).
   */
  public Optional<Found> find(byte[] secretHash, Supplier<Optional<Found>> load) {
    if (!enabled) {
      return load.get();
    }
    String id = HexFormat.of().formatHex(secretHash);
    Found cached = cache.getIfPresent(id);
    if (cached != null) {
      return Optional.of(cached);
    }
    long startedIn = generation.get();
    Optional<Found> loaded = load.get();
    if (loaded.isPresent()) {
      synchronized (this) {
        if (generation.get() == startedIn) {
          cache.put(id, loaded.get());
        }
      }
    }
    return loaded;
  }

  /** Forgets every key: call it after a change to keys or merchants has committed. */
  public void invalidateAll() {
    synchronized (this) {
      generation.incrementAndGet();
      cache.invalidateAll();
    }
  }
}
