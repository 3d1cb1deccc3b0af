package ph.payments.payments.payouts.application;

import io.micronaut.context.annotation.Value;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.payments.payouts.persistence.JdbcHoldRequests;
import ph.payments.platform.tx.Transactions;

/**
 * Releases payout holds whose payout never appeared (issue 14, item 8; docs/ledger.md, "Orphaned
 * holds"). payments-service owns the truth here: it knows whether the payout row exists and whether
 * a command for it is still being tried; the ledger only knows what it holds.
 *
 * <p>Each run asks the ledger for holds still held that it took more than {@code grace} ago (the
 * same list its audit shows as old holds), and for each, in one transaction under the lock of the
 * payout's {@code payout_hold_requests} row: a payout row exists → nothing to do (the payout
 * settles or reverses its hold); a command asked within {@code grace} → still in flight, wait;
 * otherwise the row is marked released (final). After that commits the ledger is asked to release
 * the hold (idempotent, one journal entry back to available); if it does not answer, the next run
 * asks again. A command for the payout that arrives later finds the row released under the same
 * lock and is refused, so no payout is ever created on a released hold.
 */
@Singleton
public class ReleaseOrphanedHolds {

  private static final Logger log = LoggerFactory.getLogger(ReleaseOrphanedHolds.class);
  private static final int PAGE = 100;

  private final LedgerHolds ledger;
  private final JdbcHoldRequests requests;
  private final Transactions transactions;
  private final Clock clock;
  private final Duration grace;

  public ReleaseOrphanedHolds(
      LedgerHolds ledger,
      JdbcHoldRequests requests,
      Transactions transactions,
      Clock clock,
      @Value("${payments.orphaned-holds.grace:15m}") Duration grace) {
    this.ledger = ledger;
    this.requests = requests;
    this.transactions = transactions;
    this.clock = clock;
    this.grace = grace;
  }

  @Scheduled(fixedDelay = "${payments.orphaned-holds.sweep:1m}", initialDelay = "30s")
  void sweep() {
    try {
      releaseOrphans();
    } catch (RuntimeException e) {
      log.warn("releasing orphaned payout holds failed, next sweep retries: {}", e.toString());
    }
  }

  /**
   * One pass over all of the ledger's old holds, a page at a time (payouts legitimately in flight
   * for longer than the grace period must not hide the orphans behind them).
   *
   * @return how many holds were released now
   * @throws LedgerHolds.Unavailable when the ledger does not answer the list
   */
  public int releaseOrphans() {
    Instant cutoff = clock.instant().minus(grace);
    int released = 0;
    String after = null;
    List<LedgerHolds.OpenHold> page;
    do {
      page = ledger.heldBefore(cutoff, after, PAGE);
      released += releaseOrphans(page, cutoff);
      after = page.isEmpty() ? null : page.get(page.size() - 1).payoutId();
    } while (page.size() == PAGE);
    return released;
  }

  private int releaseOrphans(List<LedgerHolds.OpenHold> candidates, Instant cutoff) {
    int released = 0;
    for (LedgerHolds.OpenHold hold : candidates) {
      if (!decideRelease(hold, cutoff)) {
        continue;
      }
      try {
        ledger.release(hold.payoutId());
        released++;
        log.warn(
            "released the orphaned hold of payout {} ({} {} {}): its payout never appeared",
            hold.payoutId(),
            hold.merchantId(),
            hold.environment(),
            hold.amount());
      } catch (LedgerHolds.Unavailable e) {
        log.warn("releasing the hold of payout {} failed: {}", hold.payoutId(), e.getMessage());
      }
    }
    return released;
  }

  /** Whether the hold is to be released, decided (and recorded) under the row's lock. */
  private boolean decideRelease(LedgerHolds.OpenHold hold, Instant cutoff) {
    return transactions.inTransaction(
        c -> {
          requests.adopt(c, hold);
          JdbcHoldRequests.HoldRequestRow row = requests.lock(c, hold.payoutId()).orElseThrow();
          if (requests.payoutExists(c, hold.payoutId())) {
            return false;
          }
          if (!row.released() && row.lastAskedAt().isAfter(cutoff)) {
            return false; // a command for it was tried recently: still in flight
          }
          requests.release(c, hold.payoutId(), clock.instant());
          return true;
        });
  }
}
