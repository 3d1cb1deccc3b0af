package ph.payments.gateway.commands;

import io.micronaut.configuration.kafka.ConsumerAware;
import io.micronaut.configuration.kafka.annotation.KafkaListener;
import io.micronaut.configuration.kafka.annotation.OffsetReset;
import io.micronaut.configuration.kafka.annotation.OffsetStrategy;
import io.micronaut.configuration.kafka.annotation.Topic;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import ph.payments.contracts.Topics;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.BatchApplier;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.KafkaTracing;
import ph.payments.platform.kafka.ParkedMessages;
import ph.payments.platform.tx.Transactions;

/**
 * The durable reader of the reply topic (one consumer group for all gateway instances): it records
 * every reply in the command log exactly once and in the same statement runs the {@link ReplyHook}s
 * (which complete idempotency records); before that, as soon as a reply is fetched, it wakes
 * whichever request on this instance waits for it. It publishes the partitions it owns to {@link
 * ReplyPartitions}, so the {@link ReplyWaker} reads only the others: replies recorded by another
 * instance that may have a request waiting here.
 */
final class ReplyListeners {

  /** The durable recorder's consumer group (its settings: {@link ReplyRecorderConsumer}). */
  static final String RECORDER_GROUP = "api-gateway.replies";

  // Offsets committed by the applier at most once an interval (gateway.replies.commit-interval),
  // not after each poll: the recorder's offset commits were a sixth of the broker's profile. Not
  // the consumer's own commits, as the internal services' listeners do: with those the gateway took
  // more CPU per creation (docs/decisions.md, "Consumers commit their own positions").
  @Singleton
  @KafkaListener(
      groupId = RECORDER_GROUP,
      offsetReset = OffsetReset.EARLIEST,
      offsetStrategy = OffsetStrategy.DISABLED,
      batch = true)
  static class Recorder implements ConsumerRebalanceListener, ConsumerAware<String, byte[]> {
    private final BatchApplier applier;
    private final CommandBus bus;
    private final Clock clock;
    private final String recording;
    private final ReplyPartitions partitions;

    /**
     * Per partition, the offset after the last batch: where a lost partition stopped (its consumer
     * can no longer be asked). Used on the poll thread only, like the rebalance callbacks.
     */
    private final Map<TopicPartition, Long> processed = new HashMap<>();

    private volatile Consumer<String, byte[]> consumer;

    /**
     * The consumer the polls came from, whose held offsets ({@link BatchApplier#commitPending}) a
     * revocation commits. Used on the poll thread only, like {@link #processed}.
     */
    private Consumer<?, ?> polled;

    Recorder(
        Transactions transactions,
        CommandBus bus,
        Clock clock,
        List<ReplyHook> hooks,
        BatchApplier.Settings settings,
        @Value("${gateway.replies.commit-interval:1s}") Duration commitInterval,
        ParkedMessages parked,
        ReplyPartitions partitions) {
      // A reply that keeps failing to record is parked (no reply to a reply): its command keeps
      // no reply in the log and its idempotency record stays in progress until it expires. The
      // waiting request has had the reply all the same (receive wakes it first). The operator
      // sees it in the list. No inbox: recording a reply is idempotent by itself (the first
      // reply of a command is kept, later ones change nothing), so a redelivery needs no id kept,
      // and the up to an interval of replies a crash delivers again change nothing.
      this.applier =
          new BatchApplier(
              "command replies",
              transactions,
              settings.committedAtIntervals(commitInterval),
              parked,
              (connection, record, reason) -> false,
              clock);
      this.bus = bus;
      this.clock = clock;
      this.recording = CommandLog.replyRecording(List.copyOf(hooks));
      this.partitions = partitions;
    }

    @Topic(Topics.COMMAND_REPLIES)
    void receive(List<ConsumerRecord<String, byte[]>> records, Consumer<?, ?> consumer) {
      polled = consumer;
      // Each reply is read once, for the waiting request and for the log.
      Map<ConsumerRecord<String, byte[]>, CommandReply> replies = new IdentityHashMap<>();
      for (ConsumerRecord<String, byte[]> record : records) {
        CommandReply reply = readable(record);
        if (reply != null) {
          replies.put(record, reply);
          // The waiting request first, as the waker would: its answer need not wait for this
          // batch's commit (a retry, or a request on another instance, finds the reply in the log).
          bus.complete(reply);
        }
      }
      // The whole poll in one auto-committed statement (the log's and each hook's), not a few per
      // reply: one round trip.
      applier.applyAll(
          records,
          consumer,
          (BatchApplier.OneStatementWork)
              (connection, batch) -> {
                Map<String, ReplyHook.Reply> first = new LinkedHashMap<>();
                for (ConsumerRecord<String, byte[]> record : batch) {
                  KafkaTracing.consume(
                      "command replies",
                      record,
                      () -> {
                        CommandReply read = replies.get(record);
                        // Unreadable: read again here, so that it fails inside the applier, which
                        // parks it.
                        CommandReply reply =
                            read != null
                                ? read
                                : Json.fromBytes(
                                    KafkaEnvelopes.fromRecord(record).payload(),
                                    CommandReply.class);
                        // Serialised once, so the command log and every hook store the same bytes.
                        first.computeIfAbsent(
                            reply.commandId(),
                            id ->
                                new ReplyHook.Reply(id, reply.status(), Json.toText(reply.body())));
                        return null;
                      });
                }
                CommandLog.recordReplies(
                    connection, recording, List.copyOf(first.values()), clock.instant());
              });
      // The consumer's position, not the last record's: the applier rewinds a failing partition.
      // Only the batch's partitions surely have one without asking the broker.
      TopicPartition last = null;
      for (ConsumerRecord<String, byte[]> record : records) {
        if (last == null || last.partition() != record.partition()) {
          last = new TopicPartition(record.topic(), record.partition());
          processed.put(last, consumer.position(last));
        }
      }
    }

    /** The reply a record holds, or null when it holds none (no request can be woken by it). */
    private static CommandReply readable(ConsumerRecord<String, byte[]> record) {
      try {
        return Json.fromBytes(record.value(), CommandReply.class);
      } catch (RuntimeException unreadable) {
        return null;
      }
    }

    @Override
    public void setKafkaConsumer(Consumer<String, byte[]> consumer) {
      this.consumer = consumer;
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
      partitions.assigned(assigned);
    }

    /** Called before the partitions go, on the poll thread: the consumer knows its positions. */
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
      // The next owner starts after what was recorded here, not up to an interval before it.
      if (polled != null) {
        applier.commitPending(polled);
      }
      Map<TopicPartition, Long> positions = new HashMap<>();
      for (TopicPartition partition : revoked) {
        Long position = processed.remove(partition);
        try {
          position = consumer.position(partition, Duration.ZERO);
        } catch (RuntimeException unknown) {
          // Assigned but never fetched from: the last batch's position (if any) is all we know.
        }
        if (position != null) {
          positions.put(partition, position);
        }
      }
      partitions.stopped(revoked, positions);
    }

    /** The partitions already belong to another member: only what this one processed is known. */
    @Override
    public void onPartitionsLost(Collection<TopicPartition> lost) {
      Map<TopicPartition, Long> positions = new HashMap<>();
      for (TopicPartition partition : lost) {
        Long position = processed.remove(partition);
        if (position != null) {
          positions.put(partition, position);
        }
      }
      partitions.stopped(lost, positions);
    }
  }

  private ReplyListeners() {}
}
