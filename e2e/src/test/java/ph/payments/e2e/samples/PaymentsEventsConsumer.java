package ph.payments.e2e.samples;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A consumer of {@code payments.events} for another team, in one file with plain kafka-clients and
 * Jackson (docs/topics.md). Copy it and replace {@link #handle}. Run: {@code java
 * PaymentsEventsConsumer localhost:9092 my-team-group}.
 *
 * <p>What it shows: a consumer group of your own; at-least-once delivery (offsets are committed
 * only after a batch is handled, so after a crash some events come again: deduplicate on the {@code
 * message-id} header, which is the event id, in the same transaction as your effect); the order
 * that matters is per key (a payment and its refunds share the payment id as key, so they arrive in
 * order on one partition); unknown event types and unknown fields are skipped, never an error (the
 * contract only ever adds); amounts are read as decimals.
 *
 * <p>The build compiles this file and {@code TopicContractsE2EIT} runs it against a real system.
 */
public final class PaymentsEventsConsumer implements AutoCloseable {

  public static final String TOPIC = "payments.events";

  /** One event as a consumer sees it: the headers that route it, and the event body. */
  public record Event(
      String messageId, String type, String merchantId, String key, int partition, JsonNode body) {}

  /** Amounts as exact decimals (300.00 stays 300.00), never binary floats. */
  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
          .build();

  private final KafkaConsumer<String, byte[]> consumer;

  public PaymentsEventsConsumer(String bootstrapServers, String groupId) {
    Properties config = new Properties();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    config.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    // A new group starts at the oldest event still retained; commit only what was handled.
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    this.consumer = new KafkaConsumer<>(config);
    consumer.subscribe(List.of(TOPIC));
  }

  /** Polls once, hands every event to {@code handler}, then commits; returns how many. */
  public int pollOnce(Duration timeout, Consumer<Event> handler) throws IOException {
    int handled = 0;
    for (ConsumerRecord<String, byte[]> record : consumer.poll(timeout)) {
      JsonNode body = JSON.readTree(record.value());
      handler.accept(
          new Event(
              header(record, "message-id"),
              header(record, "message-type"),
              header(record, "attr-merchant-id"),
              record.key(),
              record.partition(),
              body));
      handled++;
    }
    if (handled > 0) {
      consumer.commitSync(); // after the effects: at-least-once
    }
    return handled;
  }

  /** The sample's own handling: replace it with yours. */
  public static void handle(Event event) {
    switch (event.type()) {
      case "payment.succeeded" ->
          System.out.printf(
              "%s: payment %s of %s succeeded, net %s%n",
              event.merchantId(),
              event.body().at("/data/object/id").asText(),
              event.body().at("/data/object/amount").decimalValue(),
              event.body().at("/data/object/net_amount").decimalValue());
      case "refund.succeeded" ->
          System.out.printf(
              "%s: refund %s of payment %s succeeded%n",
              event.merchantId(),
              event.body().at("/data/object/id").asText(),
              event.body().at("/data/object/payment").asText());
      default -> {
        // Types this consumer does not know (or that are new) are skipped, never an error.
      }
    }
  }

  private static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    consumer.close();
  }

  public static void main(String[] args) throws IOException {
    String bootstrap = args.length > 0 ? args[0] : "localhost:9092";
    String group = args.length > 1 ? args[1] : "sample-events-consumer";
    try (PaymentsEventsConsumer sample = new PaymentsEventsConsumer(bootstrap, group)) {
      while (!Thread.currentThread().isInterrupted()) {
        sample.pollOnce(Duration.ofSeconds(1), PaymentsEventsConsumer::handle);
      }
    }
  }
}
