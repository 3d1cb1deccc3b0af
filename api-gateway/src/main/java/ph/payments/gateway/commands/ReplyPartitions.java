package ph.payments.gateway.commands;

import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;

/**
 * Which reply-topic partitions this instance's {@link ReplyListeners.Recorder} owns, and where it
 * stopped reading each one it gave up: what the {@link ReplyWaker} needs to read exactly the rest.
 * The recorder writes it from its rebalance callbacks (its poll thread), the waker reads it from
 * its own thread; every change gets a new {@link View#version()} and tells the listeners.
 *
 * <p>Before the recorder's first assignment it owns nothing, so the waker covers every partition.
 */
@Singleton
class ReplyPartitions {

  /**
   * One consistent state.
   *
   * @param version grows with every change; 0 before any
   * @param recorded the partitions the recorder owns
   * @param stoppedAt for partitions the recorder gave up (and has not got back): the offset of the
   *     first record it did not complete; absent when unknown
   */
  record View(long version, Set<TopicPartition> recorded, Map<TopicPartition, Long> stoppedAt) {}

  private final Set<TopicPartition> recorded = new HashSet<>();
  private final Map<TopicPartition, Long> stoppedAt = new HashMap<>();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private long version;

  /** The recorder now owns {@code partitions} too (cooperative rebalancing adds some at a time). */
  void assigned(Collection<TopicPartition> partitions) {
    synchronized (this) {
      recorded.addAll(partitions);
      stoppedAt.keySet().removeAll(partitions);
      changed();
    }
    notifyListeners();
  }

  /**
   * The recorder gave up {@code partitions} (revoked or lost).
   *
   * @param positions where it stopped, for those partitions where it knows
   */
  void stopped(Collection<TopicPartition> partitions, Map<TopicPartition, Long> positions) {
    synchronized (this) {
      recorded.removeAll(partitions);
      for (TopicPartition partition : partitions) {
        Long position = positions.get(partition);
        if (position != null) {
          stoppedAt.put(partition, position);
        } else {
          stoppedAt.remove(partition);
        }
      }
      changed();
    }
    notifyListeners();
  }

  synchronized View view() {
    return new View(version, Set.copyOf(recorded), Map.copyOf(stoppedAt));
  }

  /**
   * The state once its version differs from {@code seen}, waiting up to {@code timeout}; the
   * unchanged state when the time is up.
   */
  synchronized View awaitChange(long seen, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long left;
    while (version == seen && (left = deadline - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return view();
  }

  /** Runs {@code listener} after every change, on the thread that made it; it must be quick. */
  void onChange(Runnable listener) {
    listeners.add(listener);
  }

  void removeListener(Runnable listener) {
    listeners.remove(listener);
  }

  private void changed() {
    version++;
    notifyAll();
  }

  private void notifyListeners() {
    listeners.forEach(Runnable::run);
  }
}
