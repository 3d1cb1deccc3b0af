package ph.payments.platform.outbox;

import io.opentelemetry.api.trace.Span;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.contracts.Envelope;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.KafkaSettings;
import ph.payments.platform.kafka.KafkaTracing;

/** What both relays ({@link OutboxRelay}, {@link LogicalOutboxRelay}) do with their producer. */
final class RelaySends {

  private static final Logger log = LoggerFactory.getLogger(RelaySends.class);

  /** Sends {@code envelope} in a PRODUCER span ({@link KafkaTracing}); never throws. */
  static Future<RecordMetadata> send(
      Producer<String, byte[]> producer, String topic, Envelope envelope) {
    Span span = KafkaTracing.publish(topic, envelope);
    try {
      return producer.send(
          KafkaEnvelopes.toRecord(topic, KafkaTracing.carrying(span, envelope)),
          (metadata, failure) -> KafkaTracing.published(span, failure));
    } catch (RuntimeException refused) {
      // Some failures are thrown rather than reported through the future; same treatment.
      KafkaTracing.published(span, refused);
      return CompletableFuture.failedFuture(refused);
    }
  }

  /** What a relay sends: a message for a topic. */
  interface Outgoing {
    String topic();

    Envelope envelope();
  }

  /** A wave handed to the producer: its messages and their acknowledgements, in sending order. */
  record Wave<T extends Outgoing>(List<T> messages, List<Future<RecordMetadata>> acks) {}

  /**
   * Hands the next wave of {@code byKey} (each key's unsent messages in order; what it sends is
   * taken off) to {@code producer}, without flushing: for every key, its oldest messages of one
   * topic, as many as fit in {@link KafkaSettings#RELAY_WAVE_BYTES} with the other keys' (the
   * wave's first always goes). They share a partition, and a relay's producer ({@link
   * KafkaSettings#relayProducer}) keeps a wave's records of a partition in one batch until the
   * flush, which Kafka appends whole or not at all: a key's messages of one wave are written
   * together or not at all, and never one after another failed. A message the producer refuses at
   * once (too large, no metadata) ends its key's part of the wave. No send starts once {@link
   * KafkaSettings#RELAY_WAVE_SECONDS} have passed since the wave's first (sends that wait for
   * metadata or buffer space), so the wave is handed over before its first batch's linger ends.
   */
  static <T extends Outgoing> Wave<T> sendWave(
      Producer<String, byte[]> producer, Map<String, ArrayDeque<T>> byKey) {
    List<T> messages = new ArrayList<>(byKey.size());
    List<Future<RecordMetadata>> acks = new ArrayList<>(byKey.size());
    int bytes = 0;
    long started = System.nanoTime();
    long budget = TimeUnit.SECONDS.toNanos(KafkaSettings.RELAY_WAVE_SECONDS);
    for (ArrayDeque<T> keyMessages : byKey.values()) {
      String topic = keyMessages.peekFirst().topic(); // the relays pass no empty key
      while (!keyMessages.isEmpty() && keyMessages.peekFirst().topic().equals(topic)) {
        if (!messages.isEmpty() && System.nanoTime() - started > budget) {
          return new Wave<>(messages, acks); // the rest in the next wave
        }
        T message = keyMessages.peekFirst();
        int size = batchBytes(message.envelope());
        if (!messages.isEmpty() && bytes + size > KafkaSettings.RELAY_WAVE_BYTES) {
          break; // the next wave
        }
        keyMessages.pollFirst();
        Future<RecordMetadata> ack = send(producer, message.topic(), message.envelope());
        messages.add(message);
        acks.add(ack);
        bytes += size;
        if (refusedAtOnce(ack)) {
          break; // nothing of its key goes after it
        }
      }
    }
    return new Wave<>(messages, acks);
  }

  /** Room for the trace context {@link #send} adds ({@code traceparent}, {@code tracestate}). */
  private static final int TRACE_CONTEXT_BYTES = 1024;

  /**
   * At least the bytes {@code envelope} takes in a producer batch as {@link #send} sends it: its
   * payload, its key and headers at three bytes a char (UTF-8), Kafka's few bytes of framing per
   * record and header rounded up, and the trace context.
   */
  private static int batchBytes(Envelope envelope) {
    int chars = envelope.key().length() + envelope.messageId().length() + envelope.type().length();
    chars += 64; // the time and the headers' names
    for (Map.Entry<String, String> attribute : envelope.attributes().entrySet()) {
      chars +=
          KafkaEnvelopes.ATTRIBUTE_PREFIX.length()
              + attribute.getKey().length()
              + attribute.getValue().length();
    }
    int framing = 64 + 16 * (3 + envelope.attributes().size());
    return envelope.payload().length + 3 * chars + framing + TRACE_CONTEXT_BYTES;
  }

  /** True when the producer refused {@code ack}'s record at once, before it reached a batch. */
  private static boolean refusedAtOnce(Future<RecordMetadata> ack) {
    if (!ack.isDone()) {
      return false;
    }
    try {
      ack.get();
      return false;
    } catch (ExecutionException | RuntimeException e) {
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  /** Null when acknowledged, else what went wrong. */
  static String awaitAck(Future<RecordMetadata> ack) {
    try {
      ack.get();
      return null;
    } catch (ExecutionException e) {
      return String.valueOf(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted while waiting for the acknowledgement";
    }
  }

  /** Closes {@code producer} if there is one; always answers null, the relay's "no producer". */
  static <P extends Producer<String, byte[]>> P close(P producer) {
    if (producer != null) {
      try {
        producer.close(Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        log.debug("closing the relay producer failed", e);
      }
    }
    return null;
  }

  /** The pause after {@code backoff}: 100 ms, doubling, up to {@code max}. */
  static Duration next(Duration backoff, Duration max) {
    Duration doubled = backoff.isZero() ? Duration.ofMillis(100) : backoff.multipliedBy(2);
    return doubled.compareTo(max) > 0 ? max : doubled;
  }

  private RelaySends() {}
}
