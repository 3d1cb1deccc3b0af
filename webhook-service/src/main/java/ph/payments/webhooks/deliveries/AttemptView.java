package ph.payments.webhooks.deliveries;

import java.time.Instant;

/** One recorded attempt of a delivery. */
public record AttemptView(
    long id,
    long deliveryId,
    int attemptNumber,
    String url,
    Instant attemptedAt,
    Integer statusCode,
    long latencyMillis,
    String error,
    String responseSnippet) {}
