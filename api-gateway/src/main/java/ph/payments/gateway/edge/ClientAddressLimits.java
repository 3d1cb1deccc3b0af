package ph.payments.gateway.edge;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * Token buckets per client address for what has no API key to count against (Bucket4j, in memory on
 * each gateway instance): hosted pages and QR images, their forms, provider callbacks, and requests
 * whose API key was refused (so guessing keys is throttled per address). Buckets of addresses not
 * seen for a while are dropped, and their number is bounded.
 */
@Singleton
public class ClientAddressLimits {

  /** What is counted. */
  public enum Kind {
    /** Hosted pages (checkout, receipts, links, print views), their status polls and QR images. */
    CHECKOUT,
    /**
     * The hosted pages' form POSTs, each of which sends a command (a link's payment creation, a
     * sandbox action): fewer per minute than page views.
     */
    PAGE_FORM,
    /** Provider callbacks. */
    CALLBACK,
    /** {@code /v1} requests answered 401 (missing, unknown or invalid API key). */
    FAILED_AUTHENTICATION,
    /**
     * The embedded panel's reads ({@code /embed/v1}) and the embed-token JWKS: browsers of the
     * merchant's users, with a token and no API key to count against.
     */
    EMBED
  }

  /** The answer for one request: allowed, or refused for {@code retryAfter}. */
  public record Decision(boolean allowed, Duration retryAfter) {}

  private final Map<Kind, Integer> perMinute = new EnumMap<>(Kind.class);
  private final Map<Kind, Cache<String, Bucket>> buckets = new EnumMap<>(Kind.class);

  public ClientAddressLimits(
      @Value("${gateway.edge.checkout-per-minute:120}") int checkout,
      @Value("${gateway.edge.page-forms-per-minute:30}") int pageForms,
      @Value("${gateway.edge.callbacks-per-minute:600}") int callbacks,
      @Value("${gateway.edge.failed-authentication-per-minute:20}") int failedAuthentication,
      @Value("${gateway.edge.embed-per-minute:300}") int embed) {
    perMinute.put(Kind.CHECKOUT, checkout);
    perMinute.put(Kind.PAGE_FORM, pageForms);
    perMinute.put(Kind.CALLBACK, callbacks);
    perMinute.put(Kind.FAILED_AUTHENTICATION, failedAuthentication);
    perMinute.put(Kind.EMBED, embed);
    for (Kind kind : Kind.values()) {
      buckets.put(
          kind,
          Caffeine.newBuilder()
              .expireAfterAccess(Duration.ofMinutes(2))
              .maximumSize(100_000)
              .build());
    }
  }

  /** Takes one token for {@code address}. */
  public Decision consume(Kind kind, String address) {
    Bucket bucket = bucket(kind, address);
    var probe = bucket.tryConsumeAndReturnRemaining(1);
    return new Decision(probe.isConsumed(), Duration.ofNanos(probe.getNanosToWaitForRefill()));
  }

  /** Whether {@code address} has a token left, without taking it. */
  public Decision peek(Kind kind, String address) {
    Bucket bucket = bucket(kind, address);
    if (bucket.getAvailableTokens() > 0) {
      return new Decision(true, Duration.ZERO);
    }
    return new Decision(
        false, Duration.ofNanos(bucket.estimateAbilityToConsume(1).getNanosToWaitForRefill()));
  }

  private Bucket bucket(Kind kind, String address) {
    int limit = perMinute.get(kind);
    return buckets
        .get(kind)
        .get(
            address,
            a ->
                Bucket.builder()
                    .addLimit(
                        Bandwidth.builder()
                            .capacity(limit)
                            .refillGreedy(limit, Duration.ofMinutes(1))
                            .build())
                    .build());
  }
}
