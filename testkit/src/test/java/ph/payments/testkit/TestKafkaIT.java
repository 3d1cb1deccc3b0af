package ph.payments.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class TestKafkaIT {

  @Test
  void everyThreadGetsTheOneBroker() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<String>> answers = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        answers.add(pool.submit((Callable<String>) TestKafka::bootstrapServers));
      }
      Set<String> distinct = new HashSet<>();
      for (Future<String> answer : answers) {
        distinct.add(answer.get(2, TimeUnit.MINUTES));
      }
      assertEquals(1, distinct.size(), "one broker per JVM, got " + distinct);
      assertFalse(distinct.iterator().next().isBlank());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aRecordProducedIsConsumed() throws Exception {
    String topic = "testkit.roundtrip." + UUID.randomUUID();
    TestKafka.createTopics(3, topic);

    RecordMetadata sent;
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                TestKafka.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG,
                "all"),
            new StringSerializer(),
            new StringSerializer())) {
      sent =
          producer.send(new ProducerRecord<>(topic, "pay-1", "captured")).get(30, TimeUnit.SECONDS);
    }

    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                TestKafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG,
                "testkit-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest"),
            new StringDeserializer(),
            new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      List<ConsumerRecord<String, String>> received = new ArrayList<>();
      while (received.isEmpty() && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(received::add);
      }
      assertEquals(1, received.size(), "records received");
      ConsumerRecord<String, String> record = received.get(0);
      assertEquals("pay-1", record.key());
      assertEquals("captured", record.value());
      assertEquals(sent.partition(), record.partition());
      assertEquals(sent.offset(), record.offset());
    }
  }

  @Test
  void aTransactionCommits() throws Exception {
    // Transactions need the transaction state topic, which a broker with the default replication
    // factor of 3 cannot create: this is what the single-node settings are for.
    String topic = "testkit.tx." + UUID.randomUUID();
    TestKafka.createTopics(1, topic);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                TestKafka.bootstrapServers(),
                ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                "testkit-" + UUID.randomUUID()),
            new StringSerializer(),
            new StringSerializer())) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "pay-2", "settled"));
      producer.commitTransaction();
    }
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                TestKafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG,
                "testkit-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed"),
            new StringDeserializer(),
            new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      List<String> values = new ArrayList<>();
      while (values.isEmpty() && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(record -> values.add(record.value()));
      }
      assertEquals(List.of("settled"), values);
    }
  }

  @Test
  void createTopicsIsIdempotent() throws Exception {
    String first = "testkit.idempotent." + UUID.randomUUID();
    String second = "testkit.idempotent." + UUID.randomUUID();

    TestKafka.createTopics(3, first);
    // Again, with one existing and one new topic, and a different count for the existing one:
    // it must neither fail nor touch the existing topic.
    TestKafka.createTopics(5, first, second);
    TestKafka.createTopics(5, first, second);

    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()))) {
      var described =
          admin.describeTopics(List.of(first, second)).allTopicNames().get(30, TimeUnit.SECONDS);
      assertEquals(3, described.get(first).partitions().size());
      assertEquals(5, described.get(second).partitions().size());
      assertTrue(
          described.values().stream()
              .flatMap(topic -> topic.partitions().stream())
              .allMatch(partition -> partition.leader() != null));
    }
  }

  @Test
  void createTopicsRejectsNonsense() {
    assertThrows(IllegalArgumentException.class, () -> TestKafka.createTopics(0, "x"));
  }
}
