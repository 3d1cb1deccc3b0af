package ph.payments.gateway.ratelimit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ph.payments.gateway.support.Http;

/** The {@code X-RateLimit-*} headers of a response, which must all be present and integers. */
record RateLimitHeaders(int limit, int remaining, long resetEpochSeconds) {

  static RateLimitHeaders of(Http.Response response) {
    return new RateLimitHeaders(
        Integer.parseInt(header(response, RateLimitFilter.LIMIT_HEADER)),
        Integer.parseInt(header(response, RateLimitFilter.REMAINING_HEADER)),
        Long.parseLong(header(response, RateLimitFilter.RESET_HEADER)));
  }

  static void assertAbsent(Http.Response response) {
    assertFalse(response.header(RateLimitFilter.LIMIT_HEADER).isPresent(), response.toString());
    assertFalse(response.header(RateLimitFilter.REMAINING_HEADER).isPresent());
    assertFalse(response.header(RateLimitFilter.RESET_HEADER).isPresent());
  }

  /** {@code Retry-After} of a 429: whole seconds, at least 1. */
  static long retryAfterSeconds(Http.Response response) {
    String value = header(response, "Retry-After");
    assertTrue(value.matches("[0-9]+"), "Retry-After is integer seconds: " + value);
    long seconds = Long.parseLong(value);
    assertTrue(seconds >= 1, "Retry-After at least 1: " + value);
    return seconds;
  }

  private static String header(Http.Response response, String name) {
    return response
        .header(name)
        .orElseThrow(() -> new AssertionError("no " + name + " on " + response));
  }
}
