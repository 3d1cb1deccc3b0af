package ph.payments.webhooks.deliveries;

import java.time.Instant;

/**
 * A delivery as the API shows it.
 *
 * @param url where it goes: the override URL, or the endpoint's current URL
 */
public record DeliveryView(
    long id,
    String merchantId,
    String environment,
    String endpointId,
    String url,
    String eventId,
    String eventType,
    DeliveryStatus status,
    int attemptCount,
    Instant nextAttemptAt,
    Integer lastStatusCode,
    String lastError,
    Instant lastAttemptAt,
    Instant createdAt,
    Instant completedAt) {}
