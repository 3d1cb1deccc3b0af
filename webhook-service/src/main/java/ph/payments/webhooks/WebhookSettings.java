package ph.payments.webhooks;

import java.time.Duration;
import ph.payments.webhooks.deliveries.RetrySchedule;

/**
 * What webhook-service is configured with (application.yml, environment variables in brackets).
 *
 * @param retrySchedule waits between attempts after each failure ({@code WEBHOOK_RETRY_SCHEDULE})
 * @param retryJitter each wait is varied by up to this fraction either way, e.g. 0.1
 * @param timeout connect and acknowledgement time of one attempt ({@code WEBHOOK_TIMEOUT})
 * @param allowPrivateTargets deliveries of both environments may go to loopback and private
 *     addresses ({@code WEBHOOK_ALLOW_PRIVATE_TARGETS}; local development only); link-local and
 *     metadata addresses stay refused either way ({@link
 *     ph.payments.webhooks.targets.TargetPolicy})
 * @param maxEndpoints endpoints per merchant environment
 * @param rotationOverlap how long a rotated-out secret keeps signing
 * @param concurrency attempts in flight per service instance
 * @param perTarget attempts in flight per endpoint (or per override host) and instance
 * @param pollInterval longest wait of the scheduler between two looks at the queue
 * @param retention how long attempts and finished deliveries are kept
 */
public record WebhookSettings(
    RetrySchedule retrySchedule,
    double retryJitter,
    Duration timeout,
    boolean allowPrivateTargets,
    int maxEndpoints,
    Duration rotationOverlap,
    int concurrency,
    int perTarget,
    Duration pollInterval,
    Duration retention) {

  public WebhookSettings {
    if (concurrency < 1 || perTarget < 1) {
      throw new IllegalArgumentException("delivery concurrency must be at least 1");
    }
    if (retryJitter < 0 || retryJitter >= 1) {
      throw new IllegalArgumentException("retry jitter must be in [0, 1)");
    }
  }

  /**
   * How long a claimed delivery stays away from other schedulers: longer than any attempt can take
   * (the timeout cuts it off), so only a crashed instance's deliveries come back, and soon.
   */
  public Duration lease() {
    return timeout.multipliedBy(2).plusSeconds(30);
  }
}
