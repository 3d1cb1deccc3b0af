package ph.payments.platform.kafka;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
 * that already applied.
 */
public final class BatchApplier {

  /** The effect of one record, inside the caller's transaction. */
  @FunctionalInterface
  public interface RecordWork {
    void apply(Connection connection, ConsumerRecord<String, byte[]> record) throws SQLException;
  }

  private static final Logger log = LoggerFactory.getLogger(BatchApplier.class);

  private final String name;
  private final Transactions transactions;
  private final Duration retryDelay;

  public BatchApplier(String name, Transactions transactions, Duration retryDelay) {
    this.name = name;
    this.transactions = transactions;
    this.retryDelay = retryDelay;
  }

  /**
   * Applies {@code records} (one poll of {@code consumer}, in poll order) and commits the offsets
   * of what applied.
   *
   * @return how many records applied now (including inbox duplicates, which apply as nothing)
   */
  public int apply(
      List<ConsumerRecord<String, byte[]>> records, Consumer<?, ?> consumer, RecordWork work) {
    if (records.isEmpty()) {
      return 0;
    }
    try {
      transactions.inTransaction(
          connection -> {
            for (ConsumerRecord<String, byte[]> record : records) {
              work.apply(connection, record);
            }
            return null;
          });
    } catch (RuntimeException batchFailed) {
      log.warn(
          "{}: a batch of {} records failed ({}); applying them one by one",
          name,
          records.size(),
          batchFailed.toString());
      return applyOneByOne(records, consumer, work);
    }
    commit(consumer, nextOffsets(records));
    return records.size();
  }

  private int applyOneByOne(
      List<ConsumerRecord<String, byte[]>> records, Consumer<?, ?> consumer, RecordWork work) {
    Map<TopicPartition, ConsumerRecord<String, byte[]>> stuck = new LinkedHashMap<>();
    Map<TopicPartition, OffsetAndMetadata> applied = new HashMap<>();
    int count = 0;
    for (ConsumerRecord<String, byte[]> record : records) {
      TopicPartition partition = new TopicPartition(record.topic(), record.partition());
      if (stuck.containsKey(partition)) {
        continue; // order within a partition: nothing after a failing record applies before it
      }
      try {
        transactions.inTransaction(
            connection -> {
              work.apply(connection, record);
              return null;
            });
        applied.put(partition, new OffsetAndMetadata(record.offset() + 1));
        count++;
      } catch (RuntimeException failed) {
        log.warn(
            "{}: record {}-{}@{} failed, retrying in {}: {}",
            name,
            record.topic(),
            record.partition(),
            record.offset(),
            retryDelay,
            failed.toString());
        stuck.put(partition, record);
      }
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
   * Commits without waiting for the broker: the effects are already committed in the database, so a
   * lost or failed offset commit only means the records are delivered again (after a restart or a
   * rebalance) and the inbox drops them. Waiting would hold the next poll for a broker round trip.
   */
  private void commit(Consumer<?, ?> consumer, Map<TopicPartition, OffsetAndMetadata> offsets) {
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
