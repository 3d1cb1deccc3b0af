package ph.payments.webhooks.deliveries;

import java.time.Duration;

/**
 * What one HTTP attempt came to.
 *
 * @param statusCode the receiver's status, or null when there was no response (timeout, refused
 *     connection, refused target)
 * @param error what went wrong, or null for a 2xx; never contains a secret
 * @param responseSnippet at most 1 KB of the response body, or null
 * @param latencyMillis from sending to the response (or the failure)
 * @param retryAfter the receiver's {@code Retry-After} on a 429 or 503, or null
 */
public record AttemptOutcome(
    Integer statusCode,
    String error,
    String responseSnippet,
    long latencyMillis,
    Duration retryAfter) {

  public boolean succeeded() {
    return statusCode != null && statusCode >= 200 && statusCode < 300;
  }

  public static AttemptOutcome failure(String error, long latencyMillis) {
    return new AttemptOutcome(null, error, null, latencyMillis, null);
  }
}
