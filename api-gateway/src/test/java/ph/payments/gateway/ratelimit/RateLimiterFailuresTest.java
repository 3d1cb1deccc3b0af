package ph.payments.gateway.ratelimit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Which failed batches the rate limiter decides again request by request: those that may be one
 * request's fault, not those of a database that is away (each request would then fail again after
 * its own wait for a connection).
 */
class RateLimiterFailuresTest {

  @Test
  void aRequestsBadDataOrADeadlockIsDecidedAgainOneByOne() {
    assertTrue(RateLimiter.aboutTheRequests("22021"), "invalid byte sequence (a NUL in a key)");
    assertTrue(RateLimiter.aboutTheRequests("40P01"), "deadlock");
    assertTrue(RateLimiter.aboutTheRequests("P0001"), "raised by the function");
  }

  @Test
  void aDatabaseThatIsAwayFailsTheWholeBatchAtOnce() {
    assertFalse(RateLimiter.aboutTheRequests("08006"), "connection failure");
    assertFalse(RateLimiter.aboutTheRequests("08001"), "cannot connect");
    assertFalse(RateLimiter.aboutTheRequests("57P01"), "administrator shutdown");
    assertFalse(RateLimiter.aboutTheRequests("53300"), "too many connections");
    assertFalse(RateLimiter.aboutTheRequests("58030"), "I/O error");
    assertFalse(RateLimiter.aboutTheRequests(null), "no SQLSTATE");
  }
}
