package ph.payments.platform.outbox;

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
 */
public final class OutboxActivity {

  private volatile boolean relayPolling;

  /** True while the local relay leads and polls without waiting for notifications. */
  public boolean relayPolling() {
    return relayPolling;
  }

  void relayPolling(boolean polling) {
    relayPolling = polling;
  }
}
