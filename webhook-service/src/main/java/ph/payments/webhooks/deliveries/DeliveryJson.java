package ph.payments.webhooks.deliveries;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import ph.payments.platform.json.Json;

/**
 * Deliveries and attempts as the API shows them. A delivery's id is {@code whd_} followed by the
 * number receivers see in {@code X-Service-Delivery}; paths accept either form. Attempts are {@code
 * wha_<n>}.
 */
public final class DeliveryJson {

  public static final String DELIVERY_PREFIX = "whd_";
  public static final String ATTEMPT_PREFIX = "wha_";
  private static final Pattern NUMBER = Pattern.compile("[1-9][0-9]{0,17}");

  public static String id(long delivery) {
    return DELIVERY_PREFIX + delivery;
  }

  /** The delivery number of {@code whd_42} or {@code 42}; empty for anything else. */
  public static OptionalLong parseDelivery(String id) {
    return parse(id, DELIVERY_PREFIX, true);
  }

  /** The attempt number of {@code wha_17}; empty for anything else. */
  public static OptionalLong parseAttempt(String id) {
    return parse(id, ATTEMPT_PREFIX, false);
  }

  private static OptionalLong parse(String id, String prefix, boolean bareAllowed) {
    if (id == null) {
      return OptionalLong.empty();
    }
    String digits = id.startsWith(prefix) ? id.substring(prefix.length()) : bareAllowed ? id : "";
    return NUMBER.matcher(digits).matches()
        ? OptionalLong.of(Long.parseLong(digits))
        : OptionalLong.empty();
  }

  public static ObjectNode of(DeliveryView d) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("id", id(d.id()));
    json.put("object", "webhook_delivery");
    json.put("endpoint", d.endpointId());
    json.put("url", d.url());
    json.put("event", d.eventId());
    json.put("event_type", d.eventType());
    json.put("status", d.status().wire());
    json.put("attempt_count", d.attemptCount());
    json.put(
        "next_attempt_at",
        seconds(d.status() == DeliveryStatus.PENDING ? d.nextAttemptAt() : null));
    json.put("last_attempt_at", seconds(d.lastAttemptAt()));
    json.put("last_status_code", d.lastStatusCode());
    json.put("last_error", d.lastError());
    json.put("created", d.createdAt().getEpochSecond());
    json.put("completed_at", seconds(d.completedAt()));
    return json;
  }

  public static ObjectNode attempt(AttemptView a) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("id", ATTEMPT_PREFIX + a.id());
    json.put("object", "webhook_attempt");
    json.put("delivery", id(a.deliveryId()));
    json.put("attempt", a.attemptNumber());
    json.put("url", a.url());
    json.put("attempted_at", a.attemptedAt().getEpochSecond());
    json.put("status_code", a.statusCode());
    json.put("latency_ms", a.latencyMillis());
    json.put("error", a.error());
    json.put("response_snippet", a.responseSnippet());
    return json;
  }

  private static Long seconds(Instant instant) {
    return instant == null ? null : instant.getEpochSecond();
  }

  private DeliveryJson() {}
}
