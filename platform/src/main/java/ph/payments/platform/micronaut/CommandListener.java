package ph.payments.platform.micronaut;

import io.micronaut.configuration.kafka.annotation.KafkaListener;
import io.micronaut.configuration.kafka.annotation.OffsetReset;
import io.micronaut.configuration.kafka.annotation.OffsetStrategy;
import io.micronaut.configuration.kafka.annotation.Topic;
import io.micronaut.context.annotation.Requires;
import java.time.Clock;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.kafka.BatchApplier;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.KafkaTracing;
import ph.payments.platform.kafka.ParkedMessages;
import ph.payments.platform.tx.Transactions;

/**
 * Consumes the service's command topic ({@code commands.topic}) with {@code commands.threads}
 * consumers (one per partition at most; one by default, which on two cores took less CPU a command
 * than three and kept up: docs/decisions.md, "One command consumer per replica"). Each poll is
 * applied in one transaction (its command ids recorded in the inbox in one statement, then each new
 * command applied in poll order) and the consumer commits its offsets once a second after it; a
 * failure is retried on the same record (never skipped: a command is money), and the inbox makes
 * the retry harmless. A command that fails on its own {@code consumers.max-attempts} times is
 * parked with a 500 {@code internal_error} reply saying it was not applied ({@link
 * CommandDispatcher#park}), so it cannot block the commands behind it. See {@link BatchApplier}.
 */
@Requires(property = "commands.topic")
@KafkaListener(
    groupId = "${micronaut.application.name}",
    offsetReset = OffsetReset.EARLIEST,
    offsetStrategy = OffsetStrategy.AUTO,
    batch = true,
    threadsValue = "${commands.threads:1}")
public class CommandListener {

  private final CommandDispatcher dispatcher;
  private final BatchApplier applier;

  public CommandListener(
      CommandDispatcher dispatcher,
      Transactions transactions,
      BatchApplier.Settings settings,
      ParkedMessages parked,
      Clock clock) {
    this.dispatcher = dispatcher;
    this.applier =
        new BatchApplier(
            "commands",
            transactions,
            settings.committedByTheConsumer(),
            parked,
            (connection, record, reason) -> dispatcher.park(connection, record),
            clock);
  }

  @Topic("${commands.topic}")
  public void receive(List<ConsumerRecord<String, byte[]>> records, Consumer<?, ?> consumer) {
    // Calls to other services (a payout's ledger hold) happen here, before the batch transaction
    // opens, so no transaction waits on the network (CommandHandler.prepare).
    for (ConsumerRecord<String, byte[]> record : records) {
      KafkaTracing.consume(
          "prepare",
          record,
          () -> {
            dispatcher.prepare(KafkaEnvelopes.fromRecord(record));
            return null;
          });
    }
    // The poll's command ids go into the inbox in one statement, not one each.
    applier.applyAll(records, consumer, dispatcher::dispatchAll);
  }
}
