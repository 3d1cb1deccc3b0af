package ph.payments.webhooks.endpoints;

import java.time.Instant;
import java.util.List;

/**
 * A merchant's webhook endpoint (SPEC part 2, {@code webhook_endpoint}). Its signing secrets are
 * not part of it: they are read, encrypted, only when a delivery is signed.
 *
 * @param events event types delivered, or {@code ["*"]} for all
 */
public record WebhookEndpoint(
    String id,
    String merchantId,
    String environment,
    String url,
    List<String> events,
    String description,
    boolean enabled,
    Instant createdAt,
    Instant updatedAt) {

  public WebhookEndpoint {
    events = List.copyOf(events);
  }

  public boolean receives(String type) {
    return events.contains(EventTypes.ALL) || events.contains(type);
  }

  public WebhookEndpoint with(
      String newUrl,
      List<String> newEvents,
      String newDescription,
      boolean newEnabled,
      Instant now) {
    return new WebhookEndpoint(
        id, merchantId, environment, newUrl, newEvents, newDescription, newEnabled, createdAt, now);
  }
}
