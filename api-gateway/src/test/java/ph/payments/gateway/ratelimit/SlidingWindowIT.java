package ph.payments.gateway.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;
import ph.payments.testkit.TestDatabase;

/**
 * The window slides exactly, seen over HTTP with the gateway's clock in the test's hand ({@link
 * MovableClock}): whatever the timing, no 60-second window admits more than the limit, and a slot
 * frees the moment a request leaves the window, not at some refill.
 */
// Not transactional: a purge called from the test must commit, or its row locks would hold up
// the requests that follow until the test ends.
@MicronautTest(transactional = false)
class SlidingWindowIT extends GatewayTest {

  private static final String READ = "/v1/test_probe";

  @Inject MovableClock clock;
  @Inject PurgeIdleRateLimits purge;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("spec.name", "SlidingWindowIT");
  }

  @Test
  void theWindowSlidesExactly() {
    Operator.Merchant merchant = operator().createMerchant("Steady Store");
    Client client = new Client(merchant.testSecret());
    long t0 = nextWholeSecond();

    client.at(t0).expectAdmitted(60);
    client.at(t0 + 30_000).expectAdmitted(40);

    Http.Response refused = client.at(t0 + 59_000).send();
    assertEquals(429, refused.status());
    assertEquals("rate_limited", refused.errorCode());
    assertEquals(1, RateLimitHeaders.retryAfterSeconds(refused), "the first 60 leave at 60 s");
    assertEquals(new RateLimitHeaders(100, 0, (t0 + 60_000) / 1000), RateLimitHeaders.of(refused));
    client.at(t0 + 59_999).expectRefused(5); // hammering does not extend the lockout

    client.at(t0 + 60_001).expectAdmitted(60);
    Http.Response full = client.at(t0 + 60_001).send();
    assertEquals(429, full.status(), "the 40 from 30 s still count");
    assertEquals(30, RateLimitHeaders.retryAfterSeconds(full), "29.999 s, rounded up");
    assertEquals(new RateLimitHeaders(100, 0, (t0 + 90_000) / 1000), RateLimitHeaders.of(full));

    client.at(t0 + 89_999).expectRefused(1);
    client.at(t0 + 90_000).expectAdmitted(40);
    client.at(t0 + 90_000).expectRefused(1);

    client.assertNoWindowAdmittedMoreThan(100);
    assertEquals(200, client.admitted.size());
  }

  @Test
  void rowsOfKeysIdleForMoreThanAnHourArePurged() throws SQLException {
    Operator.Merchant idle = operator().createMerchant("Sleepy Store");
    Operator.Merchant busy = operator().createMerchant("Lively Store");
    long t0 = nextWholeSecond();
    new Client(idle.testSecret()).at(t0).expectAdmitted(3);
    new Client(busy.testSecret()).at(t0).expectAdmitted(1);

    clock.set(Instant.ofEpochMilli(t0).plus(Duration.ofHours(1)));
    purge.purge();
    assertEquals(2, rowsOf(idle.testKeyId(), busy.testKeyId()), "idle for exactly an hour: kept");

    new Client(busy.testSecret()).at(t0 + 3_600_001).expectAdmitted(1);
    purge.purge();
    assertEquals(0, rowsOf(idle.testKeyId()), "idle for more than an hour: purged");
    assertEquals(1, rowsOf(busy.testKeyId()));

    Http.Response again = new Client(idle.testSecret()).at(t0 + 3_600_002).send();
    assertEquals(200, again.status());
    assertEquals(99, RateLimitHeaders.of(again).remaining(), "a purged key starts afresh");
  }

  /** A time ahead of the clock on a whole second, so header values are exact. */
  private long nextWholeSecond() {
    return (clock.millis() / 1000 + 2) * 1000;
  }

  private long rowsOf(String... apiKeyIds) throws SQLException {
    try (Connection connection = TestDatabase.forClass(getClass()).dataSource().getConnection();
        PreparedStatement select =
            connection.prepareStatement(
                "SELECT count(*) FROM rate_limits WHERE api_key_id = ANY (?)")) {
      select.setArray(1, connection.createArrayOf("text", apiKeyIds));
      try (ResultSet rs = select.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** One key's requests at times the test chooses, remembering when each was admitted. */
  private final class Client {

    private final String secret;
    private final List<Long> admitted = new ArrayList<>();
    private long nowMillis;

    Client(String secret) {
      this.secret = secret;
    }

    Client at(long millis) {
      nowMillis = millis;
      clock.set(Instant.ofEpochMilli(millis));
      return this;
    }

    Http.Response send() {
      Http.Response response = http().get(READ, secret);
      if (response.status() == 200) {
        admitted.add(nowMillis);
      }
      return response;
    }

    void expectAdmitted(int requests) {
      for (int i = 0; i < requests; i++) {
        Http.Response response = send();
        assertEquals(200, response.status(), "at " + nowMillis + ": " + response);
      }
    }

    void expectRefused(int requests) {
      for (int i = 0; i < requests; i++) {
        Http.Response response = send();
        assertEquals(429, response.status(), "at " + nowMillis + ": " + response);
      }
    }

    void assertNoWindowAdmittedMoreThan(int limit) {
      for (long start : admitted) {
        long inWindow = admitted.stream().filter(at -> at >= start && at < start + 60_000).count();
        assertTrue(inWindow <= limit, inWindow + " admitted in the 60 s from " + start);
      }
    }
  }
}
