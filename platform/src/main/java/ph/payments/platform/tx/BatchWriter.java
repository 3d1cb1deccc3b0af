package ph.payments.platform.tx;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Database work that callers do together: under load a caller shares its round trip and commit with
 * those that queued while the previous batch ran; alone it waits for nobody and hands nothing to
 * another thread.
 *
 * <p>A caller {@linkplain #submit submits} an item and waits for its result. There is no writer
 * thread: callers take turns. The caller that finds no batch running becomes the writer (it takes
 * the writer's lock): it takes what is queued (up to the batch limit, its own item among it), sorts
 * it into the order in which its rows are locked (the same in every instance, so two instances'
 * batches do not deadlock), hands it to {@link Work#all} and gives every item of the batch its
 * result. It writes again while its own item is still queued behind a full batch, then leaves and
 * wakes the caller of the first item still queued, which writes the next batch. So at light load an
 * item is written on its own caller's thread, without the two wake-ups a writer thread costs (one
 * there, one back); under load the batches are what they were with a writer thread. The "flat
 * combining" of Hendler, Incze, Shavit and Tzafrir (SPAA 2010), with a queue instead of their
 * publication list.
 *
 * <p>If a batch fails for a reason that may be one item's (bad data, a deadlock, an error a
 * function raised), each of its items is done again on its own ({@link Work#one}), so one item's
 * failure is not its neighbours'; when the database itself failed ({@link
 * TransactionFailedException#databaseAway}) they all fail at once, as they would have one by one,
 * each after its own wait.
 *
 * <p>A caller interrupted while its item is still queued takes the item back and leaves: nothing of
 * it is written. Once a writer has taken the item, the caller waits for its result, interrupted or
 * not, so it never leaves an item written that it did not hear of.
 *
 * @param <I> an item of work
 * @param <O> its result
 */
public final class BatchWriter<I, O> {

  /** What the writer does with a batch. */
  public interface Work<I, O> {

    /** Does {@code items} together; one result per item, in their order. */
    List<O> all(List<I> items);

    /** Does {@code item} alone (after its batch failed). */
    default O one(I item) {
      return all(List.of(item)).get(0);
    }
  }

  private static final Logger log = LoggerFactory.getLogger(BatchWriter.class);

  private final String name;
  private final int maxBatch;
  private final Comparator<? super I> lockOrder;
  private final Work<I, O> work;
  private final IntConsumer batchSizes;
  private final ConcurrentLinkedQueue<Pending<I, O>> queue = new ConcurrentLinkedQueue<>();
  private final ReentrantLock writing = new ReentrantLock();

  /**
   * @param name names the writer in logs
   * @param lockOrder the order of a batch's items; stable, so equal items keep the order in which
   *     they queued
   * @param batchSizes told the size of every batch (a metric)
   */
  public BatchWriter(
      String name,
      int maxBatch,
      Comparator<? super I> lockOrder,
      Work<I, O> work,
      IntConsumer batchSizes) {
    this.name = name;
    this.maxBatch = maxBatch;
    this.lockOrder = lockOrder;
    this.work = work;
    this.batchSizes = batchSizes;
  }

  /** An item, the thread that waits for it, and, once {@link #done}, its outcome. */
  private static final class Pending<I, O> {
    final I item;
    final Thread caller = Thread.currentThread();
    private O result;
    private RuntimeException failure;
    private volatile boolean done;

    Pending(I item) {
      this.item = item;
    }

    boolean done() {
      return done;
    }

    void complete(O value) {
      result = value;
      finish();
    }

    void fail(RuntimeException e) {
      failure = e;
      finish();
    }

    private void finish() {
      done = true; // publishes result and failure to the caller, which reads done first
      if (caller != Thread.currentThread()) {
        LockSupport.unpark(caller);
      }
    }
  }

  /**
   * Does {@code item} in the next batch and returns its result.
   *
   * @throws RuntimeException what {@link Work} threw for it
   * @throws IllegalStateException when the caller was interrupted before a writer took the item
   *     (nothing of it was written)
   */
  public O submit(I item) {
    Pending<I, O> pending = new Pending<>(item);
    queue.add(pending);
    boolean interrupted = false;
    while (!pending.done()) {
      if (writing.tryLock()) {
        try {
          while (!pending.done()) {
            if (!writeNextBatch()) {
              throw new IllegalStateException(name + ": an item left the queue unwritten");
            }
          }
        } finally {
          writing.unlock();
        }
        wakeNextWriter();
      } else {
        LockSupport.park(this);
        if (Thread.interrupted()) {
          interrupted = true;
          if (queue.remove(pending)) {
            wakeNextWriter(); // it may have been woken to write
            Thread.currentThread().interrupt();
            throw new IllegalStateException(name + ": interrupted before its batch was written");
          }
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (pending.failure != null) {
      throw pending.failure;
    }
    return pending.result;
  }

  /** Items queued and not yet taken by a writer (tests). */
  public int queued() {
    return queue.size();
  }

  /**
   * Wakes the caller of the first queued item, if any, to write the next batch. Called by a writer
   * after it let go of the lock: an item queued while the lock was held is then either seen here or
   * its caller finds the lock free.
   */
  private void wakeNextWriter() {
    Pending<I, O> next = queue.peek();
    if (next != null) {
      LockSupport.unpark(next.caller);
    }
  }

  /**
   * Takes the next batch off the queue and gives each of its items an outcome.
   *
   * @return false when the queue was empty
   */
  private boolean writeNextBatch() {
    List<Pending<I, O>> batch = new ArrayList<>();
    Pending<I, O> next;
    while (batch.size() < maxBatch && (next = queue.poll()) != null) {
      batch.add(next);
    }
    if (batch.isEmpty()) {
      return false;
    }
    try {
      doBatch(batch);
    } catch (Throwable unexpected) {
      log.error("{}: a batch of {} failed unexpectedly", name, batch.size(), unexpected);
      RuntimeException failure =
          unexpected instanceof RuntimeException e
              ? e
              : new IllegalStateException(name + ": the batch failed", unexpected);
      for (Pending<I, O> pending : batch) {
        if (!pending.done()) {
          pending.fail(failure);
        }
      }
      if (unexpected instanceof Error error) {
        throw error;
      }
    }
    return true;
  }

  private void doBatch(List<Pending<I, O>> batch) {
    batch.sort((a, b) -> lockOrder.compare(a.item, b.item));
    batchSizes.accept(batch.size());
    try {
      List<O> results = work.all(batch.stream().map(pending -> pending.item).toList());
      for (int i = 0; i < batch.size(); i++) {
        batch.get(i).complete(results.get(i));
      }
      return;
    } catch (RuntimeException e) {
      if (batch.size() == 1 || databaseAway(e)) {
        batch.forEach(pending -> pending.fail(e));
        return;
      }
      log.warn("{}: a batch of {} failed ({}); doing each alone", name, batch.size(), e.toString());
    }
    batch.forEach(this::doAlone);
  }

  private void doAlone(Pending<I, O> pending) {
    try {
      pending.complete(work.one(pending.item));
    } catch (RuntimeException e) {
      pending.fail(e);
    }
  }

  /** Whether {@code failure} came from a database that is away, not from the batch's items. */
  public static boolean databaseAway(RuntimeException failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof SQLException sql) {
        return TransactionFailedException.databaseAway(sql.getSQLState());
      }
    }
    return false;
  }
}
