package ph.payments.platform.outbox;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * What the outbox writers of one process share with the relay in the same process: whether it
 * leads, and its doorbell.
 *
 * <p>A writer whose transaction is collected by one of our {@code Transactions} ({@code
 * AfterCommit}) rings the doorbell once that transaction has committed, when the relay of its own
 * process leads, instead of queuing a PostgreSQL notification. That matters twice: a transaction
 * that runs {@code NOTIFY} takes a cluster-wide lock at commit and holds it through its WAL flush,
 * so notifying transactions commit one at a time whatever the number of connections; and the
 * doorbell reaches the relay thread directly, with no server round trip. Writers of other processes
 * (replicas whose relay does not lead) and writes outside our transactions still notify, and the
 * leader hears them too (docs/outbox.md).
 */
public final class OutboxActivity {

  private volatile boolean relayLeads;
  private final Semaphore doorbell = new Semaphore(0);
  private final Runnable ring = this::ring;

  /** True while the relay of this process leads, so a ring reaches the publisher. */
  public boolean relayLeads() {
    return relayLeads;
  }

  void relayLeads(boolean leads) {
    relayLeads = leads;
  }

  /**
   * Wakes the relay of this process; rings before it next looks count as one. The same instance
   * every time, so a transaction that appends many rows registers one ring.
   */
  public Runnable doorbell() {
    return ring;
  }

  private void ring() {
    if (doorbell.availablePermits() == 0) {
      doorbell.release();
    }
  }

  /** Called by the relay before it reads: what rang until now is answered by that read. */
  void answered() {
    doorbell.drainPermits();
  }

  /** Waits until a ring or the timeout; true when it rang. */
  boolean awaitRing(Duration timeout) throws InterruptedException {
    return doorbell.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** For the relay's notification listener: a notification rings like a local writer does. */
  void ringFromNotification() {
    ring();
  }
}
