package ph.payments.gateway.commands;

import io.micronaut.configuration.kafka.annotation.KafkaListener;
import io.micronaut.configuration.kafka.annotation.OffsetReset;
import io.micronaut.configuration.kafka.annotation.OffsetStrategy;
import io.micronaut.configuration.kafka.annotation.Topic;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.Topics;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.inbox.IdempotentConsumer;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.BatchApplier;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.ParkedMessages;
import ph.payments.platform.kafka.Parkers;
import ph.payments.platform.tx.Transactions;

/**
 * Two readers of the reply topic. The durable one (one consumer group for all gateway instances)
 * records every reply in the command log exactly once, and in the same transaction runs the {@link
 * ReplyHook}s (which complete idempotency records). The fast one (a group of its own per instance,
 * starting at the end of the topic) wakes whichever request on this instance waits for the reply,
 * so replies find their request with several gateway replicas running.
 */
final class ReplyListeners {

  /** The durable recorder's consumer group (its settings: {@link ReplyRecorderConsumer}). */
  static final String RECORDER_GROUP = "api-gateway.replies";

  @Singleton
  @KafkaListener(
      groupId = RECORDER_GROUP,
      offsetReset = OffsetReset.EARLIEST,
      offsetStrategy = OffsetStrategy.DISABLED,
      batch = true)
  static class Recorder {
    private final BatchApplier applier;
    private final IdempotentConsumer inbox;
    private final CommandBus bus;
    private final Clock clock;
    private final List<ReplyHook> hooks;

    Recorder(
        Transactions transactions,
        IdempotentConsumer inbox,
        CommandBus bus,
        Clock clock,
        List<ReplyHook> hooks,
        BatchApplier.Settings settings,
        ParkedMessages parked) {
      // A reply that keeps failing to record is parked (no reply to a reply): its command keeps
      // no reply in the log and its idempotency record stays in progress until it expires; the
      // waiting request is still woken by the Waker below. The operator sees it in the list.
      this.applier =
          new BatchApplier(
              "command replies",
              transactions,
              settings,
              parked,
              Parkers.inbox(inbox, RECORDER_GROUP),
              clock);
      this.inbox = inbox;
      this.bus = bus;
      this.clock = clock;
      this.hooks = List.copyOf(hooks);
    }

    @Topic(Topics.COMMAND_REPLIES)
    void receive(List<ConsumerRecord<String, byte[]>> records, Consumer<?, ?> consumer) {
      List<CommandReply> recorded = new ArrayList<>(records.size());
      applier.apply(
          records,
          consumer,
          (connection, record) -> {
            Envelope envelope = KafkaEnvelopes.fromRecord(record);
            CommandReply reply = Json.fromBytes(envelope.payload(), CommandReply.class);
            // Serialised once, so the command log and every hook store the very same bytes.
            String body = Json.toText(reply.body());
            inbox.apply(
                connection,
                RECORDER_GROUP,
                envelope.messageId(),
                tx -> {
                  Instant at = clock.instant();
                  CommandLog.recordReply(tx, reply.commandId(), reply.status(), body, at);
                  for (ReplyHook hook : hooks) {
                    hook.replyRecorded(tx, reply.commandId(), reply.status(), body, at);
                  }
                  return null;
                });
            recorded.add(reply);
          });
      // After the commit (a retried batch may list a reply twice; completing is idempotent).
      recorded.forEach(bus::complete);
    }
  }

  @Singleton
  @KafkaListener(
      groupId = "api-gateway.waiters",
      uniqueGroupId = true,
      offsetReset = OffsetReset.LATEST,
      offsetStrategy = OffsetStrategy.DISABLED)
  static class Waker {
    private final CommandBus bus;

    Waker(CommandBus bus) {
      this.bus = bus;
    }

    @Topic(Topics.COMMAND_REPLIES)
    void receive(ConsumerRecord<String, byte[]> record) {
      bus.complete(Json.fromBytes(record.value(), CommandReply.class));
    }
  }

  private ReplyListeners() {}
}
