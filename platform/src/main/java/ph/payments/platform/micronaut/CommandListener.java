package ph.payments.platform.micronaut;

import io.micronaut.configuration.kafka.annotation.ErrorStrategy;
import io.micronaut.configuration.kafka.annotation.ErrorStrategyValue;
import io.micronaut.configuration.kafka.annotation.KafkaListener;
import io.micronaut.configuration.kafka.annotation.OffsetReset;
import io.micronaut.configuration.kafka.annotation.OffsetStrategy;
import io.micronaut.configuration.kafka.annotation.Topic;
import io.micronaut.context.annotation.Requires;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.tx.Transactions;

/**
 * Consumes the service's command topic ({@code commands.topic}). Offsets are committed only after
 * the transaction that applied a batch committed; a failure is retried on the same record (never
 * skipped: a command is money), and the inbox makes the retry harmless.
 */
@Requires(property = "commands.topic")
@KafkaListener(
    groupId = "${micronaut.application.name}",
    offsetReset = OffsetReset.EARLIEST,
    offsetStrategy = OffsetStrategy.SYNC,
    errorStrategy =
        @ErrorStrategy(
            value = ErrorStrategyValue.RETRY_ON_ERROR,
            retryDelay = "1s",
            retryCount = Integer.MAX_VALUE))
public class CommandListener {

  private final CommandDispatcher dispatcher;
  private final Transactions transactions;

  public CommandListener(CommandDispatcher dispatcher, Transactions transactions) {
    this.dispatcher = dispatcher;
    this.transactions = transactions;
  }

  @Topic("${commands.topic}")
  public void receive(ConsumerRecord<String, byte[]> record) {
    transactions.inTransaction(
        connection -> dispatcher.dispatch(connection, KafkaEnvelopes.fromRecord(record)));
  }
}
