package ph.payments.platform.outbox;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.contracts.Envelope;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.KafkaTracing;

/**
 * The outbox's express lane: a message on one of its topics is sent to Kafka by the thread that
 * wrote it, right after its transaction committed, instead of waiting for the relay's next pass;
 * the relay then only marks it published, with its next read.
 *
 * <p><b>Only topics whose keys each carry one message.</b> The relay keeps a key's messages in
 * order by sending a key's next row only once Kafka acknowledged the one before it; a thread that
 * sends its own message cannot know what else of its key is pending. A command ({@code
 * payments.commands}, {@code webhooks.commands}) is keyed by its own id and a command's reply by
 * the command's, one message a key, so for them there is no order to keep. Events, keyed by their
 * payment, go through the relay.
 *
 * <p><b>Never a message that did not commit.</b> The writer admits a message only where its commit
 * is certain once the writing returns: a statement in auto-commit mode (it committed when it
 * returned), or a transaction whose {@code Transactions} call owns the commit and reports it
 * ({@code AfterCommit.registerCertain}). Anything else goes through the relay as before.
 *
 * <p><b>Never a message lost.</b> A message is admitted before its statement runs, and from then
 * until Kafka answers the relay leaves it out of its reads. Whatever happens to the send (refused,
 * failed, the producer closed, the transaction rolled back, the thread gone), the row is still
 * pending in the table: a failure or a rollback withdraws the admission at once, and an admission
 * that nothing resolves lapses after {@link #LAPSE}, so the relay sends the row itself. A message
 * can therefore go out twice (the lane's send acknowledged after its admission lapsed and the relay
 * sent the row), which consumers drop by message id, as they drop the relay's own resends.
 *
 * <p>The lane is open only while the relay of this process leads and has a producer, which it lends
 * to the lane; a process whose relay does not lead writes for the leader's relay as before.
 */
public final class OutboxExpress {

  private static final Logger log = LoggerFactory.getLogger(OutboxExpress.class);

  /** How long the relay leaves an admitted message alone before it sends the row itself. */
  static final Duration LAPSE = Duration.ofSeconds(5);

  /** Test seam: decides whether a committed message is sent (false: as if its thread died). */
  @FunctionalInterface
  public interface Probe {
    Probe NONE = envelope -> true;

    boolean send(Envelope envelope);
  }

  private final Set<String> topics;
  private final Clock clock;
  private volatile Producer<String, byte[]> producer;
  private volatile OutboxRelay.Observer observer = OutboxRelay.Observer.NONE;
  private volatile Probe probe = Probe.NONE;

  /** Admitted and not yet answered by Kafka: message id → when admitted ({@code nanoTime}). */
  private final ConcurrentHashMap<String, Long> admitted = new ConcurrentHashMap<>();

  /** Acknowledged by Kafka, waiting for the relay's mark. */
  private final ConcurrentLinkedQueue<String> acknowledged = new ConcurrentLinkedQueue<>();

  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final Runnable ringRelay;

  OutboxExpress(Set<String> topics, Clock clock, Runnable ringRelay) {
    this.topics = Set.copyOf(topics);
    this.clock = Objects.requireNonNull(clock);
    this.ringRelay = Objects.requireNonNull(ringRelay);
  }

  /** True when the lane may take messages of {@code topic} now. */
  boolean takes(String topic) {
    return producer != null && topics.contains(topic);
  }

  /** True when some topic goes by the lane ({@code outbox.express-topics}). */
  public boolean configured() {
    return !topics.isEmpty();
  }

  /** Messages Kafka acknowledged through the lane since the start. */
  public long sentCount() {
    return sent.get();
  }

  /** Sends of the lane that failed (their rows went through the relay). */
  public long failedCount() {
    return failed.get();
  }

  /** Replaces the test seam. */
  public OutboxExpress probe(Probe probe) {
    this.probe = Objects.requireNonNull(probe);
    return this;
  }

  // --- the writer's side -------------------------------------------------------------------------

  /** Admits {@code envelope}: from now until it is answered or lapses, the relay leaves it out. */
  void admit(Envelope envelope) {
    admitted.put(envelope.messageId(), System.nanoTime());
  }

  /** The message's statement failed, its transaction rolled back or its guard wrote nothing. */
  void withdraw(Envelope envelope) {
    if (admitted.remove(envelope.messageId()) != null) {
      ringRelay.run();
    }
  }

  /** Sends {@code envelope}, whose row has committed; never throws. */
  void send(String topic, Envelope envelope) {
    Producer<String, byte[]> lent = producer;
    if (lent == null || !probe.send(envelope)) {
      if (lent == null) {
        withdraw(envelope); // the relay stepped down or replaced its producer: it sends the row
      }
      return;
    }
    var span = KafkaTracing.publish(topic, envelope);
    ProducerRecord<String, byte[]> record =
        KafkaEnvelopes.toRecord(topic, KafkaTracing.carrying(span, envelope));
    try {
      lent.send(
          record,
          (metadata, failure) -> {
            KafkaTracing.published(span, failure);
            answered(envelope, failure);
          });
    } catch (RuntimeException refused) {
      KafkaTracing.published(span, refused);
      answered(envelope, refused);
    }
  }

  private void answered(Envelope envelope, Exception failure) {
    if (failure == null) {
      admitted.remove(envelope.messageId());
      acknowledged.add(envelope.messageId());
      sent.incrementAndGet();
      observer.acknowledged(Duration.between(envelope.time(), clock.instant()));
    } else {
      failed.incrementAndGet();
      observer.failed();
      log.debug("outbox express: {} failed, the relay sends it: {}", envelope.messageId(), failure);
      withdraw(envelope);
    }
  }

  // --- the relay's side --------------------------------------------------------------------------

  /** The relay leads with {@code lent}: the lane opens. */
  void open(Producer<String, byte[]> lent, OutboxRelay.Observer observer) {
    this.observer = observer;
    this.producer = lent;
  }

  /**
   * The relay stops leading or replaces its producer: the lane closes before the producer does, and
   * what Kafka acknowledged but the relay did not mark stays pending (the next leader sends it
   * again, as after a relay that dies between acknowledgement and mark).
   */
  void close() {
    producer = null;
    acknowledged.clear();
  }

  /** Takes the acknowledged messages for the relay's next mark. */
  List<String> takeAcknowledged() {
    List<String> ids = new ArrayList<>();
    for (String id; (id = acknowledged.poll()) != null; ) {
      ids.add(id);
    }
    return ids;
  }

  /**
   * The messages the relay's read must leave out: admitted and not lapsed. A lapsed admission is
   * dropped here, so the read that follows finds its row.
   */
  List<String> inFlight() {
    if (admitted.isEmpty()) {
      return List.of();
    }
    long oldest = System.nanoTime() - LAPSE.toNanos();
    List<String> ids = new ArrayList<>(admitted.size());
    admitted.forEach(
        (id, since) -> {
          if (since - oldest < 0) {
            admitted.remove(id, since);
          } else {
            ids.add(id);
          }
        });
    return ids;
  }
}
