package ph.payments.platform.outbox;

import java.util.Map;
import java.util.Objects;
import ph.payments.platform.ids.IdType;

/**
 * A message to publish once the surrounding transaction commits.
 *
 * @param messageId unique; consumers deduplicate on it
 * @param topic Kafka topic
 * @param key Kafka key: the aggregate or command id, which fixes the order of its messages
 * @param type message type, e.g. {@code payment.succeeded}
 * @param payload JSON bytes, published exactly as given
 * @param attributes extra facts published as headers (see {@code Envelope.attributes})
 */
public record OutboxMessage(
    String messageId,
    String topic,
    String key,
    String type,
    byte[] payload,
    Map<String, String> attributes) {

  public OutboxMessage(String messageId, String topic, String key, String type, byte[] payload) {
    this(messageId, topic, key, type, payload, Map.of());
  }

  public OutboxMessage {
    Objects.requireNonNull(messageId, "messageId");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(payload, "payload");
    attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
  }

  /** A message with a freshly generated {@code msg_} id. */
  public static OutboxMessage of(String topic, String key, String type, byte[] payload) {
    return new OutboxMessage(IdType.MESSAGE.generate(), topic, key, type, payload);
  }
}
