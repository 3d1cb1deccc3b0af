package ph.payments.ledger.events.messaging;

import io.micronaut.configuration.kafka.annotation.KafkaListener;
import io.micronaut.configuration.kafka.annotation.OffsetReset;
import io.micronaut.configuration.kafka.annotation.OffsetStrategy;
import io.micronaut.configuration.kafka.annotation.Topic;
import io.micronaut.context.annotation.Requires;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.Topics;
import ph.payments.ledger.audit.JdbcAnomalies;
import ph.payments.ledger.events.application.ApplyEvent;
import ph.payments.ledger.events.application.EventReader;
import ph.payments.platform.inbox.IdempotentConsumer;
import ph.payments.platform.kafka.BatchApplier;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.KafkaTracing;
import ph.payments.platform.kafka.ParkedMessages;
import ph.payments.platform.kafka.Parkers;
import ph.payments.platform.tx.Transactions;

/**
 * Consumes the event topic (consumer group {@code ledger.events.group-id}, {@code ledger-service}
 * by default). A poll's records are applied in one transaction, their inbox rows in one statement
 * ({@link ApplyEvent#applyAll}); offsets are committed only after it committed, and a failing
 * record is retried (never skipped), the inbox making a retry harmless ({@link BatchApplier}); one
 * that fails on its own {@code consumers.max-attempts} times is parked (below). Replicas of the
 * service share the group, so each partition, and with it each payment's and payout's events, is
 * applied in order by one of them.
 */
@Requires(property = "ledger.events.enabled", notEquals = "false")
@KafkaListener(
    groupId = "${ledger.events.group-id:ledger-service}",
    offsetReset = OffsetReset.EARLIEST,
    offsetStrategy = OffsetStrategy.AUTO,
    batch = true)
public class EventsListener {

  private static final String NAME = "ledger events";

  private final ApplyEvent events;
  private final BatchApplier applier;

  public EventsListener(
      ApplyEvent events,
      Transactions transactions,
      BatchApplier.Settings settings,
      ParkedMessages parked,
      IdempotentConsumer inbox,
      JdbcAnomalies anomalies,
      Clock clock) {
    this.events = events;
    BatchApplier.Parker inboxEntry = Parkers.inbox(inbox, ApplyEvent.CONSUMER);
    // An event that keeps failing is parked like one that can never apply: consumed (inbox), kept
    // whole in ledger_anomalies, where the audit reports it, and in parked_messages for the
    // operator API.
    this.applier =
        new BatchApplier(
            NAME,
            transactions,
            settings.committedByTheConsumer(),
            parked,
            (connection, record, reason) -> {
              inboxEntry.park(connection, record, reason);
              anomalies.record(connection, read(record), "parked: " + reason);
              return false;
            },
            clock);
  }

  @Topic(Topics.EVENTS)
  public void receive(List<ConsumerRecord<String, byte[]>> records, Consumer<?, ?> consumer) {
    // The poll's inbox rows in one statement; each event's postings in its record's span.
    applier.applyAll(
        records,
        consumer,
        (connection, batch) ->
            events.applyAll(
                connection,
                batch.stream().map(EventsListener::read).toList(),
                (position, work) ->
                    KafkaTracing.consume(
                        NAME,
                        batch.get(position),
                        () -> {
                          work.run();
                          return null;
                        })));
  }

  private static Envelope read(ConsumerRecord<String, byte[]> record) {
    Envelope envelope;
    try {
      envelope = KafkaEnvelopes.fromRecord(record);
    } catch (RuntimeException notOurs) {
      // Not written by an outbox of this system (headers missing): it can never be applied, so
      // it is parked under its position rather than stalling the partition.
      envelope =
          new Envelope(
              "kafka:" + record.topic() + "-" + record.partition() + "@" + record.offset(),
              EventReader.UNREADABLE,
              String.valueOf(record.key()),
              Instant.ofEpochMilli(record.timestamp()),
              record.value() == null ? new byte[0] : record.value());
    }
    return envelope;
  }
}
