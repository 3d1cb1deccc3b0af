package ph.payments.payments.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.Topics;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.KafkaSettings;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * payments-service consumes its command topic from a real broker, applies each command once and
 * answers through its outbox, even when the command is delivered twice in one poll or again later.
 */
@MicronautTest
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CommandListenerIT implements TestPropertyProvider {

  @Inject DataSource dataSource;

  @Override
  public Map<String, String> getProperties() {
    TestDatabase database = TestDatabase.forClass(getClass());
    return Map.of(
        "datasources.default.url", database.jdbcUrl(),
        "datasources.default.username", database.user(),
        "kafka.bootstrap.servers", TestKafka.bootstrapServers(),
        "micronaut.server.port", "-1",
        "outbox.sweep-interval", "200ms");
  }

  @Test
  void aCommandDeliveredTwiceIsAnsweredOnce() throws Exception {
    String commandId = IdType.COMMAND.generate();
    Command ping =
        new Command(
            commandId,
            CommandTypes.SYSTEM_PING,
            null,
            null,
            null,
            Json.mapper().createObjectNode(),
            Instant.now());
    Envelope envelope =
        new Envelope(
            IdType.MESSAGE.generate(),
            CommandTypes.messageType(CommandTypes.SYSTEM_PING),
            commandId,
            Instant.now(),
            Json.toBytes(ping));
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(KafkaSettings.producer(TestKafka.bootstrapServers(), "it"))) {
      // Twice in one batch (one poll, usually: the poll's inbox statement takes the id once)...
      producer.send(KafkaEnvelopes.toRecord(Topics.PAYMENTS_COMMANDS, envelope));
      producer.send(KafkaEnvelopes.toRecord(Topics.PAYMENTS_COMMANDS, envelope)).get();
      repliesFor(commandId, Duration.ofSeconds(20), 1);
      // ...and once more after it was answered (a later poll: the inbox has the id).
      producer.send(KafkaEnvelopes.toRecord(Topics.PAYMENTS_COMMANDS, envelope)).get();
    }

    List<CommandReply> replies = repliesFor(commandId, Duration.ofSeconds(20), 1);
    // Give a duplicate reply every chance to show up.
    replies = repliesFor(commandId, Duration.ofSeconds(3), Integer.MAX_VALUE);
    assertEquals(1, replies.size());
    CommandReply reply = replies.get(0);
    assertEquals(200, reply.status());
    JsonNode body = reply.body();
    assertEquals("pong", body.get("object").asText());
    assertEquals("payments-service", body.get("service").asText());
    assertEquals(commandId, body.get("command_id").asText());
  }

  private static List<CommandReply> repliesFor(String commandId, Duration timeout, int enough) {
    Map<String, Object> config =
        KafkaSettings.consumer(TestKafka.bootstrapServers(), IdType.MESSAGE.generate());
    List<CommandReply> replies = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo info : consumer.partitionsFor(Topics.COMMAND_REPLIES)) {
        partitions.add(new TopicPartition(info.topic(), info.partition()));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline && replies.size() < enough) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
          if (commandId.equals(record.key())) {
            replies.add(Json.fromBytes(record.value(), CommandReply.class));
          }
        }
      }
    }
    return replies;
  }
}
