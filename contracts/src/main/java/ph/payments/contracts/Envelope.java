package ph.payments.contracts;

import java.time.Instant;
import java.util.Arrays;
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
 */
public record Envelope(String messageId, String type, String key, Instant time, byte[] payload) {

  public static final String HEADER_MESSAGE_ID = "message-id";
  public static final String HEADER_TYPE = "message-type";
  public static final String HEADER_TIME = "message-time";

  public Envelope {
    Objects.requireNonNull(messageId, "messageId");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(time, "time");
    Objects.requireNonNull(payload, "payload");
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Envelope that
        && messageId.equals(that.messageId)
        && type.equals(that.type)
        && key.equals(that.key)
        && time.equals(that.time)
        && Arrays.equals(payload, that.payload);
  }

  @Override
  public int hashCode() {
    return Objects.hash(messageId, type, key, time, Arrays.hashCode(payload));
  }

  @Override
  public String toString() {
    return "Envelope[" + messageId + " " + type + " key=" + key + " at " + time + "]";
  }
}
