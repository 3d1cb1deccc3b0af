package ph.payments.gateway.testwidgets;

import io.micronaut.configuration.kafka.annotation.ErrorStrategy;
import io.micronaut.configuration.kafka.annotation.ErrorStrategyValue;
import io.micronaut.configuration.kafka.annotation.KafkaListener;
import io.micronaut.configuration.kafka.annotation.OffsetReset;
import io.micronaut.configuration.kafka.annotation.OffsetStrategy;
import io.micronaut.configuration.kafka.annotation.Topic;
import io.micronaut.context.annotation.Requires;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.inbox.IdempotentConsumer;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.outbox.OutboxWriter;
import ph.payments.platform.tx.Transactions;

/**
 * The owner of test widgets, built like a real command owner: it consumes its command topic ({@code
 * test-widgets.topic}) through the platform's {@link CommandDispatcher} (inbox, handler and reply
 * in one transaction, reply to {@code Topics.COMMAND_REPLIES} through the outbox). It lives in the
 * gateway's test JVM and uses the gateway's database, which has the outbox and inbox tables.
 *
 * <p>Tests can {@link #pause()} it, so replies come late, and read how many commands it really
 * applied (a redelivered command is not counted: the inbox drops it).
 */
@Singleton
@Requires(property = "test-widgets.topic")
@KafkaListener(
    groupId = "test-widget-owner.${test-widgets.topic}",
    offsetReset = OffsetReset.EARLIEST,
    offsetStrategy = OffsetStrategy.SYNC,
    errorStrategy =
        @ErrorStrategy(
            value = ErrorStrategyValue.RETRY_ON_ERROR,
            retryDelay = "200ms",
            retryCount = Integer.MAX_VALUE))
public class WidgetOwner {

  private final Transactions transactions;
  private final CommandDispatcher dispatcher;
  private final AtomicInteger applied = new AtomicInteger();
  private final Object gate = new Object();
  private boolean paused;

  public WidgetOwner(
      Transactions transactions, IdempotentConsumer inbox, OutboxWriter outbox, Clock clock) {
    this.transactions = transactions;
    this.dispatcher =
        new CommandDispatcher("test-widget-owner", List.of(new CreateWidget(clock)), inbox, outbox);
    transactions.inTransaction(CreateWidget::createTable);
  }

  @Topic("${test-widgets.topic}")
  void receive(ConsumerRecord<String, byte[]> record) throws InterruptedException {
    awaitOpen();
    boolean appliedNow =
        transactions.inTransaction(
            connection -> dispatcher.dispatch(connection, KafkaEnvelopes.fromRecord(record)));
    if (appliedNow) {
      applied.incrementAndGet();
    }
  }

  /** Commands wait (unapplied, unanswered) until {@link #resume()}. */
  public void pause() {
    synchronized (gate) {
      paused = true;
    }
  }

  @PreDestroy
  public void resume() {
    synchronized (gate) {
      paused = false;
      gate.notifyAll();
    }
  }

  /** How many commands this owner applied (each at most once, whatever Kafka redelivers). */
  public int applied() {
    return applied.get();
  }

  private void awaitOpen() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    synchronized (gate) {
      // Bounded, so a test that forgets to resume cannot hang the build.
      while (paused && System.nanoTime() < deadline) {
        gate.wait(100);
      }
    }
  }
}
