package ph.payments.platform.tx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The writer's contract, on work that records what it was given: what queues while a batch runs
 * forms the next batch, in lock order; a batch that fails because of one item is done again item by
 * item; a database that is away fails the batch at once; a caller alone writes on its own thread;
 * an interrupted caller takes its queued item back; many callers each get their own result once.
 */
class BatchWriterTest {

  /** The batches the work was given, and a gate that holds the first one. */
  private final List<List<Integer>> batches = new CopyOnWriteArrayList<>();

  private final List<Integer> alone = new CopyOnWriteArrayList<>();
  private final List<Integer> sizes = new CopyOnWriteArrayList<>();
  private final CountDownLatch firstStarted = new CountDownLatch(1);
  private final CountDownLatch releaseFirst = new CountDownLatch(1);
  private volatile RuntimeException failBatchesWith;

  private BatchWriter<Integer, String> writer() {
    return new BatchWriter<>(
        "test-writer",
        4,
        Comparator.<Integer>naturalOrder(),
        new BatchWriter.Work<Integer, String>() {
          @Override
          public List<String> all(List<Integer> items) {
            batches.add(List.copyOf(items));
            if (batches.size() == 1) {
              firstStarted.countDown();
              await(releaseFirst);
            }
            if (items.size() > 1 && failBatchesWith != null) {
              throw failBatchesWith;
            }
            return items.stream().map(item -> "done " + item).toList();
          }

          @Override
          public String one(Integer item) {
            alone.add(item);
            if (item == 13) {
              throw new IllegalArgumentException("unlucky");
            }
            return "alone " + item;
          }
        },
        sizes::add);
  }

  @AfterEach
  void release() {
    releaseFirst.countDown();
  }

  @Test
  void whatQueuesWhileABatchRunsIsTheNextBatchInLockOrder() throws Exception {
    BatchWriter<Integer, String> writer = writer();
    CompletableFuture<String> first = submit(writer, 100);
    assertTrue(firstStarted.await(5, TimeUnit.SECONDS));
    List<CompletableFuture<String>> queued = new ArrayList<>();
    for (int item : List.of(7, 3, 5, 1, 9, 2)) {
      queued.add(submit(writer, item));
      awaitQueued(writer, queued.size()); // in this order
    }
    releaseFirst.countDown();

    assertEquals("done 100", first.get(5, TimeUnit.SECONDS));
    for (CompletableFuture<String> result : queued) {
      assertTrue(result.get(5, TimeUnit.SECONDS).startsWith("done "));
    }
    assertEquals(List.of(100), batches.get(0));
    assertEquals(List.of(1, 3, 5, 7), batches.get(1), "at most 4, sorted");
    assertEquals(List.of(2, 9), batches.get(2));
    assertEquals(List.of(1, 4, 2), sizes);
    assertEquals(List.of(), alone);
  }

  @Test
  void aBatchThatFailsForOneItemIsDoneAgainItemByItem() throws Exception {
    BatchWriter<Integer, String> writer = writer();
    failBatchesWith = new TransactionFailedException(new SQLException("bad value", "22021"));
    CompletableFuture<String> first = submit(writer, 100);
    assertTrue(firstStarted.await(5, TimeUnit.SECONDS));
    CompletableFuture<String> after = submit(writer, 14);
    CompletableFuture<String> unlucky = submit(writer, 13);
    CompletableFuture<String> before = submit(writer, 12);
    awaitQueued(writer, 3);
    releaseFirst.countDown();

    assertEquals("done 100", first.get(5, TimeUnit.SECONDS));
    assertEquals("alone 12", before.get(5, TimeUnit.SECONDS));
    ExecutionException failed =
        assertThrows(ExecutionException.class, () -> unlucky.get(5, TimeUnit.SECONDS));
    assertEquals("unlucky", failed.getCause().getMessage());
    assertEquals("alone 14", after.get(5, TimeUnit.SECONDS));
    assertEquals(List.of(12, 13, 14), alone);
  }

  @Test
  void aDatabaseThatIsAwayFailsTheWholeBatchAtOnce() throws Exception {
    BatchWriter<Integer, String> writer = writer();
    failBatchesWith =
        new TransactionFailedException(new SQLException("connection refused", "08001"));
    CompletableFuture<String> first = submit(writer, 100);
    assertTrue(firstStarted.await(5, TimeUnit.SECONDS));
    List<CompletableFuture<String>> queued = List.of(submit(writer, 1), submit(writer, 2));
    awaitQueued(writer, 2);
    releaseFirst.countDown();

    assertEquals("done 100", first.get(5, TimeUnit.SECONDS));
    for (CompletableFuture<String> result : queued) {
      ExecutionException failed =
          assertThrows(ExecutionException.class, () -> result.get(5, TimeUnit.SECONDS));
      assertSame(failBatchesWith, failed.getCause());
    }
    assertEquals(List.of(), alone, "no item was tried again alone");
  }

  @Test
  void aCallerAloneWritesItsOwnItemOnItsOwnThread() {
    List<Thread> writers = new CopyOnWriteArrayList<>();
    BatchWriter<Integer, String> alone =
        new BatchWriter<>(
            "alone",
            4,
            Comparator.<Integer>naturalOrder(),
            items -> {
              writers.add(Thread.currentThread());
              return items.stream().map(item -> "done " + item).toList();
            },
            sizes::add);

    assertEquals("done 1", alone.submit(1));
    assertEquals("done 2", alone.submit(2));
    assertEquals(List.of(Thread.currentThread(), Thread.currentThread()), writers);
    assertEquals(List.of(1, 1), sizes);
  }

  @Test
  void aCallerInterruptedWhileItsItemIsQueuedTakesItBackAndNothingOfItIsWritten() throws Exception {
    BatchWriter<Integer, String> writer = writer();
    CompletableFuture<String> first = submit(writer, 100);
    assertTrue(firstStarted.await(5, TimeUnit.SECONDS));
    CompletableFuture<Thread> caller = new CompletableFuture<>();
    CompletableFuture<String> interrupted =
        CompletableFuture.supplyAsync(
            () -> {
              caller.complete(Thread.currentThread());
              return writer.submit(5);
            },
            runnable -> new Thread(runnable).start());
    CompletableFuture<String> after = submit(writer, 6);
    awaitQueued(writer, 2);
    caller.get(5, TimeUnit.SECONDS).interrupt();

    ExecutionException failed =
        assertThrows(ExecutionException.class, () -> interrupted.get(5, TimeUnit.SECONDS));
    assertTrue(failed.getCause() instanceof IllegalStateException, failed.getCause().toString());
    awaitQueued(writer, 1);
    releaseFirst.countDown();
    assertEquals("done 100", first.get(5, TimeUnit.SECONDS));
    assertEquals("done 6", after.get(5, TimeUnit.SECONDS));
    assertEquals(List.of(List.of(100), List.of(6)), batches, "5 was never written");
  }

  @Test
  void manyCallersEachGetTheirOwnResultOnceAndNoTwoBatchesOverlap() throws Exception {
    AtomicBoolean inBatch = new AtomicBoolean();
    List<Integer> written = new CopyOnWriteArrayList<>();
    BatchWriter<Integer, String> shared =
        new BatchWriter<>(
            "shared",
            8,
            Comparator.<Integer>naturalOrder(),
            items -> {
              assertTrue(inBatch.compareAndSet(false, true), "two batches at once");
              try {
                written.addAll(items);
                Thread.onSpinWait();
                return items.stream().map(item -> "done " + item).toList();
              } finally {
                inBatch.set(false);
              }
            },
            sizes::add);
    int callers = 16;
    int each = 500;
    List<CompletableFuture<Void>> running = new ArrayList<>();
    for (int c = 0; c < callers; c++) {
      int base = c * each;
      running.add(
          CompletableFuture.runAsync(
              () -> {
                for (int i = base; i < base + each; i++) {
                  assertEquals("done " + i, shared.submit(i));
                }
              },
              runnable -> new Thread(runnable).start()));
    }
    CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

    assertEquals(callers * each, written.size(), "each item written once");
    assertEquals(callers * each, new HashSet<>(written).size());
    assertTrue(sizes.stream().allMatch(size -> size >= 1 && size <= 8), sizes.toString());
    assertEquals(0, shared.queued());
  }

  @Test
  void aFailureIsTheDatabasesWhenItsSqlStateSaysSo() {
    assertFalse(away("22021"), "invalid byte sequence (a NUL in a key)");
    assertFalse(away("40P01"), "deadlock");
    assertFalse(away("P0001"), "raised by a function");
    assertFalse(BatchWriter.databaseAway(new IllegalStateException("delivery 7 vanished")));
    assertTrue(away("08006"), "connection failure");
    assertTrue(away("08001"), "cannot connect");
    assertTrue(away("57P01"), "administrator shutdown");
    assertTrue(away("53300"), "too many connections");
    assertTrue(away("58030"), "I/O error");
    assertTrue(away(null), "no SQLSTATE");
  }

  private static boolean away(String sqlState) {
    return BatchWriter.databaseAway(
        new RuntimeException(
            "wrapped", new TransactionFailedException(new SQLException("x", sqlState))));
  }

  private static CompletableFuture<String> submit(BatchWriter<Integer, String> writer, int item) {
    return CompletableFuture.supplyAsync(
        () -> writer.submit(item), runnable -> new Thread(runnable).start());
  }

  private static void awaitQueued(BatchWriter<Integer, String> writer, int queued)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (writer.queued() != queued) {
      assertTrue(System.nanoTime() < deadline, "queued " + writer.queued() + ", not " + queued);
      Thread.sleep(2);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("never released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
