package ph.payments.platform.kafka;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.tx.SqlWork;
import ph.payments.platform.tx.Transactions;

/**
 * Applies the records of one poll in one database transaction, then commits their offsets: one
 * commit (and one fsync) for the whole batch instead of one per record, which is what lets a
 * consumer keep up with a busy topic.
 *
 * <p>A record is never skipped. When the batch transaction fails (a failing record, a deadlock with
 * another consumer thread, the database away), nothing of it committed; the records are then
 * applied one transaction each, in order. Each partition goes on until its first record that still
 * fails; that partition is rewound to the failing record, so the next poll retries it after {@code
 * retryDelay}, while what did apply keeps its committed offset. The effects must be idempotent per
 * record (the inbox): a crash between the database commit and the offset commit redelivers records
 * that already applied. An applier that commits at intervals ({@link OffsetCommits#AT_INTERVALS})
 * or a consumer that commits its own positions ({@link OffsetCommits#BY_THE_CONSUMER}) commits less
 * often; the same holds.
 *
 * <p><b>Parking.</b> With {@link Settings#maxAttempts()} above zero, a record that fails on its own
 * that many times in a row is parked instead of blocking its partition forever: in one transaction
 * the consumer's {@link Parker} records it as consumed (its inbox row, so a redelivery does
 * nothing) and sends whatever answer it owes (a command's rejection reply), and the record is kept
 * whole in {@code parked_messages}; then the partition moves on. A failure of the infrastructure
 * ({@link InfrastructureFailures}: the database away, a deadlock, a serialization failure) is never
 * counted, so an outage parks nothing: those records wait and are retried as before. Parking logs
 * an ERROR with the marker {@value #PARKED_MARKER}.
 */
public final class BatchApplier {

  /** The effect of one record, inside the caller's transaction. */
  @FunctionalInterface
  public interface RecordWork {
    void apply(Connection connection, ConsumerRecord<String, byte[]> record) throws SQLException;
  }

  /**
   * The effect of records applied together, inside the caller's transaction: set-based statements
   * for a whole poll instead of one round of statements per record. When the poll's transaction
   * fails, the records are applied one transaction each, as with {@link RecordWork}: the work is
   * then given a list of one.
   */
  @FunctionalInterface
  public interface BatchWork {
    void apply(Connection connection, List<ConsumerRecord<String, byte[]>> records)
        throws SQLException;

    /** Whether the work is a single statement, run auto-committed ({@link OneStatementWork}). */
    default boolean oneStatement() {
      return false;
    }
  }

  /**
   * A {@link BatchWork} that writes in exactly one statement, its last step: it runs in auto-commit
   * mode ({@link Transactions#autoCommitted}), one round trip to the database where a transaction
   * takes two, and as atomic, since a statement commits whole or not at all. What the work does
   * before its statement must not write.
   */
  @FunctionalInterface
  public interface OneStatementWork extends BatchWork {
    @Override
    default boolean oneStatement() {
      return true;
    }
  }

  /**
   * Told, right after a transaction of {@link #apply} committed, the records whose work it held:
   * the whole poll, or one record when they are applied one by one. A record whose transaction
   * rolled back is not told (its work is applied again, or the record waits for the next poll), nor
   * is a parked one (its work never committed). Lets a consumer act on what its work did only once
   * that is durable, e.g. start what the transaction scheduled.
   */
  @FunctionalInterface
  public interface Committed {
    /** Must not throw; what it throws is logged and otherwise ignored (the work is committed). */
    void committed(List<ConsumerRecord<String, byte[]>> records);
  }

  /**
   * What a consumer does, in the parking transaction, for a record it gives up on: record it in its
   * inbox and send the answer it owes, if any.
   */
  @FunctionalInterface
  public interface Parker {
    /**
     * @return true when a reply went out (the record's sender has its answer)
     */
    boolean park(Connection connection, ConsumerRecord<String, byte[]> record, String reason)
        throws SQLException;
  }

  /** Who commits the offsets of what applied. */
  public enum OffsetCommits {
    /** The applier, without waiting, after each transaction that committed. */
    AFTER_EACH_TRANSACTION,
    /**
     * The applier, without waiting, after a transaction that committed once {@link
     * Settings#commitInterval()} has passed since its last offset commit for that consumer; the
     * offsets of the transactions in between go with that commit. A poll after a quiet interval
     * commits at once; the last polls of a burst wait for the next poll that applies something, or
     * for {@link #commitPending} (a consumer calls it when its partitions are revoked). So a crash
     * redelivers up to an interval's records, which the consumer must take as it takes any
     * redelivery (its inbox, or effects that are idempotent by themselves).
     */
    AT_INTERVALS,
    /**
     * The consumer itself ({@code enable.auto.commit}, every {@code auto.commit.interval.ms}, at
     * the start of a poll and before its partitions are revoked): it commits its positions, which
     * are past what applied and no further, since a poll's records are applied before the next poll
     * and the applier rewinds a failing partition to its failing record. One offset commit a second
     * per consumer instead of one per poll; a crash redelivers up to an interval's records, which
     * the inbox drops.
     */
    BY_THE_CONSUMER
  }

  /**
   * @param retryDelay pause before a failing record is tried again
   * @param maxAttempts failures of a record (infrastructure failures not counted) after which it is
   *     parked; 0 never parks
   * @param offsetCommits who commits the offsets
   * @param commitInterval the least time between two offset commits of {@link
   *     OffsetCommits#AT_INTERVALS}; unused otherwise
   */
  public record Settings(
      Duration retryDelay, int maxAttempts, OffsetCommits offsetCommits, Duration commitInterval) {
    public Settings {
      Objects.requireNonNull(retryDelay);
      Objects.requireNonNull(offsetCommits);
      Objects.requireNonNull(commitInterval);
      if (maxAttempts < 0) {
        throw new IllegalArgumentException("maxAttempts must not be negative");
      }
      if (commitInterval.isNegative()) {
        throw new IllegalArgumentException("commitInterval must not be negative");
      }
    }

    /** {@code offsetCommits} at the default interval, {@link #DEFAULT_COMMIT_INTERVAL}. */
    public Settings(Duration retryDelay, int maxAttempts, OffsetCommits offsetCommits) {
      this(retryDelay, maxAttempts, offsetCommits, DEFAULT_COMMIT_INTERVAL);
    }

    /** The applier commits after each transaction. */
    public Settings(Duration retryDelay, int maxAttempts) {
      this(retryDelay, maxAttempts, OffsetCommits.AFTER_EACH_TRANSACTION);
    }

    /** The interval of {@link OffsetCommits#AT_INTERVALS} unless one is given: a second. */
    public static final Duration DEFAULT_COMMIT_INTERVAL = Duration.ofSeconds(1);

    /**
     * These settings for a consumer that commits its own positions ({@code @KafkaListener(
     * offsetStrategy = OffsetStrategy.AUTO)}).
     */
    public Settings committedByTheConsumer() {
      return new Settings(retryDelay, maxAttempts, OffsetCommits.BY_THE_CONSUMER);
    }

    /**
     * These settings for an applier that commits at most once every {@code interval} ({@link
     * OffsetCommits#AT_INTERVALS}).
     */
    public Settings committedAtIntervals(Duration interval) {
      return new Settings(retryDelay, maxAttempts, OffsetCommits.AT_INTERVALS, interval);
    }
  }

  /** The marker of the ERROR line logged when a record is parked; alerting matches on it. */
  public static final String PARKED_MARKER = "PARKED_MESSAGE";

  private static final Logger log = LoggerFactory.getLogger(BatchApplier.class);

  private final String name;
  private final Transactions transactions;
  private final Duration retryDelay;
  private final int maxAttempts;
  private final OffsetCommits offsetCommits;
  private final Duration commitInterval;
  private final ParkedMessages parked;
  private final Parker parker;
  private final Clock clock;

  /** The failing record of each partition (one consumer thread per partition at a time). */
  private final Map<TopicPartition, Failing> failing = new ConcurrentHashMap<>();

  /**
   * {@link OffsetCommits#AT_INTERVALS}: per consumer (a listener's threads may share an applier,
   * each with a consumer of its own), the offsets applied and not yet committed, and when it last
   * committed. Each is used by its consumer's poll thread only.
   */
  private final Map<Consumer<?, ?>, Uncommitted> uncommitted = new ConcurrentHashMap<>();

  /** An applier that never parks: a failing record is retried until it applies. */
  public BatchApplier(String name, Transactions transactions, Duration retryDelay) {
    this(name, transactions, new Settings(retryDelay, 0), null, null, Clock.systemUTC());
  }

  /**
   * @param name the consumer's name; parked rows carry it
   * @param parked where parked records are kept
   * @param parker the consumer's part of parking
   */
  public BatchApplier(
      String name,
      Transactions transactions,
      Settings settings,
      ParkedMessages parked,
      Parker parker,
      Clock clock) {
    this.name = name;
    this.transactions = transactions;
    this.retryDelay = settings.retryDelay();
    this.maxAttempts = settings.maxAttempts();
    this.offsetCommits = settings.offsetCommits();
    this.commitInterval = settings.commitInterval();
    this.parked = parked;
    this.parker = parker;
    this.clock = clock;
    if (maxAttempts > 0) {
      Objects.requireNonNull(parked, "parked");
      Objects.requireNonNull(parker, "parker");
    }
  }

  /**
   * Applies {@code records} (one poll of {@code consumer}, in poll order) and commits the offsets
   * of what applied.
   *
   * @return how many records applied now (including inbox duplicates, which apply as nothing)
   */
  public int apply(
      List<ConsumerRecord<String, byte[]>> records, Consumer<?, ?> consumer, RecordWork work) {
    return apply(records, consumer, work, committed -> {});
  }

  /**
   * Like {@link #apply(List, Consumer, RecordWork)}, and tells {@code committed} after each
   * transaction that committed which records it applied.
   */
  public int apply(
      List<ConsumerRecord<String, byte[]>> records,
      Consumer<?, ?> consumer,
      RecordWork work,
      Committed committed) {
    return applyAll(
        records,
        consumer,
        (connection, batch) -> {
          for (ConsumerRecord<String, byte[]> record : batch) {
            applyTraced(work, connection, record);
          }
        },
        committed);
  }

  /**
   * Like {@link #apply(List, Consumer, RecordWork)} for work that takes the poll's records at once
   * (its own spans: {@link KafkaTracing#consume} per record is the caller's to open).
   */
  public int applyAll(
      List<ConsumerRecord<String, byte[]>> records, Consumer<?, ?> consumer, BatchWork work) {
    return applyAll(records, consumer, work, committed -> {});
  }

  /**
   * Like {@link #applyAll(List, Consumer, BatchWork)}, and tells {@code committed} after each
   * transaction that committed which records it applied.
   */
  public int applyAll(
      List<ConsumerRecord<String, byte[]>> records,
      Consumer<?, ?> consumer,
      BatchWork work,
      Committed committed) {
    if (records.isEmpty()) {
      return 0;
    }
    try {
      applyCommitted(work, records);
    } catch (RuntimeException batchFailed) {
      log.warn(
          "{}: a batch of {} records failed ({}); applying them one by one",
          name,
          records.size(),
          batchFailed.toString());
      return applyOneByOne(records, consumer, work, committed);
    }
    tell(committed, records);
    Map<TopicPartition, OffsetAndMetadata> offsets = nextOffsets(records);
    if (!failing.isEmpty()) {
      failing.keySet().removeAll(offsets.keySet());
    }
    commit(consumer, offsets);
    return records.size();
  }

  /** {@code work} on {@code records}, committed: in a transaction, or auto-committed. */
  private void applyCommitted(BatchWork work, List<ConsumerRecord<String, byte[]>> records) {
    SqlWork<Void> committed =
        connection -> {
          work.apply(connection, records);
          return null;
        };
    if (work.oneStatement()) {
      transactions.autoCommitted(committed);
    } else {
      transactions.inTransaction(committed);
    }
  }

  /** One record's work in a span continuing its producer's trace ({@link KafkaTracing}). */
  private void applyTraced(
      RecordWork work, Connection connection, ConsumerRecord<String, byte[]> record)
      throws SQLException {
    KafkaTracing.consume(
        name,
        record,
        () -> {
          work.apply(connection, record);
          return null;
        });
  }

  private void tell(Committed committed, List<ConsumerRecord<String, byte[]>> records) {
    try {
      committed.committed(records);
    } catch (RuntimeException e) {
      log.error("{}: after a commit: {}", name, e.toString(), e);
    }
  }

  private int applyOneByOne(
      List<ConsumerRecord<String, byte[]>> records,
      Consumer<?, ?> consumer,
      BatchWork work,
      Committed committed) {
    Map<TopicPartition, ConsumerRecord<String, byte[]>> stuck = new LinkedHashMap<>();
    Map<TopicPartition, OffsetAndMetadata> applied = new HashMap<>();
    int count = 0;
    for (ConsumerRecord<String, byte[]> record : records) {
      TopicPartition partition = new TopicPartition(record.topic(), record.partition());
      if (stuck.containsKey(partition)) {
        continue; // order within a partition: nothing after a failing record applies before it
      }
      try {
        applyCommitted(work, List.of(record));
      } catch (RuntimeException failed) {
        if (countAndMaybePark(partition, record, failed)) {
          applied.put(partition, new OffsetAndMetadata(record.offset() + 1));
          count++;
          continue; // parked: the records behind it go on
        }
        log.warn(
            "{}: record {}-{}@{} failed, retrying in {}: {}",
            name,
            record.topic(),
            record.partition(),
            record.offset(),
            retryDelay,
            failed.toString());
        stuck.put(partition, record);
        continue;
      }
      tell(committed, List.of(record));
      applied.put(partition, new OffsetAndMetadata(record.offset() + 1));
      failing.remove(partition);
      count++;
    }
    if (!applied.isEmpty()) {
      commit(consumer, applied);
    }
    if (!stuck.isEmpty()) {
      stuck.forEach((partition, record) -> consumer.seek(partition, record.offset()));
      pause();
    }
    return count;
  }

  /**
   * Counts a failure of {@code record} (unless the infrastructure failed) and parks the record once
   * it failed {@link #maxAttempts} times.
   *
   * @return true when the record is parked now
   */
  private boolean countAndMaybePark(
      TopicPartition partition, ConsumerRecord<String, byte[]> record, RuntimeException failed) {
    if (maxAttempts == 0 || InfrastructureFailures.isInfrastructure(failed)) {
      return false;
    }
    Instant now = clock.instant();
    Failing counted =
        failing.compute(
            partition,
            (p, previous) ->
                previous == null || previous.offset() != record.offset()
                    ? new Failing(record.offset(), 1, now, now, failed.toString())
                    : new Failing(
                        record.offset(),
                        previous.attempts() + 1,
                        previous.first(),
                        now,
                        failed.toString()));
    if (counted.attempts() < maxAttempts) {
      return false;
    }
    ParkedMessages.Failure failure =
        new ParkedMessages.Failure(
            counted.attempts(), counted.first(), counted.last(), counted.lastError());
    String reason = "failed " + counted.attempts() + " times, last: " + counted.lastError();
    try {
      String id =
          transactions.inTransaction(
              connection -> {
                boolean replied = parker.park(connection, record, reason);
                return parked.park(connection, name, record, failure, replied).orElse("(again)");
              });
      failing.remove(partition);
      log.error(
          "{} {}: record {}-{}@{} (key {}) {} and is parked as {}",
          PARKED_MARKER,
          name,
          record.topic(),
          record.partition(),
          record.offset(),
          record.key(),
          reason,
          id);
      return true;
    } catch (RuntimeException parkingFailed) {
      // Parking is a database write like any other: if it fails, the record waits and is retried.
      log.warn(
          "{}: parking record {}-{}@{} failed: {}",
          name,
          record.topic(),
          record.partition(),
          record.offset(),
          parkingFailed.toString());
      return false;
    }
  }

  private record Failing(
      long offset, int attempts, Instant first, Instant last, String lastError) {}

  /**
   * Commits without waiting for the broker: the effects are already committed in the database, so a
   * lost or failed offset commit only means the records are delivered again (after a restart or a
   * rebalance) and the inbox drops them. Waiting would hold the next poll for a broker round trip.
   */
  private void commit(Consumer<?, ?> consumer, Map<TopicPartition, OffsetAndMetadata> offsets) {
    switch (offsetCommits) {
      case BY_THE_CONSUMER -> {}
      case AFTER_EACH_TRANSACTION -> commitAsync(consumer, offsets);
      case AT_INTERVALS -> {
        Uncommitted held = uncommitted.computeIfAbsent(consumer, c -> new Uncommitted());
        held.add(offsets);
        Instant now = clock.instant();
        if (held.lastCommit == null || !now.isBefore(held.lastCommit.plus(commitInterval))) {
          held.lastCommit = now;
          commitAsync(consumer, held.take(consumer));
        }
      }
    }
  }

  /**
   * Commits, waiting for the broker, the offsets that {@link OffsetCommits#AT_INTERVALS} holds for
   * {@code consumer}: call it on the consumer's poll thread before its partitions go (a rebalance
   * listener's {@code onPartitionsRevoked}), so the next owner starts after what applied here. A
   * failure is logged: the records are delivered again, which the consumer takes as any redelivery.
   */
  public void commitPending(Consumer<?, ?> consumer) {
    Uncommitted held = uncommitted.remove(consumer);
    if (held == null || held.offsets.isEmpty()) {
      return;
    }
    try {
      consumer.commitSync(held.take(consumer));
    } catch (RuntimeException e) {
      log.warn("{}: committing offsets failed: {}", name, e.toString());
    }
  }

  /** Offsets applied and not yet committed, by {@link OffsetCommits#AT_INTERVALS}. */
  private static final class Uncommitted {
    private Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    private Instant lastCommit;

    void add(Map<TopicPartition, OffsetAndMetadata> applied) {
      applied.forEach(
          (partition, offset) ->
              offsets.merge(partition, offset, (a, b) -> a.offset() >= b.offset() ? a : b));
    }

    /** What is held for the partitions {@code consumer} still owns; the rest is dropped. */
    Map<TopicPartition, OffsetAndMetadata> take(Consumer<?, ?> consumer) {
      Map<TopicPartition, OffsetAndMetadata> taken = offsets;
      offsets = new HashMap<>();
      // A partition lost since (its new owner applies its records again) takes no commit from here.
      taken.keySet().retainAll(consumer.assignment());
      return taken;
    }
  }

  private void commitAsync(
      Consumer<?, ?> consumer, Map<TopicPartition, OffsetAndMetadata> offsets) {
    try {
      consumer.commitAsync(
          offsets,
          (committed, failure) -> {
            if (failure != null) {
              log.warn("{}: committing offsets failed: {}", name, failure.toString());
            }
          });
    } catch (RuntimeException e) {
      log.warn("{}: committing offsets failed: {}", name, e.toString());
    }
  }

  private void pause() {
    try {
      Thread.sleep(retryDelay.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Map<TopicPartition, OffsetAndMetadata> nextOffsets(
      List<ConsumerRecord<String, byte[]>> records) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      offsets.merge(
          new TopicPartition(record.topic(), record.partition()),
          new OffsetAndMetadata(record.offset() + 1),
          (a, b) -> a.offset() >= b.offset() ? a : b);
    }
    return offsets;
  }
}
