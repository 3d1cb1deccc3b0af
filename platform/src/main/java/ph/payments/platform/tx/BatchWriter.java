package ph.payments.platform.tx;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Database work that callers hand to one writer thread, which does everything queued at once: under
 * load a caller shares its round trip and commit with those that queued while the previous batch
 * ran; alone it waits for nobody.
 *
 * <p>A caller {@linkplain #submit submits} an item and waits for its result. The writer takes what
 * is queued (up to the batch limit), sorts it into the order in which its rows are locked (the same
 * in every instance, so two instances' batches do not deadlock) and hands it to {@link Work#all}.
 * If a batch fails for a reason that may be one item's (bad data, a deadlock, an error a function
 * raised), each of its items is done again on its own ({@link Work#one}), so one item's failure is
 * not its neighbours'; when the database itself failed ({@link
 * TransactionFailedException#databaseAway}) they all fail at once, as they would have one by one,
 * each after its own wait.
 *
 * <p>On {@link #stop} the writer finishes its batch and does what is still queued one by one before
 * it leaves; an item submitted after that is done by its own caller.
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
  private final LinkedBlockingQueue<Pending<I, O>> queue = new LinkedBlockingQueue<>();
  private final Thread writer;
  private volatile boolean stopping;

  /**
   * Starts the writer thread, named {@code name}.
   *
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
    this.writer = new Thread(this::run, name);
    writer.setDaemon(true);
    writer.start();
  }

  private record Pending<I, O>(I item, CompletableFuture<O> result) {}

  /**
   * Does {@code item} in the next batch and returns its result.
   *
   * @throws RuntimeException what {@link Work} threw for it
   */
  public O submit(I item) {
    Pending<I, O> pending = new Pending<>(item, new CompletableFuture<>());
    queue.add(pending);
    if (stopping) {
      doQueuedOneByOne(); // the writer may have left already
    }
    try {
      return pending.result().get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException failure) {
        throw failure;
      }
      throw new IllegalStateException(name + ": the batch failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(name + ": interrupted while waiting for the batch", e);
    }
  }

  /** Items queued and not yet taken by the writer (tests). */
  public int queued() {
    return queue.size();
  }

  /** Finishes the batch in hand and what is queued, then lets the writer go (at most 10 s). */
  public void stop() {
    stopping = true;
    try {
      writer.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    List<Pending<I, O>> batch = new ArrayList<>(maxBatch);
    while (!stopping) {
      try {
        Pending<I, O> first = queue.poll(1, TimeUnit.SECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, maxBatch - 1);
        doBatch(batch);
      } catch (InterruptedException e) {
        break;
      } catch (Throwable unexpected) {
        log.error("{}: a batch of {} failed unexpectedly", name, batch.size(), unexpected);
        batch.forEach(pending -> pending.result().completeExceptionally(unexpected));
      } finally {
        batch.clear();
      }
    }
    doQueuedOneByOne();
  }

  private void doBatch(List<Pending<I, O>> batch) {
    batch.sort((a, b) -> lockOrder.compare(a.item(), b.item()));
    batchSizes.accept(batch.size());
    try {
      List<O> results = work.all(batch.stream().map(Pending::item).toList());
      for (int i = 0; i < batch.size(); i++) {
        batch.get(i).result().complete(results.get(i));
      }
      return;
    } catch (RuntimeException e) {
      if (batch.size() == 1 || databaseAway(e)) {
        batch.forEach(pending -> pending.result().completeExceptionally(e));
        return;
      }
      log.warn("{}: a batch of {} failed ({}); doing each alone", name, batch.size(), e.toString());
    }
    batch.forEach(this::doAlone);
  }

  private void doAlone(Pending<I, O> pending) {
    try {
      pending.result().complete(work.one(pending.item()));
    } catch (RuntimeException e) {
      pending.result().completeExceptionally(e);
    }
  }

  private void doQueuedOneByOne() {
    Pending<I, O> left;
    while ((left = queue.poll()) != null) {
      doAlone(left);
    }
  }

  /** Whether {@code failure} came from a database that is away, not from the batch's items. */
  static boolean databaseAway(RuntimeException failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof SQLException sql) {
        return TransactionFailedException.databaseAway(sql.getSQLState());
      }
    }
    return false;
  }
}
