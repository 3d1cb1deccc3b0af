package ph.payments.platform.outbox;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * What the outbox writers of one process know of the relay in the same process: whether it leads
 * and is polling right now, in which case a PostgreSQL notification would wake nobody.
 *
 * <p>Why it matters: a transaction that runs {@code NOTIFY} takes a cluster-wide lock at commit and
 * holds it through its WAL flush, so notifying transactions commit one at a time, whatever the
 * number of connections. Under load the relay polls anyway, and the writers skip the notification.
 * When the relay goes back to waiting for notifications it first makes one more pass, so a writer
 * that skipped its notification is published by that pass or, if its transaction commits even
 * later, by the next sweep ({@link OutboxRelay.Settings#sweepInterval()}).
 *
 * <p>While it polls, the relay pauses between passes; after a pass that found nothing or sent one
 * row, a writer of this process that commits a message rings it out of the pause ({@link #ring}),
 * so at light load a message does not wait for the next poll. After a pass that sent more rows the
 * pause is not cut short: under load, what commits during it goes out in one pass instead of a pass
 * each.
 */
public final class OutboxActivity {

  private volatile boolean relayPolling;

  /** At most one permit in practice: whether a writer rang since the relay's pass began. */
  private final Semaphore rung = new Semaphore(0);

  /** The one ring action of this process's writers, the same object each time ({@link #ring}). */
  private final Runnable doorbell = this::ring;

  /** True while the local relay leads and polls without waiting for notifications. */
  public boolean relayPolling() {
    return relayPolling;
  }

  void relayPolling(boolean polling) {
    relayPolling = polling;
  }

  /**
   * Wakes the relay of this process if it waits for a ring: a writer that skipped its notification
   * (the relay was polling) rings right after its transaction commits ({@link OutboxWriter},
   * through {@code AfterCommit}), so a message written while the relay is idle between polls goes
   * out at once rather than at the next poll. A ring is only a hint: the poll finds every row
   * without it.
   */
  void ring() {
    if (rung.availablePermits() == 0) {
      rung.release();
    }
  }

  /** {@link #ring} as one object, so that a transaction with several messages rings once. */
  Runnable doorbell() {
    return doorbell;
  }

  /** Forgets earlier rings: the pass about to start reads everything they announced. */
  void passStarting() {
    rung.drainPermits();
  }

  /**
   * Waits until a writer rings or {@code timeout} passes.
   *
   * @return true when rung
   */
  boolean awaitRing(Duration timeout) throws InterruptedException {
    boolean wasRung = rung.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS);
    rung.drainPermits();
    return wasRung;
  }
}
