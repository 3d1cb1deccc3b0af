package ph.payments.contracts;

import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * One message on a Kafka topic. On the wire the payload is the record value, byte for byte (so a
 * webhook can sign exactly what the event log stored), the key is the record key, and the other
 * fields travel as headers named by the constants below.
 *
 * @param messageId globally unique; consumers deduplicate on it
 * @param type what the payload is, e.g. {@code payment.succeeded} or {@code command.system.ping}
 * @param key the aggregate or command id; decides the partition and so the order
 * @param time when the message was written to the outbox
 * @param payload JSON bytes
 * @param attributes further routing facts that are not part of the payload, e.g. the merchant an
 *     event belongs to ({@link #ATTRIBUTE_MERCHANT_ID}); travel as headers too
 */
public record Envelope(
    String messageId,
    String type,
    String key,
    Instant time,
    byte[] payload,
    Map<String, String> attributes) {

  public static final String HEADER_MESSAGE_ID = "message-id";
  public static final String HEADER_TYPE = "message-type";
  public static final String HEADER_TIME = "message-time";

  /** Attribute naming the merchant ({@code mer_…}) an event or command belongs to. */
  public static final String ATTRIBUTE_MERCHANT_ID = "merchant-id";

  /** Attribute carrying a payment's {@code webhook_url} override (not part of the resource). */
  public static final String ATTRIBUTE_WEBHOOK_URL = "webhook-url";

  public Envelope(String messageId, String type, String key, Instant time, byte[] payload) {
    this(messageId, type, key, time, payload, Map.of());
  }

  public Envelope {
    Objects.requireNonNull(messageId, "messageId");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(time, "time");
    Objects.requireNonNull(payload, "payload");
    attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
  }

  /** An attribute's value, or null. */
  public String attribute(String name) {
    return attributes.get(name);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Envelope that
        && messageId.equals(that.messageId)
        && type.equals(that.type)
        && key.equals(that.key)
        && time.equals(that.time)
        && Arrays.equals(payload, that.payload)
        && attributes.equals(that.attributes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(messageId, type, key, time, Arrays.hashCode(payload), attributes);
  }

  @Override
  public String toString() {
    return "Envelope[" + messageId + " " + type + " key=" + key + " at " + time + "]";
  }
}
