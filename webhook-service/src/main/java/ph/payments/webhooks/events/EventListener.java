package ph.payments.webhooks.events;

import io.micronaut.configuration.kafka.annotation.KafkaListener;
import io.micronaut.configuration.kafka.annotation.OffsetReset;
import io.micronaut.configuration.kafka.annotation.OffsetStrategy;
import io.micronaut.configuration.kafka.annotation.Topic;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import java.time.Clock;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import ph.payments.platform.inbox.IdempotentConsumer;
import ph.payments.platform.kafka.BatchApplier;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.ParkedMessages;
import ph.payments.platform.kafka.Parkers;
import ph.payments.platform.tx.Transactions;
import ph.payments.webhooks.deliveries.DeliveryScheduler;

/**
 * Consumes the event topic ({@code webhooks.events.topic}, {@code payments.events}). Each poll's
 * deliveries are created in one transaction and its offsets committed after it; a failure is
 * retried on the same record (an event is never skipped), and the inbox makes the retry harmless
 * ({@link BatchApplier}).
 */
@Requires(property = "webhooks.events.topic")
@KafkaListener(
    groupId = "${webhooks.events.group-id}",
    offsetReset = OffsetReset.EARLIEST,
    offsetStrategy = OffsetStrategy.DISABLED,
    batch = true)
public class EventListener {

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
            "webhook events",
            transactions,
            settings,
            parked,
            Parkers.inbox(inbox, FanOut.CONSUMER),
            clock);
    this.fanOut = fanOut;
    this.scheduler = scheduler;
  }

  @Topic("${webhooks.events.topic}")
  public void receive(List<ConsumerRecord<String, byte[]>> records, Consumer<?, ?> consumer) {
    int[] created = {0};
    applier.apply(
        records,
        consumer,
        (connection, record) ->
            created[0] += fanOut.apply(connection, KafkaEnvelopes.fromRecord(record)));
    if (created[0] > 0 && scheduler != null) {
      scheduler.wake(); // committed: the first attempt can start now
    }
  }
}
