package ph.payments.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs tasks on a fixed schedule: task {@code i} is due at {@code start + i / rate}, whatever the
 * earlier ones took (an open loop, as independent customers arrive), on a pool of workers. A task
 * that falls behind starts late; {@link #run} reports the rate achieved.
 */
final class OpenLoop {

  /** One scheduled task; {@code worker} tells which of the pool's workers runs it. */
  interface Task {
    void run(int worker, int index) throws Exception;
  }

  /**
   * @return the achieved rate, tasks per second from the first start to the last end
   */
  static double run(int workers, double perSecond, int count, Task task)
      throws InterruptedException {
    AtomicInteger next = new AtomicInteger();
    AtomicReference<Exception> failure = new AtomicReference<>();
    long start = System.nanoTime();
    double intervalNanos = 1e9 / perSecond;
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      int worker = w;
      Thread thread =
          new Thread(
              () -> {
                int i;
                while (failure.get() == null && (i = next.getAndIncrement()) < count) {
                  long due = start + (long) (i * intervalNanos);
                  long wait;
                  while ((wait = due - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(wait);
                  }
                  try {
                    task.run(worker, i);
                  } catch (Exception e) {
                    failure.compareAndSet(null, e);
                  }
                }
              },
              "open-loop-" + w);
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) {
      thread.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a task failed", failure.get());
    }
    return count / ((System.nanoTime() - start) / 1e9);
  }

  private OpenLoop() {}
}
