package ph.payments.payments.payments.application;

import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.domain.PaymentStatus;
import ph.payments.payments.payments.persistence.JdbcPayments;
import ph.payments.platform.tx.Transactions;

/**
 * Moves unpaid payments whose checkout window closed to {@code expired} ({@code payment.expired}).
 * Each payment moves in its own transaction under its row lock, so the job and a provider callback
 * for the same payment serialise, and several replicas running the job never expire one twice.
 */
@Singleton
public class ExpirePayments {

  private static final Logger log = LoggerFactory.getLogger(ExpirePayments.class);
  private static final int BATCH = 200;

  private final JdbcPayments payments;
  private final PaymentMoves moves;
  private final Transactions transactions;
  private final Clock clock;

  public ExpirePayments(
      JdbcPayments payments, PaymentMoves moves, Transactions transactions, Clock clock) {
    this.payments = payments;
    this.moves = moves;
    this.transactions = transactions;
    this.clock = clock;
  }

  @Scheduled(fixedDelay = "${payments.expiry-sweep:5s}", initialDelay = "5s")
  void sweep() {
    try {
      expireDue();
    } catch (RuntimeException e) {
      log.warn("expiry sweep failed; the next one retries: {}", e.toString());
    }
  }

  /** Expires every payment due now; returns how many moved. */
  public int expireDue() {
    int expired = 0;
    List<String> due;
    do {
      due = transactions.inTransaction(c -> payments.expiredPending(c, clock.instant(), BATCH));
      for (String id : due) {
        boolean moved =
            transactions.inTransaction(
                c -> {
                  Payment payment = payments.lock(c, id).orElseThrow();
                  // Re-checked under the lock: a callback may have moved it meanwhile.
                  if (payment.status() != PaymentStatus.PENDING
                      || payment.expiresAt().isAfter(clock.instant())) {
                    return false;
                  }
                  return moves.apply(c, payment, Payment::expired) instanceof Payment.Moved;
                });
        expired += moved ? 1 : 0;
      }
    } while (due.size() == BATCH);
    return expired;
  }
}
