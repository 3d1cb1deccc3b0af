package ph.payments.webhooks.deliveries;

import java.util.ArrayList;
import java.util.List;

/**
 * The attempt slots one transaction took from the {@link DeliveryScheduler} for the deliveries it
 * leases to this instance. A slot is reserved before its delivery is leased, so the instance's and
 * the target's limits hold however many transactions lease at once. After the commit each prepared
 * attempt runs on its slot and every other slot is given back ({@link #committed}); when the
 * transaction does not commit, its leases are gone with it and so are all its slots ({@link
 * #rolledBack}). Used by the transaction's thread only.
 */
public final class Reservations {

  private final DeliveryScheduler scheduler;
  private final List<String> unused = new ArrayList<>();
  private final List<DeliveryAttempts.Prepared> prepared = new ArrayList<>();
  private int reserved;

  /**
   * @param scheduler where the slots come from; null: none are ever free (the scheduler is off)
   */
  public Reservations(DeliveryScheduler scheduler) {
    this.scheduler = scheduler;
  }

  /**
   * Takes a slot for an attempt to {@code target}, if the instance and the target have one free.
   *
   * @return false when the delivery must wait for a claim instead
   */
  public boolean reserve(String target) {
    if (scheduler == null || !scheduler.reserve(target)) {
      return false;
    }
    unused.add(target);
    reserved++;
    return true;
  }

  /** How many slots {@link #reserve} took, whether used since or given back. */
  public int reserved() {
    return reserved;
  }

  /** Gives back a slot reserved for a delivery that was not leased after all. */
  public void giveBack(String target) {
    if (unused.remove(target)) {
      scheduler.giveBack(target);
    }
  }

  /** The attempt that runs on a slot reserved for its target, once the transaction committed. */
  public void prepared(DeliveryAttempts.Prepared attempt) {
    if (!unused.remove(attempt.claim().target())) {
      throw new IllegalStateException("no slot reserved for " + attempt);
    }
    prepared.add(attempt);
  }

  /** The transaction committed: the prepared attempts start, the other slots are given back. */
  public void committed() {
    for (DeliveryAttempts.Prepared attempt : prepared) {
      scheduler.dispatch(attempt);
    }
    prepared.clear();
    giveBackUnused();
  }

  /** The transaction did not commit: none of its leases exist, so no attempt may run. */
  public void rolledBack() {
    for (DeliveryAttempts.Prepared attempt : prepared) {
      scheduler.giveBack(attempt.claim().target());
    }
    prepared.clear();
    giveBackUnused();
  }

  private void giveBackUnused() {
    for (String target : unused) {
      scheduler.giveBack(target);
    }
    unused.clear();
  }
}
