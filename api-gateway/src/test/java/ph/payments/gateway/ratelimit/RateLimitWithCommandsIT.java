package ph.payments.gateway.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;

/**
 * {@code POST /v1/payments} is {@link DecidedWithCommand}: its rate-limit decision is taken in the
 * statement that writes its command. Over real HTTP, the answers are those of every other route: a
 * request over the limit is answered 429 with the headers and writes no command and no idempotency
 * record, whether it had a key, a bad body or neither; every request counts once. No owner runs
 * here, so an admitted creation is answered 202 after the short reply timeout.
 */
@MicronautTest
class RateLimitWithCommandsIT extends GatewayTest {

  private static final String CREATE = "/v1/payments";
  private static final String VALID = "{\"amount\":100.00,\"method\":\"ewallet1\"}";
  private static final String INVALID = "{\"amount\":0,\"method\":\"ewallet1\"}";

  @Inject DataSource dataSource;
  @Inject MeterRegistry metrics;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("gateway.commands.reply-timeout", "100ms");
  }

  @Test
  void creationsOverTheLimitAreRefusedAndWriteNothing() throws SQLException {
    Operator.Merchant merchant = operator().createMerchant("Limited Creations");
    operator().setRateLimit(merchant.testKeyId(), 3);
    Http http = http();
    DistributionSummary limiterStatements = metrics.get("gateway.rate_limit.batch").summary();
    long limiterStatementsBefore = limiterStatements.count();
    for (int i = 1; i <= 3; i++) {
      Http.Response accepted = http.post(CREATE, merchant.testSecret(), VALID);
      assertEquals(202, accepted.status(), "creation " + i + ": " + accepted);
      RateLimitHeaders headers = RateLimitHeaders.of(accepted);
      assertEquals(3, headers.limit());
      assertEquals(3 - i, headers.remaining());
    }
    assertEquals(
        limiterStatementsBefore,
        limiterStatements.count(),
        "admitted creations are decided in their commands' statements, not the limiter's own");

    Http.Response refused = http.post(CREATE, merchant.testSecret(), VALID);
    assertRefused(refused, 3);
    Http.Response keyed =
        http.post(CREATE, merchant.testSecret(), VALID, "Idempotency-Key", "over-the-limit");
    assertRefused(keyed, 3);
    Http.Response invalid = http.post(CREATE, merchant.testSecret(), INVALID);
    assertRefused(invalid, 3);
    Http.Response malformed = http.post(CREATE, merchant.testSecret(), "{\"amount\":");
    assertRefused(malformed, 3);

    assertEquals(3, commandsOf(merchant), "only the admitted creations wrote commands");
    assertEquals(0, idempotencyRecordsOf(merchant), "the refused keyed request claimed nothing");
  }

  @Test
  void requestsThatEndBeforeTheirCommandAndKeyedRequestsCountOnce() throws SQLException {
    Operator.Merchant merchant = operator().createMerchant("Counted Creations");
    operator().setRateLimit(merchant.testKeyId(), 4);
    Http http = http();

    Http.Response invalid = http.post(CREATE, merchant.testSecret(), INVALID);
    assertEquals(400, invalid.status(), invalid.body());
    assertEquals(3, RateLimitHeaders.of(invalid).remaining(), "a bad body is counted");
    Http.Response badKey =
        http.post(CREATE, merchant.testSecret(), VALID, "Idempotency-Key", "x".repeat(300));
    assertEquals(400, badKey.status(), badKey.body());
    assertEquals(2, RateLimitHeaders.of(badKey).remaining(), "a bad key is counted");

    Http.Response first =
        http.post(CREATE, merchant.testSecret(), VALID, "Idempotency-Key", "counted-once");
    assertEquals(202, first.status(), first.body());
    assertEquals(1, RateLimitHeaders.of(first).remaining());
    Http.Response replay =
        http.post(CREATE, merchant.testSecret(), VALID, "Idempotency-Key", "counted-once");
    assertTrue(replay.status() == 202 || replay.status() == 409, replay.toString());
    assertEquals(0, RateLimitHeaders.of(replay).remaining(), "a replay is a request too");

    assertRefused(http.post(CREATE, merchant.testSecret(), VALID), 4);
    assertEquals(1, commandsOf(merchant));
    assertEquals(1, idempotencyRecordsOf(merchant));
  }

  /**
   * Concurrent creations of one key share statements: a statement with a request over the limit
   * writes nothing, and its requests are decided again one by one. Exactly the limit gets through,
   * and exactly those wrote commands.
   */
  @Test
  void concurrentCreationsOfOneKeyWriteExactlyTheLimit() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Stampeding Creations");
    operator().setRateLimit(merchant.testKeyId(), 25);
    Http http = http();
    ExecutorService pool = Executors.newFixedThreadPool(16);
    List<Integer> statuses = new ArrayList<>();
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> futures = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return http.post(CREATE, merchant.testSecret(), VALID).status();
                }));
      }
      start.countDown();
      for (Future<Integer> future : futures) {
        statuses.add(future.get(60, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(25, statuses.stream().filter(s -> s == 202).count(), statuses::toString);
    assertEquals(35, statuses.stream().filter(s -> s == 429).count(), statuses::toString);
    assertEquals(25, commandsOf(merchant));
  }

  private static void assertRefused(Http.Response response, int limit) {
    assertEquals(429, response.status(), response.toString());
    assertEquals("rate_limited", response.errorCode());
    assertTrue(RateLimitHeaders.retryAfterSeconds(response) <= 60, response::toString);
    RateLimitHeaders headers = RateLimitHeaders.of(response);
    assertEquals(limit, headers.limit());
    assertEquals(0, headers.remaining());
  }

  private int commandsOf(Operator.Merchant merchant) throws SQLException {
    return count("SELECT count(*) FROM commands WHERE merchant_id = ?", merchant.id());
  }

  private int idempotencyRecordsOf(Operator.Merchant merchant) throws SQLException {
    return count("SELECT count(*) FROM idempotency_keys WHERE merchant_id = ?", merchant.id());
  }

  private int count(String sql, String merchantId) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(sql)) {
      query.setString(1, merchantId);
      try (ResultSet rs = query.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }
}
