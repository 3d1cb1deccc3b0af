package ph.payments.webhooks.support;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import ph.payments.contracts.Envelope;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.KafkaSettings;

/**
 * Writes events onto the event topic as payments-service's outbox relay does: value = the event
 * log's bytes, key = the payment id, merchant (and a payment's webhook_url) as attributes.
 */
public final class Events implements AutoCloseable {

  private static final AtomicLong SEQUENCE = new AtomicLong(System.nanoTime() % 1_000_000);

  private final String topic;
  private final Producer<String, byte[]> producer;

  public Events(String bootstrapServers, String topic) {
    this.topic = topic;
    this.producer = new KafkaProducer<>(KafkaSettings.producer(bootstrapServers, "test-events"));
  }

  /** A stored event, as produced. */
  public record Event(String id, String type, String paymentId, byte[] body) {
    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /** An event of a payment in the event log's exact shape (non-ASCII text included). */
  public static Event payment(String type, String environment) {
    String id = IdType.eventId(1000 + SEQUENCE.get(), SEQUENCE.incrementAndGet());
    String paymentId = IdType.PAYMENT.generate();
    ObjectNode event = Json.mapper().createObjectNode();
    event.put("id", id);
    event.put("object", "event");
    event.put("type", type);
    event.put("environment", environment);
    event.put("created", Instant.now().getEpochSecond());
    ObjectNode payment = event.putObject("data").putObject("object");
    payment.put("id", paymentId);
    payment.put("object", "payment");
    payment.put("environment", environment);
    payment.put("status", type.substring("payment.".length()));
    payment.put("amount", new java.math.BigDecimal("1500.00"));
    payment.put("currency", "PHP");
    payment.put("description", "Ensaymada × 12 — Café Ñora");
    return new Event(id, type, paymentId, Json.toBytes(event));
  }

  public Event send(String merchantId, Event event) {
    return send(merchantId, event, null);
  }

  /** Produces {@code event} for {@code merchantId}, with a webhook_url override if given. */
  public Event send(String merchantId, Event event, String webhookUrl) {
    Map<String, String> attributes = new HashMap<>();
    attributes.put(Envelope.ATTRIBUTE_MERCHANT_ID, merchantId);
    if (webhookUrl != null) {
      attributes.put("webhook-url", webhookUrl);
    }
    Envelope envelope =
        new Envelope(
            event.id(), event.type(), event.paymentId(), Instant.now(), event.body(), attributes);
    try {
      producer.send(KafkaEnvelopes.toRecord(topic, envelope)).get();
    } catch (InterruptedException | ExecutionException e) {
      throw new IllegalStateException(e);
    }
    return event;
  }

  /** Produces all at once (one flush), as a burst of state changes would arrive. */
  public void sendAll(String merchantId, java.util.List<Event> batch) {
    java.util.List<java.util.concurrent.Future<?>> acks = new java.util.ArrayList<>();
    for (Event event : batch) {
      Envelope envelope =
          new Envelope(
              event.id(),
              event.type(),
              event.paymentId(),
              Instant.now(),
              event.body(),
              Map.of(Envelope.ATTRIBUTE_MERCHANT_ID, merchantId));
      acks.add(producer.send(KafkaEnvelopes.toRecord(topic, envelope)));
    }
    producer.flush();
    try {
      for (java.util.concurrent.Future<?> ack : acks) {
        ack.get();
      }
    } catch (InterruptedException | ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    producer.close();
  }
}
