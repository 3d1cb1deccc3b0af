package ph.payments.webhooks.events;

import io.micronaut.configuration.kafka.annotation.KafkaListener;
import io.micronaut.configuration.kafka.annotation.OffsetReset;
import io.micronaut.configuration.kafka.annotation.OffsetStrategy;
import io.micronaut.configuration.kafka.annotation.Topic;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import java.time.Clock;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import ph.payments.platform.inbox.IdempotentConsumer;
import ph.payments.platform.kafka.BatchApplier;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.KafkaTracing;
import ph.payments.platform.kafka.ParkedMessages;
import ph.payments.platform.kafka.Parkers;
import ph.payments.platform.tx.Transactions;
import ph.payments.webhooks.deliveries.DeliveryScheduler;
import ph.payments.webhooks.deliveries.Reservations;

/**
 * Consumes the event topic ({@code webhooks.events.topic}, {@code payments.events}). Each poll's
 * deliveries are created in one transaction, in a fixed number of statements ({@link
 * FanOut#applyAll}), and the consumer commits its offsets once a second; a failure is retried on
 * the same record (an event is never skipped), and the inbox makes the retry harmless ({@link
 * BatchApplier}).
 *
 * <p>The deliveries handed off to this instance ({@link FanOut}) start as soon as the transaction
 * that leased them committed, which the applier tells record by record; the slots reserved by a
 * transaction that rolled back are given back, whether its records are applied again now or on a
 * later poll.
 */
@Requires(property = "webhooks.events.topic")
@KafkaListener(
    groupId = "${webhooks.events.group-id}",
    offsetReset = OffsetReset.EARLIEST,
    offsetStrategy = OffsetStrategy.AUTO,
    batch = true)
public class EventListener {

  private static final String NAME = "webhook events";

  private final BatchApplier applier;
  private final FanOut fanOut;
  private final DeliveryScheduler scheduler;

  public EventListener(
      Transactions transactions,
      FanOut fanOut,
      @Nullable DeliveryScheduler scheduler,
      BatchApplier.Settings settings,
      ParkedMessages parked,
      IdempotentConsumer inbox,
      Clock clock) {
    // An event that keeps failing is parked without a reply (an event answers nobody): its
    // deliveries are not created, and the operator sees it in parked_messages.
    this.applier =
        new BatchApplier(
            NAME,
            transactions,
            settings.committedByTheConsumer(),
            parked,
            Parkers.inbox(inbox, FanOut.CONSUMER),
            clock);
    this.fanOut = fanOut;
    this.scheduler = scheduler;
  }

  @Topic("${webhooks.events.topic}")
  public void receive(List<ConsumerRecord<String, byte[]>> records, Consumer<?, ?> consumer) {
    // What each record's latest try handed off, until its transaction is known to have committed.
    Map<ConsumerRecord<String, byte[]>, Reservations> uncommitted = new IdentityHashMap<>();
    boolean[] waiting = {false};
    FanOut.Reads reads = new FanOut.Reads();
    try {
      applier.applyAll(
          records,
          consumer,
          (connection, batch) -> {
            List<FanOut.Incoming> events = new ArrayList<>(batch.size());
            for (ConsumerRecord<String, byte[]> record : batch) {
              Reservations earlier = uncommitted.remove(record);
              if (earlier != null) {
                earlier.rolledBack(); // applied again: its earlier transaction did not commit
              }
              Reservations slots = new Reservations(scheduler);
              uncommitted.put(record, slots);
              events.add(
                  KafkaTracing.consume(
                      NAME,
                      record,
                      () -> FanOut.Incoming.current(KafkaEnvelopes.fromRecord(record), slots)));
            }
            waiting[0] |= fanOut.applyAll(connection, events, reads).waiting() > 0;
          },
          committed -> {
            for (ConsumerRecord<String, byte[]> record : committed) {
              Reservations slots = uncommitted.remove(record);
              if (slots != null) {
                slots.committed();
              }
            }
          });
    } finally {
      uncommitted.values().forEach(Reservations::rolledBack);
    }
    if (waiting[0] && scheduler != null) {
      scheduler.wake(); // deliveries without a slot here wait for a claim: look at the queue now
    }
  }
}
