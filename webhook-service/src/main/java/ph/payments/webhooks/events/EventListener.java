package ph.payments.webhooks.events;

import io.micronaut.configuration.kafka.annotation.ErrorStrategy;
import io.micronaut.configuration.kafka.annotation.ErrorStrategyValue;
import io.micronaut.configuration.kafka.annotation.KafkaListener;
import io.micronaut.configuration.kafka.annotation.OffsetReset;
import io.micronaut.configuration.kafka.annotation.OffsetStrategy;
import io.micronaut.configuration.kafka.annotation.Topic;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.tx.Transactions;
import ph.payments.webhooks.deliveries.DeliveryScheduler;

/**
 * Consumes the event topic ({@code webhooks.events.topic}, {@code payments.events}). Offsets are
 * committed after the transaction that created the deliveries committed; a failure is retried on
 * the same record (an event is never skipped), and the inbox makes the retry harmless.
 */
@Requires(property = "webhooks.events.topic")
@KafkaListener(
    groupId = "${webhooks.events.group-id}",
    offsetReset = OffsetReset.EARLIEST,
    offsetStrategy = OffsetStrategy.SYNC,
    errorStrategy =
        @ErrorStrategy(
            value = ErrorStrategyValue.RETRY_ON_ERROR,
            retryDelay = "1s",
            retryCount = Integer.MAX_VALUE))
public class EventListener {

  private final Transactions transactions;
  private final FanOut fanOut;
  private final DeliveryScheduler scheduler;

  public EventListener(
      Transactions transactions, FanOut fanOut, @Nullable DeliveryScheduler scheduler) {
    this.transactions = transactions;
    this.fanOut = fanOut;
    this.scheduler = scheduler;
  }

  @Topic("${webhooks.events.topic}")
  public void receive(ConsumerRecord<String, byte[]> record) {
    int created =
        transactions.inTransaction(c -> fanOut.apply(c, KafkaEnvelopes.fromRecord(record)));
    if (created > 0 && scheduler != null) {
      scheduler.wake(); // committed: the first attempt can start now
    }
  }
}
