package ph.payments.platform.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
import ph.payments.contracts.Envelope;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.KafkaTracing;

/**
 * The hand-over in the middle of the command path, without the network: what a writer in a span
 * stores with its outbox row goes out as a W3C {@code traceparent} record header, and the consumer
 * of that record works in a child span of the writer's, with the writer's request id in its MDC.
 */
class TraceContextThroughMessagesTest {

  private final InMemorySpanExporter exported = InMemorySpanExporter.create();
  private OpenTelemetrySdk sdk;

  @BeforeEach
  void install() {
    sdk =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exported))
                    .build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    Tracing.use(sdk);
  }

  @AfterEach
  void uninstall() {
    Tracing.use(io.opentelemetry.api.OpenTelemetry.noop());
    sdk.close();
    MDC.clear();
  }

  @Test
  void theWritersSpanIsTheParentOfTheConsumersSpan() throws Exception {
    Span writer = Tracing.tracer().spanBuilder("POST /v1/payments").startSpan();
    Map<String, String> attributes;
    try (Scope ignored = writer.makeCurrent()) {
      MDC.put(RequestIds.MDC_KEY, "req-1");
      attributes = MessageContext.withCurrent(Map.of("merchant-id", "mer_1"));
      MDC.remove(RequestIds.MDC_KEY);
    } finally {
      writer.end();
    }
    assertEquals("mer_1", attributes.get("merchant-id"));
    assertEquals("req-1", attributes.get(RequestIds.ATTRIBUTE));

    Envelope envelope =
        new Envelope(
            "msg_1", "command.x", "cmd_1", Instant.now(), new byte[] {'{', '}'}, attributes);
    ProducerRecord<String, byte[]> produced = KafkaEnvelopes.toRecord("commands", envelope);
    String traceparent =
        new String(
            produced.headers().lastHeader("traceparent").value(),
            java.nio.charset.StandardCharsets.UTF_8);
    assertEquals(
        "00-"
            + writer.getSpanContext().getTraceId()
            + "-"
            + writer.getSpanContext().getSpanId()
            + "-01",
        traceparent);
    assertNull(produced.headers().lastHeader("attr-traceparent"), "under its W3C name only");

    ConsumerRecord<String, byte[]> consumed =
        new ConsumerRecord<>("commands", 0, 7L, "cmd_1", produced.value());
    produced.headers().forEach(h -> consumed.headers().add(h));
    assertEquals(envelope, KafkaEnvelopes.fromRecord(consumed), "the envelope round-trips");

    String[] seen = new String[2];
    KafkaTracing.consume(
        "payments",
        consumed,
        () -> {
          seen[0] = MDC.get(RequestIds.MDC_KEY);
          seen[1] = MDC.get(Tracing.MDC_TRACE_ID);
          return null;
        });
    assertEquals("req-1", seen[0]);
    assertEquals(writer.getSpanContext().getTraceId(), seen[1]);
    assertNull(MDC.get(RequestIds.MDC_KEY), "the MDC is restored after the record");

    List<SpanData> spans = exported.getFinishedSpanItems();
    SpanData consumer = spans.get(spans.size() - 1);
    assertEquals("payments command.x", consumer.getName());
    assertEquals(writer.getSpanContext().getTraceId(), consumer.getTraceId());
    assertEquals(writer.getSpanContext().getSpanId(), consumer.getParentSpanId());
    assertEquals(
        "req-1",
        consumer
            .getAttributes()
            .get(io.opentelemetry.api.common.AttributeKey.stringKey("request.id")));
  }

  @Test
  void theRelaysPublishingIsAProducerSpanBetweenTheWriterAndTheConsumer() throws Exception {
    Span writer = Tracing.tracer().spanBuilder("POST /v1/payments").startSpan();
    Map<String, String> attributes;
    try (Scope ignored = writer.makeCurrent()) {
      attributes = MessageContext.withCurrent(Map.of("merchant-id", "mer_1"));
    } finally {
      writer.end();
    }
    Instant written = Instant.now().minusMillis(40); // it waited in the outbox
    Envelope envelope =
        new Envelope("msg_2", "command.x", "cmd_2", written, new byte[] {'{', '}'}, attributes);

    Span publishing = KafkaTracing.publish("commands", envelope);
    ProducerRecord<String, byte[]> produced =
        KafkaEnvelopes.toRecord("commands", KafkaTracing.carrying(publishing, envelope));
    KafkaTracing.published(publishing, null);
    ConsumerRecord<String, byte[]> consumed =
        new ConsumerRecord<>("commands", 0, 8L, "cmd_2", produced.value());
    produced.headers().forEach(h -> consumed.headers().add(h));
    KafkaTracing.consume("payments", consumed, () -> null);

    List<SpanData> spans = exported.getFinishedSpanItems();
    SpanData publish = spans.get(spans.size() - 2);
    SpanData consumer = spans.get(spans.size() - 1);
    assertEquals("publish command.x", publish.getName());
    assertEquals(io.opentelemetry.api.trace.SpanKind.PRODUCER, publish.getKind());
    assertEquals(writer.getSpanContext().getSpanId(), publish.getParentSpanId());
    assertEquals(
        written.getEpochSecond() * 1_000_000_000L + written.getNano(),
        publish.getStartEpochNanos(),
        "from the outbox write, so the wait shows");
    assertEquals(publish.getSpanId(), consumer.getParentSpanId());
    assertEquals(writer.getSpanContext().getTraceId(), consumer.getTraceId());
  }

  @Test
  void aMessageWithoutATraceIsPublishedWithoutASpanAndUnchanged() {
    Envelope envelope =
        new Envelope("msg_3", "event.x", "pay_1", Instant.now(), new byte[] {'{', '}'}, Map.of());
    Span publishing = KafkaTracing.publish("events", envelope);
    assertEquals(false, publishing.getSpanContext().isValid());
    assertEquals(envelope, KafkaTracing.carrying(publishing, envelope));
    KafkaTracing.published(publishing, null);
    assertEquals(List.of(), exported.getFinishedSpanItems());
  }

  @Test
  void aMessageWrittenOutsideAnyRequestCarriesNothingExtra() {
    Map<String, String> attributes = Map.of("merchant-id", "mer_1");
    assertEquals(attributes, MessageContext.withCurrent(attributes));
  }
}
