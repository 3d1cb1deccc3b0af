package ph.payments.gateway.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.merchants.ApiKeyRow;
import ph.payments.gateway.merchants.MerchantRow;

class AuthenticatedKeysTest {

  private static final byte[] HASH = {1, 2, 3};
  private static final AuthenticatedKeys.Found FOUND =
      new AuthenticatedKeys.Found(
          new ApiKeyRow(
              "key_1",
              "mer_1",
              "test",
              HASH,
              "abcd",
              new String[] {"*"},
              null,
              Instant.EPOCH,
              null),
          new MerchantRow("mer_1", "Shop", "a@b.c", "active", false, Instant.EPOCH, Instant.EPOCH));

  private final AtomicInteger loads = new AtomicInteger();

  private Optional<AuthenticatedKeys.Found> load() {
    loads.incrementAndGet();
    return Optional.of(FOUND);
  }

  @Test
  void aFoundKeyIsReadOnceWithinItsTtlAndAgainAfterAnInvalidation() {
    AuthenticatedKeys keys = new AuthenticatedKeys(Duration.ofMinutes(1));
    keys.find(HASH, this::load);
    keys.find(HASH, this::load);
    assertEquals(1, loads.get());

    keys.invalidateAll();
    keys.find(HASH, this::load);
    assertEquals(2, loads.get());
  }

  @Test
  void aLoadThatStartedBeforeAnInvalidationIsAnsweredButNotKept() {
    AuthenticatedKeys keys = new AuthenticatedKeys(Duration.ofMinutes(1));
    // The change commits (and invalidates) while this lookup is reading the old rows.
    Optional<AuthenticatedKeys.Found> found =
        keys.find(
            HASH,
            () -> {
              keys.invalidateAll();
              return load();
            });
    assertTrue(found.isPresent());
    keys.find(HASH, this::load);
    assertEquals(2, loads.get(), "the stale rows were not cached");
  }

  @Test
  void anUnknownKeyIsNeverCachedAndAZeroTtlTurnsTheCacheOff() {
    AuthenticatedKeys keys = new AuthenticatedKeys(Duration.ofMinutes(1));
    keys.find(
        HASH,
        () -> {
          loads.incrementAndGet();
          return Optional.empty();
        });
    keys.find(HASH, this::load);
    assertEquals(2, loads.get());

    AuthenticatedKeys off = new AuthenticatedKeys(Duration.ZERO);
    off.find(HASH, this::load);
    off.find(HASH, this::load);
    assertEquals(4, loads.get());
  }

  @Test
  void cachedAnswersOnlyWhatFindWouldAnswerWithoutLoading() {
    AuthenticatedKeys keys = new AuthenticatedKeys(Duration.ofMinutes(1));
    assertFalse(keys.cached(HASH).isPresent(), "nothing found yet");
    keys.find(HASH, this::load);
    assertEquals(Optional.of(FOUND), keys.cached(HASH));
    assertFalse(keys.cached(new byte[] {9}).isPresent(), "another secret's hash");

    keys.invalidateAll();
    assertFalse(keys.cached(HASH).isPresent(), "a revocation is seen at once");
    assertEquals(1, loads.get(), "cached never loads");

    AuthenticatedKeys off = new AuthenticatedKeys(Duration.ZERO);
    off.find(HASH, this::load);
    assertFalse(off.cached(HASH).isPresent(), "a zero TTL keeps nothing");
  }
}
