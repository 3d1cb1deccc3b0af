package ph.payments.gateway.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.Topics;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.gateway.auth.MerchantContext;
import ph.payments.gateway.auth.RequiresScope;
import ph.payments.gateway.idempotency.IdempotencyKey;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;
import ph.payments.gateway.support.Sql;
import ph.payments.gateway.web.CommandEndpoint;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.commands.CommandHandler;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.KafkaSettings;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.TestKafka;

/**
 * A command whose handler throws every time, over the whole command path: a merchant's request
 * through the gateway, its outbox relay and Kafka, to the platform's {@code CommandListener} (the
 * one every owner runs: {@code BatchApplier} and {@code CommandDispatcher}, here consuming a topic
 * of this class in the gateway's JVM and database, which has the inbox, outbox and {@code
 * parked_messages} tables of every service), and the reply back. After {@code
 * consumers.max-attempts} failures the command is parked: the waiting request gets 500 {@code
 * internal_error} "not applied", its idempotency record is completed with that answer, the command
 * behind it on the same partition applies, and a redelivery of the parked record does nothing.
 */
@MicronautTest(transactional = false)
@Property(name = "spec.name", value = "ParkedCommandIT")
class ParkedCommandIT extends GatewayTest {

  private static final String TOPIC =
      "test.parking." + ParkedCommandIT.class.getSimpleName().toLowerCase(Locale.ROOT);
  private static final String TYPE = "test_parking.apply";
  private static final int MAX_ATTEMPTS = 3;

  @Inject Transactions transactions;
  @Inject AlwaysFailing handler;

  @Override
  protected Map<String, String> extraProperties() {
    // One partition: every command of this class is behind the one before it.
    TestKafka.createTopics(1, TOPIC);
    Map<String, String> properties = new HashMap<>();
    properties.put("commands.topic", TOPIC);
    properties.put("commands.threads", "1");
    properties.put("consumers.max-attempts", String.valueOf(MAX_ATTEMPTS));
    properties.put("consumers.retry-delay", "200ms");
    return properties;
  }

  @Test
  void aCommandThatAlwaysFailsIsParkedRejectedAndNoLongerBlocksItsPartition() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Poison Store");
    String key = "poison-" + System.nanoTime();

    CompletableFuture<Http.Response> poisoned =
        CompletableFuture.supplyAsync(() -> send(merchant, "{\"fail\":true,\"n\":1}", key));
    awaitCommand(key);
    // Sent after the poisoned one was written: behind it on the one partition.
    CompletableFuture<Http.Response> behind =
        CompletableFuture.supplyAsync(() -> send(merchant, "{\"n\":2}", null));

    Http.Response rejected = poisoned.get(30, TimeUnit.SECONDS);
    assertEquals(500, rejected.status(), rejected.body());
    assertEquals("internal_error", rejected.errorCode());
    assertEquals(CommandDispatcher.PARKED_MESSAGE, rejected.json().at("/error/message").asText());
    assertTrue(rejected.body().contains("not applied"), rejected.body());
    // Each attempt runs the handler in the poll's batch and then alone; the applier counts one.
    int calls = handler.calls();
    assertTrue(calls >= MAX_ATTEMPTS, "tried before parking: " + calls);

    Http.Response applied = behind.get(30, TimeUnit.SECONDS);
    assertEquals(201, applied.status(), applied.body());
    assertEquals(2, applied.json().get("n").asInt());

    String commandId =
        sql().text("SELECT command_id FROM idempotency_keys WHERE idempotency_key = ?", key);
    assertEquals(
        "completed",
        sql().text("SELECT status FROM idempotency_keys WHERE idempotency_key = ?", key));
    assertEquals(
        500,
        sql()
            .number("SELECT response_status FROM idempotency_keys WHERE idempotency_key = ?", key));
    Http.Response replay = send(merchant, "{\"fail\":true,\"n\":1}", key);
    assertEquals(500, replay.status(), replay.body());
    assertEquals(rejected.body(), replay.body());
    assertEquals("true", replay.header(CommandEndpoint.REPLAYED_HEADER).orElse(null));
    assertEquals(calls, handler.calls(), "a replay never reaches the owner");

    assertEquals(1, parkedRows());
    assertEquals(
        commandId,
        sql().text("SELECT message_key FROM parked_messages WHERE topic = ?", TOPIC),
        "the parked record is the poisoned command");
    assertEquals(
        MAX_ATTEMPTS,
        sql().number("SELECT attempts FROM parked_messages WHERE message_key = ?", commandId),
        "parked after the configured attempts");
    assertEquals(
        "true",
        sql()
            .text("SELECT reply_sent::text FROM parked_messages WHERE message_key = ?", commandId));
    assertTrue(
        sql()
            .text("SELECT last_error FROM parked_messages WHERE message_key = ?", commandId)
            .contains(AlwaysFailing.FAILURE));

    // Kafka delivers the parked record again (a rebalance before the offset commit, say): the
    // inbox already holds it, so the handler is not even called and nothing is answered twice.
    redeliver(commandId);
    Http.Response after = send(merchant, "{\"n\":3}", null);
    assertEquals(201, after.status(), after.body());
    assertEquals(calls, handler.calls(), "the redelivery did nothing");
    assertEquals(1, parkedRows(), "the redelivery is not parked again");
    assertEquals(1, repliesTo(commandId, Duration.ofSeconds(3)), "one reply, the rejection");
  }

  private Http.Response send(Operator.Merchant merchant, String body, @Nullable String key) {
    return key == null
        ? http().post("/v1/test_parking", merchant.testSecret(), body)
        : http().post("/v1/test_parking", merchant.testSecret(), body, IdempotencyKey.HEADER, key);
  }

  private void awaitCommand(String key) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (sql().text("SELECT command_id FROM idempotency_keys WHERE idempotency_key = ?", key)
        == null) {
      assertTrue(System.nanoTime() < deadline, "the command was never written");
      Thread.sleep(20);
    }
  }

  private long parkedRows() {
    return sql().number("SELECT count(*) FROM parked_messages WHERE topic = ?", TOPIC);
  }

  private Sql sql() {
    return new Sql(transactions);
  }

  /** Sends the command's record again exactly as the relay first sent it, headers and all. */
  private static void redeliver(String commandId) throws Exception {
    ConsumerRecord<String, byte[]> original = null;
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            KafkaSettings.consumer(TestKafka.bootstrapServers(), IdType.MESSAGE.generate()))) {
      TopicPartition partition = new TopicPartition(TOPIC, 0);
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (original == null && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
          if (commandId.equals(record.key())) {
            original = record;
          }
        }
      }
    }
    assertNotNull(original, "the command's record is on its topic");
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(KafkaSettings.producer(TestKafka.bootstrapServers(), "redeliver"))) {
      producer
          .send(
              new ProducerRecord<>(
                  TOPIC, null, original.key(), original.value(), original.headers()))
          .get();
    }
  }

  /** How many replies to {@code commandId} are on the reply topic after {@code wait}. */
  private static int repliesTo(String commandId, Duration wait) {
    int replies = 0;
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            KafkaSettings.consumer(TestKafka.bootstrapServers(), IdType.MESSAGE.generate()))) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo info : consumer.partitionsFor(Topics.COMMAND_REPLIES)) {
        partitions.add(new TopicPartition(info.topic(), info.partition()));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + wait.toNanos();
      while (System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
          if (commandId.equals(record.key())) {
            CommandReply reply = Json.fromBytes(record.value(), CommandReply.class);
            assertEquals(500, reply.status());
            replies++;
          }
        }
      }
    }
    return replies;
  }

  /**
   * The owner's handler of this test: a command with {@code "fail": true} throws every time (a bug
   * in the handler, a record it cannot cope with); any other answers 201 with its {@code n}.
   */
  @Singleton
  @Requires(property = "spec.name", value = "ParkedCommandIT")
  static class AlwaysFailing implements CommandHandler {

    static final String FAILURE = "this command always fails";

    private final AtomicInteger calls = new AtomicInteger();

    @Override
    public String type() {
      return TYPE;
    }

    @Override
    public CommandReply handle(Connection connection, Command command) {
      if (command.body().path("fail").asBoolean()) {
        calls.incrementAndGet();
        throw new IllegalStateException(FAILURE);
      }
      ObjectNode applied = Json.mapper().createObjectNode();
      applied.put("object", "test_parking");
      applied.put("n", command.body().path("n").asInt());
      return new CommandReply(command.commandId(), 201, applied);
    }

    /** Calls of the handler for failing commands (there is one in the test). */
    int calls() {
      return calls.get();
    }
  }

  /** {@code POST /v1/test_parking}: sends the body as a {@value #TYPE} command to the topic. */
  @Requires(property = "spec.name", value = "ParkedCommandIT")
  @Controller("/v1/test_parking")
  static class Routes {
    private final CommandEndpoint commands;
    private final String topic;

    Routes(CommandEndpoint commands, @Value("${commands.topic}") String topic) {
      this.commands = commands;
      this.topic = topic;
    }

    @Post
    @RequiresScope("payments:write")
    @ExecuteOn(TaskExecutors.BLOCKING)
    HttpResponse<?> apply(HttpRequest<?> request, @Body JsonNode body) {
      return commands.execute(request, MerchantContext.of(request), topic, TYPE, null, body);
    }
  }
}
