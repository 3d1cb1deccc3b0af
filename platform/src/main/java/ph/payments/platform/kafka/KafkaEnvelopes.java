package ph.payments.platform.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import ph.payments.contracts.Envelope;
import ph.payments.platform.tracing.Tracing;

/**
 * Maps {@link Envelope} to and from Kafka records: payload as value, the rest as headers. The
 * attribute {@code traceparent} travels under its W3C name, unprefixed, so any tracing-aware Kafka
 * tool reads it.
 */
public final class KafkaEnvelopes {

  /** Envelope attributes travel as headers with this prefix. */
  public static final String ATTRIBUTE_PREFIX = "attr-";

  public static ProducerRecord<String, byte[]> toRecord(String topic, Envelope envelope) {
    Headers headers = new RecordHeaders();
    headers.add(Envelope.HEADER_MESSAGE_ID, utf8(envelope.messageId()));
    headers.add(Envelope.HEADER_TYPE, utf8(envelope.type()));
    headers.add(Envelope.HEADER_TIME, utf8(envelope.time().toString()));
    envelope.attributes().forEach((name, value) -> headers.add(headerName(name), utf8(value)));
    return new ProducerRecord<>(topic, null, envelope.key(), envelope.payload(), headers);
  }

  /**
   * @throws IllegalArgumentException when a header is missing: the record did not come from an
   *     outbox of this system
   */
  public static Envelope fromRecord(ConsumerRecord<String, byte[]> record) {
    Headers headers = record.headers();
    Map<String, String> attributes = new HashMap<>();
    for (Header header : headers) {
      if (header.key().startsWith(ATTRIBUTE_PREFIX)) {
        attributes.put(
            header.key().substring(ATTRIBUTE_PREFIX.length()),
            new String(header.value(), StandardCharsets.UTF_8));
      } else if (header.key().equals(Tracing.TRACEPARENT)) {
        attributes.put(Tracing.TRACEPARENT, new String(header.value(), StandardCharsets.UTF_8));
      }
    }
    return new Envelope(
        header(headers, Envelope.HEADER_MESSAGE_ID),
        header(headers, Envelope.HEADER_TYPE),
        record.key(),
        Instant.parse(header(headers, Envelope.HEADER_TIME)),
        record.value(),
        attributes);
  }

  private static String headerName(String attribute) {
    return attribute.equals(Tracing.TRACEPARENT) ? attribute : ATTRIBUTE_PREFIX + attribute;
  }

  private static String header(Headers headers, String name) {
    Header header = headers.lastHeader(name);
    if (header == null) {
      throw new IllegalArgumentException("record without header " + name);
    }
    return new String(header.value(), StandardCharsets.UTF_8);
  }

  private static byte[] utf8(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }

  private KafkaEnvelopes() {}
}
