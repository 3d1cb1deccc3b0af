package ph.payments.gateway.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.Environment;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;

/**
 * SPEC part 8's request rate over real HTTP, on the real clock: no key gets more than its limit
 * through in a minute, across threads and gateway instances. {@link SlidingWindowIT} moves the
 * clock.
 */
@MicronautTest
class RateLimitIT extends GatewayTest {

  private static final String READ = "/v1/test_probe";
  private static final String WRITE = "/v1/test_probe/write";
  private static final String FAILING = "/v1/test_rate_limit_probe/failing";

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("spec.name", "RateLimitIT");
  }

  @Test
  void aFreshKeyGetsExactlyOneHundredRequestsThenRateLimited() {
    Operator.Merchant merchant = operator().createMerchant("Busy Store");
    Http http = http();
    long firstSentAtMillis = System.currentTimeMillis();
    for (int i = 1; i <= 100; i++) {
      Http.Response admitted = http.get(READ, merchant.testSecret());
      assertEquals(200, admitted.status(), "request " + i + ": " + admitted);
      RateLimitHeaders headers = RateLimitHeaders.of(admitted);
      assertEquals(100, headers.limit());
      assertEquals(100 - i, headers.remaining());
    }
    long lastSentAtMillis = System.currentTimeMillis();

    Http.Response refused = http.get(READ, merchant.testSecret());
    assertEquals(429, refused.status(), refused.body());
    assertEquals("rate_limited", refused.errorCode());
    long retryAfter = RateLimitHeaders.retryAfterSeconds(refused);
    assertTrue(retryAfter <= 60, "a slot frees within the minute: " + retryAfter);
    RateLimitHeaders headers = RateLimitHeaders.of(refused);
    assertEquals(new RateLimitHeaders(100, 0, headers.resetEpochSeconds()), headers);
    // The first request leaves the window 60 s after it was admitted (rounded up to a second).
    assertTrue(
        headers.resetEpochSeconds() >= (firstSentAtMillis + 60_000) / 1000, headers::toString);
    assertTrue(
        headers.resetEpochSeconds() <= (lastSentAtMillis + 60_999) / 1000, headers::toString);

    Operator.Key sibling = operator().createKey(merchant.id(), "test", List.of("*"));
    Http.Response other = http.get(READ, sibling.secret());
    assertEquals(200, other.status(), "another key of the same merchant has its own limit");
    assertEquals(99, RateLimitHeaders.of(other).remaining());
    assertEquals(429, http.get(READ, merchant.testSecret()).status(), "still limited");
  }

  @Test
  void theLimitIsSharedByEveryGatewayInstance() throws Exception {
    Map<String, Object> properties = new HashMap<>(getProperties());
    EmbeddedServer second =
        ApplicationContext.run(EmbeddedServer.class, properties, Environment.TEST);
    try {
      Operator.Merchant merchant = operator().createMerchant("Replicated Store");
      List<Http> instances = List.of(http(), new Http(second.getURL().toString()));
      List<Callable<Integer>> requests = new ArrayList<>();
      for (int i = 0; i < 101; i++) {
        Http instance = instances.get(i % 2);
        requests.add(() -> instance.get(READ, merchant.testSecret()).status());
      }
      List<Integer> statuses = fireAtOnce(requests, 8);
      assertEquals(100, count(statuses, 200), statuses::toString);
      assertEquals(1, count(statuses, 429), statuses::toString);
      for (Http instance : instances) {
        assertEquals(429, instance.get(READ, merchant.testSecret()).status());
      }
    } finally {
      second.getApplicationContext().close();
    }
  }

  @Test
  void anOperatorOverrideSetsTheKeysLimitAndClearingItRestoresTheDefault() {
    Operator.Merchant merchant = operator().createMerchant("Negotiated Store");
    operator().setRateLimit(merchant.testKeyId(), 5);
    for (int i = 1; i <= 5; i++) {
      Http.Response admitted = http().get(READ, merchant.testSecret());
      assertEquals(200, admitted.status(), "request " + i);
      assertEquals(
          new RateLimitHeaders(5, 5 - i, RateLimitHeaders.of(admitted).resetEpochSeconds()),
          RateLimitHeaders.of(admitted));
    }
    Http.Response refused = http().get(READ, merchant.testSecret());
    assertEquals(429, refused.status());
    assertEquals("rate_limited", refused.errorCode());
    assertEquals(5, RateLimitHeaders.of(refused).limit());
    RateLimitHeaders.retryAfterSeconds(refused);

    operator().setRateLimit(merchant.testKeyId(), null);
    Http.Response restored = http().get(READ, merchant.testSecret());
    assertEquals(200, restored.status(), restored.body());
    RateLimitHeaders headers = RateLimitHeaders.of(restored);
    assertEquals(100, headers.limit());
    assertEquals(100 - 6, headers.remaining(), "the 5 earlier requests still count");
  }

  @Test
  void requestsToUnknownRoutesCountToo() {
    Operator.Merchant merchant = operator().createMerchant("Wandering Store");
    operator().setRateLimit(merchant.testKeyId(), 3);
    for (int i = 0; i < 3; i++) {
      assertEquals(404, http().get("/v1/no_such_route", merchant.testSecret()).status());
    }
    Http.Response refused = http().get(READ, merchant.testSecret());
    assertEquals(429, refused.status(), refused.body());
    assertEquals("rate_limited", refused.errorCode());
  }

  @Test
  void anOverrideAboveTheCeilingIsRefused() {
    Operator.Merchant merchant = operator().createMerchant("Greedy Store");
    Http.Response response =
        http()
            .post(
                "/admin/v1/api_keys/" + merchant.testKeyId() + "/rate_limit",
                ADMIN_TOKEN,
                "{\"rate_limit_per_minute\":10001}");
    assertEquals(400, response.status());
    assertEquals("invalid_request", response.errorCode());
  }

  @Test
  void concurrentRequestsOfOneKeyNeverExceedTheLimit() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Stampede Store");
    Http http = http();
    List<Callable<Integer>> requests = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      requests.add(() -> http.get(READ, merchant.testSecret()).status());
    }
    List<Integer> statuses = fireAtOnce(requests, 16);
    assertEquals(100, count(statuses, 200), statuses::toString);
    assertEquals(50, count(statuses, 429), statuses::toString);
  }

  @Test
  void requestsRefusedByAuthenticationAreNotCountedAndErrorsCarryTheHeaders() {
    Operator.Merchant merchant = operator().createMerchant("Careless Store");
    Operator.Key readOnly = operator().createKey(merchant.id(), "test", List.of("payments:read"));
    for (int i = 0; i < 3; i++) {
      Http.Response forbidden = http().post(WRITE, readOnly.secret(), "{}");
      assertEquals(403, forbidden.status());
      RateLimitHeaders.assertAbsent(forbidden);
    }
    RateLimitHeaders.assertAbsent(http().get(READ, "sk_test_" + "A".repeat(43)));

    Http.Response admitted = http().get(READ, readOnly.secret());
    assertEquals(200, admitted.status());
    assertEquals(99, RateLimitHeaders.of(admitted).remaining(), "the 403s were not counted");

    Http.Response failed = http().get(FAILING, readOnly.secret());
    assertEquals(400, failed.status(), failed.body());
    assertEquals("invalid_state", failed.errorCode());
    assertEquals(98, RateLimitHeaders.of(failed).remaining(), "an admitted request counts");
  }

  /** Runs every request on {@code threads} threads released at the same moment. */
  private static List<Integer> fireAtOnce(List<Callable<Integer>> requests, int threads)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> futures = new ArrayList<>();
      for (Callable<Integer> request : requests) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return request.call();
                }));
      }
      start.countDown();
      List<Integer> statuses = new ArrayList<>();
      for (Future<Integer> future : futures) {
        statuses.add(future.get(60, TimeUnit.SECONDS));
      }
      return statuses;
    } finally {
      pool.shutdownNow();
    }
  }

  private static long count(List<Integer> statuses, int status) {
    return statuses.stream().filter(s -> s == status).count();
  }
}
