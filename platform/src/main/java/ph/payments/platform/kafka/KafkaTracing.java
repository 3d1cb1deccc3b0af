package ph.payments.platform.kafka;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import ph.payments.contracts.Envelope;
import ph.payments.platform.tracing.RequestIds;
import ph.payments.platform.tracing.Tracing;

/**
 * Consuming a record inside the trace its producer started: a {@code CONSUMER} span, child of the
 * record's {@code traceparent}, current (and in the MDC with the record's request id) while the
 * work runs, so what the work writes to its outbox carries the same trace on.
 */
public final class KafkaTracing {

  /** Work on one record that may fail. */
  public interface Work<T, E extends Exception> {
    T run() throws E;
  }

  /**
   * Runs {@code work} in a span named {@code <consumer> <message type>}.
   *
   * @param consumer who consumes (the applier's name), part of the span's name
   */
  public static <T, E extends Exception> T consume(
      String consumer, ConsumerRecord<String, byte[]> record, Work<T, E> work) throws E {
    Context parent = Tracing.extract(name -> header(record, name));
    String type = header(record, Envelope.HEADER_TYPE);
    String requestId = header(record, KafkaEnvelopes.ATTRIBUTE_PREFIX + RequestIds.ATTRIBUTE);
    Span span =
        Tracing.tracer()
            .spanBuilder(consumer + " " + (type == null ? record.topic() : type))
            .setParent(parent)
            .setSpanKind(SpanKind.CONSUMER)
            .setAttribute("messaging.system", "kafka")
            .setAttribute("messaging.destination.name", record.topic())
            .setAttribute("messaging.kafka.message.key", String.valueOf(record.key()))
            .setAttribute("messaging.kafka.offset", record.offset())
            .startSpan();
    if (requestId != null) {
      span.setAttribute(Tracing.REQUEST_ID_ATTRIBUTE, requestId);
    }
    Map<String, String> previousMdc = Tracing.putMdc(span, requestId);
    try (Scope ignored = span.makeCurrent()) {
      return work.run();
    } catch (Exception | Error e) {
      span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
      throw e;
    } finally {
      Tracing.restoreMdc(previousMdc);
      span.end();
    }
  }

  /**
   * A {@code PRODUCER} span for publishing {@code envelope} to {@code topic}, child of the trace
   * its writer recorded in the envelope's {@code traceparent} attribute, started when the message
   * was written ({@link Envelope#time}), so the trace shows the time the message waited in the
   * outbox as well as the broker's acknowledgement. Invalid (nothing to end or record) when the
   * envelope carries no trace or tracing is off. End it when the broker has answered.
   */
  public static Span publish(String topic, Envelope envelope) {
    String traceparent = envelope.attributes().get(Tracing.TRACEPARENT);
    if (traceparent == null) {
      return Span.getInvalid();
    }
    return Tracing.tracer()
        .spanBuilder("publish " + envelope.type())
        .setParent(Tracing.extract(envelope.attributes()::get))
        .setSpanKind(SpanKind.PRODUCER)
        .setStartTimestamp(envelope.time())
        .setAttribute("messaging.system", "kafka")
        .setAttribute("messaging.destination.name", topic)
        .setAttribute("messaging.kafka.message.key", String.valueOf(envelope.key()))
        .startSpan();
  }

  /**
   * {@code envelope} carrying {@code span} as its {@code traceparent}, so its consumers are
   * children of the publishing; unchanged when the span is invalid.
   */
  public static Envelope carrying(Span span, Envelope envelope) {
    if (!span.getSpanContext().isValid()) {
      return envelope;
    }
    Map<String, String> context = new HashMap<>();
    try (Scope ignored = span.makeCurrent()) {
      Tracing.injectCurrent(context);
    }
    Map<String, String> attributes = new HashMap<>(envelope.attributes());
    attributes.putAll(context);
    return new Envelope(
        envelope.messageId(),
        envelope.type(),
        envelope.key(),
        envelope.time(),
        envelope.payload(),
        attributes);
  }

  /** Ends a {@link #publish} span with the broker's answer ({@code failure} null: acknowledged). */
  public static void published(Span span, Exception failure) {
    if (failure != null) {
      span.setStatus(StatusCode.ERROR, failure.getClass().getSimpleName());
    }
    span.end();
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }

  private KafkaTracing() {}
}
