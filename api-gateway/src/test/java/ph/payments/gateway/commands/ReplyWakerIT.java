package ph.payments.gateway.commands;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.Environment;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.Topics;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.KafkaSettings;
import ph.payments.testkit.TestKafka;

/**
 * The reply waker reads only the reply partitions its instance's recorder does not own: none with
 * one gateway, the other instance's with two, and it follows the recorders' rebalances. The test
 * plays the command owner: it writes commands through the bus (to a topic nobody reads) and sends
 * their replies itself, onto a partition of its choice, as an owner's outbox would.
 */
@MicronautTest(transactional = false)
class ReplyWakerIT extends GatewayTest {

  /** Well under {@link CommandBus#LOG_POLL}: only a reader of the reply topic is this quick. */
  private static final Duration QUICK = Duration.ofMillis(200);

  private static final String COMMANDS = "test.reply-waker.commands";
  private static final Duration SETTLED = Duration.ofSeconds(60);

  @Inject CommandBus bus;
  @Inject ReplyPartitions partitions;
  @Inject ReplyWaker waker;

  private KafkaProducer<String, byte[]> producer;
  private Set<TopicPartition> all;

  @BeforeAll
  void startProducer() {
    TestKafka.createTopics(3, COMMANDS, Topics.COMMAND_REPLIES);
    producer =
        new KafkaProducer<>(KafkaSettings.producer(TestKafka.bootstrapServers(), "reply-waker-it"));
    all = new HashSet<>();
    producer
        .partitionsFor(Topics.COMMAND_REPLIES)
        .forEach(info -> all.add(new TopicPartition(info.topic(), info.partition())));
  }

  @AfterAll
  void stopProducer() {
    producer.close();
  }

  @Test
  void withOneGatewayTheWakerReadsNothingAndTheRecorderWakesTheRequest() throws Exception {
    await().atMost(SETTLED).until(() -> partitions.view().recorded().equals(all));
    await().atMost(SETTLED).until(() -> waker.assignment().isEmpty());

    for (TopicPartition partition : all) {
      assertTrue(
          roundTrip(partition).compareTo(Duration.ofSeconds(5)) < 0, "no reply on " + partition);
    }
    assertEquals(Set.of(), waker.assignment());
  }

  @Test
  void aReplyOnAPartitionOfTheOtherInstancesRecorderWakesTheRequestHereAtOnce() throws Exception {
    try (ApplicationContext other = startOther()) {
      ReplyPartitions otherPartitions = other.getBean(ReplyPartitions.class);
      awaitSplit(otherPartitions);

      List<TopicPartition> theirs = new ArrayList<>(otherPartitions.view().recorded());
      List<Duration> tookTimes = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        tookTimes.add(roundTrip(theirs.get(i % theirs.size())));
      }
      long quick = tookTimes.stream().filter(took -> took.compareTo(QUICK) < 0).count();
      // Missed by the waker, a reply comes from the command log, a LOG_POLL after the wait began.
      assertTrue(quick >= 8, "replies within " + QUICK + ": " + tookTimes);
    }
  }

  @Test
  void whenTheOtherInstanceStopsItsPartitionsMoveHereAndRequestsKeepGettingReplies()
      throws Exception {
    ApplicationContext other = startOther();
    ReplyPartitions otherPartitions;
    try {
      otherPartitions = other.getBean(ReplyPartitions.class);
      awaitSplit(otherPartitions);
    } catch (RuntimeException | Error e) {
      other.close();
      throw e;
    }
    List<TopicPartition> theirs = new ArrayList<>(otherPartitions.view().recorded());

    // Replies keep coming, on the other instance's partitions, while it stops.
    CompletableFuture<Void> stopping = CompletableFuture.runAsync(other::close);
    List<Duration> duringHandover = new ArrayList<>();
    for (int i = 0; !stopping.isDone() || i < 10; i++) {
      duringHandover.add(roundTrip(theirs.get(i % theirs.size())));
    }
    stopping.get(30, TimeUnit.SECONDS);
    for (Duration took : duringHandover) {
      assertTrue(took.compareTo(Duration.ofSeconds(5)) < 0, "replies: " + duringHandover);
    }

    await().atMost(SETTLED).until(() -> partitions.view().recorded().equals(all));
    await().atMost(SETTLED).until(() -> waker.assignment().isEmpty());
    List<Duration> after = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      after.add(roundTrip(theirs.get(i % theirs.size())));
    }
    // Now the recorder here reads them: as quick as the waker was.
    assertTrue(
        after.stream().filter(took -> took.compareTo(QUICK) < 0).count() >= 5, "after: " + after);
  }

  @Test
  void aPartitionTheRecorderGaveUpIsReadFromWhereItStopped() throws Exception {
    String topic = "test.reply-waker.handover";
    TestKafka.createTopics(3, topic);
    TopicPartition first = new TopicPartition(topic, 0);
    TopicPartition second = new TopicPartition(topic, 1);
    ReplyPartitions recorder = new ReplyPartitions();
    recorder.assigned(List.of(first, second, new TopicPartition(topic, 2)));
    ReplyWaker ownWaker =
        new ReplyWaker(
            topic,
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                TestKafka.bootstrapServers(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false),
            recorder,
            bus);
    ownWaker.start();
    try {
      await().atMost(SETTLED).until(() -> ownWaker.assignment().isEmpty());
      // Published while the recorder still owned the partitions, and not yet read by it.
      Command stoppedAt = command();
      Command unknown = command();
      try (CommandBus.Waiter fromStop = bus.expect(stoppedAt.commandId());
          CommandBus.Waiter fromEnd = bus.expect(unknown.commandId())) {
        long offset = send(topic, first, stoppedAt.commandId());
        send(topic, second, unknown.commandId());

        recorder.stopped(List.of(first, second), Map.of(first, offset));

        await().atMost(SETTLED).until(() -> ownWaker.assignment().equals(Set.of(first, second)));
        assertTrue(
            fromStop.awaitReply(Duration.ofSeconds(5)).isPresent(),
            "the reply after the recorder's stop position");
        // Where the recorder stopped is unknown: from the end, so the older reply is not read.
        assertEquals(Optional.empty(), fromEnd.awaitReply(Duration.ofMillis(500)));
      }
    } finally {
      ownWaker.stop();
    }
  }

  private ApplicationContext startOther() {
    return ApplicationContext.run(new HashMap<String, Object>(getProperties()), Environment.TEST);
  }

  /** Both recorders own some partitions, and the waker here reads exactly the other's. */
  private void awaitSplit(ReplyPartitions otherPartitions) {
    await()
        .atMost(SETTLED)
        .until(
            () -> {
              Set<TopicPartition> mine = partitions.view().recorded();
              Set<TopicPartition> theirs = otherPartitions.view().recorded();
              Set<TopicPartition> both = new HashSet<>(mine);
              both.addAll(theirs);
              return !mine.isEmpty()
                  && !theirs.isEmpty()
                  && both.equals(all)
                  && waker.assignment().equals(theirs);
            });
  }

  /**
   * A command written here and its reply sent to {@code partition}: how long from sending the reply
   * until the waiting request had it (5 s when it never came).
   */
  private Duration roundTrip(TopicPartition partition) throws Exception {
    Command command = command();
    try (CommandBus.Waiter waiter = bus.expect(command.commandId())) {
      bus.accept(command, COMMANDS);
      long sent = System.nanoTime();
      send(Topics.COMMAND_REPLIES, partition, command.commandId());
      Optional<CommandReply> reply = waiter.awaitReply(Duration.ofSeconds(5));
      Duration took = Duration.ofNanos(System.nanoTime() - sent);
      assertFalse(reply.isEmpty(), "no reply to " + command.commandId() + " on " + partition);
      assertEquals(command.commandId(), reply.get().commandId());
      return took;
    }
  }

  private Command command() {
    return bus.prepare(
        new CommandBus.Request(
            COMMANDS,
            "test_waker.ping",
            null,
            "test",
            null,
            Json.mapper().createObjectNode().put("ping", true)));
  }

  /** Sends a reply to {@code commandId} as an owner's outbox would; returns its offset. */
  private long send(String topic, TopicPartition partition, String commandId) throws Exception {
    return producer
        .send(
            ReplyRecords.reply(
                topic,
                partition.partition(),
                commandId,
                200,
                Json.mapper().createObjectNode().put("pong", true)))
        .get(10, TimeUnit.SECONDS)
        .offset();
  }
}
