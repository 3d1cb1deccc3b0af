package ph.payments.ledger.events.application;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.contracts.Envelope;
import ph.payments.ledger.audit.JdbcAnomalies;
import ph.payments.ledger.events.domain.LedgerEvent;
import ph.payments.ledger.holds.application.RecordPayoutOutcome;
import ph.payments.ledger.holds.domain.PayoutOutcome;
import ph.payments.ledger.journal.domain.EntryKind;
import ph.payments.ledger.journal.domain.JournalEntry;
import ph.payments.ledger.journal.domain.PostResult;
import ph.payments.ledger.journal.domain.PostingRules;
import ph.payments.ledger.journal.persistence.JdbcJournal;
import ph.payments.platform.inbox.IdempotentConsumer;
import ph.payments.platform.money.Money;
import ph.payments.platform.tx.Transactions;

/**
 * Posts an event of the event topic to the journal, exactly once.
 *
 * <p>Two layers make a repeated event harmless: the inbox (consumer {@value #CONSUMER}) records the
 * message id in the same transaction as the postings, so a redelivered message does nothing; and
 * each journal transaction is unique per kind and business id (a payment succeeds once, a payout
 * settles once), so even the same fact under a new message id posts nothing.
 *
 * <p>An event that can never be applied (malformed, or contradicting what the ledger knows) is
 * recorded as an anomaly and consumed; a failure that a retry can cure (the database is away, a
 * refund without a currency arrives before its payment) throws, and the listener retries the record
 * until it succeeds.
 */
@Singleton
public class ApplyEvent {

  /** The inbox consumer name of the ledger's event consumer. */
  public static final String CONSUMER = "ledger.events";

  private static final Logger log = LoggerFactory.getLogger(ApplyEvent.class);

  private final IdempotentConsumer inbox;
  private final JdbcJournal journal;
  private final RecordPayoutOutcome payouts;
  private final JdbcAnomalies anomalies;

  public ApplyEvent(
      IdempotentConsumer inbox,
      JdbcJournal journal,
      RecordPayoutOutcome payouts,
      JdbcAnomalies anomalies) {
    this.inbox = inbox;
    this.journal = journal;
    this.payouts = payouts;
    this.anomalies = anomalies;
  }

  /**
   * Applies {@code envelope} in the caller's transaction.
   *
   * @return false when the message had been consumed before
   */
  public boolean apply(Connection connection, Envelope envelope) throws SQLException {
    return applyAll(connection, List.of(envelope), (position, work) -> work.run()) == 1;
  }

  /**
   * Applies a poll's events in the caller's transaction: their message ids go into the inbox in one
   * statement, then each event not consumed before is posted, in order, {@code each} wrapping its
   * work (the caller's span of the record). A message given twice is applied once.
   *
   * @return how many were applied now
   */
  public int applyAll(Connection connection, List<Envelope> envelopes, Each each)
      throws SQLException {
    Transactions.requireTransaction(connection);
    Set<String> fresh =
        inbox.recordAll(connection, CONSUMER, envelopes.stream().map(Envelope::messageId).toList());
    int applied = 0;
    JdbcJournal.Locks locks = new JdbcJournal.Locks(); // held until the caller's commit
    for (int i = 0; i < envelopes.size(); i++) {
      Envelope envelope = envelopes.get(i);
      if (fresh.remove(envelope.messageId())) {
        each.around(i, () -> handle(connection, envelope, EventReader.read(envelope), locks));
        applied++;
      }
    }
    return applied;
  }

  /** Wraps the work of the event at a position of {@link #applyAll}'s list. */
  @FunctionalInterface
  public interface Each {
    void around(int position, Work work) throws SQLException;
  }

  /** One event's work. */
  @FunctionalInterface
  public interface Work {
    void run() throws SQLException;
  }

  private void handle(Connection c, Envelope envelope, LedgerEvent event, JdbcJournal.Locks locks)
      throws SQLException {
    if (event instanceof LedgerEvent.Ignored) {
      return;
    }
    if (event instanceof LedgerEvent.Malformed malformed) {
      park(c, envelope, malformed.reason());
    } else if (event instanceof LedgerEvent.PaymentSucceeded p) {
      post(
          c,
          envelope,
          locks,
          PostingRules.paymentSucceeded(
              p.merchantId(),
              p.environment(),
              p.paymentId(),
              p.eventId(),
              p.amount(),
              p.fee(),
              p.net(),
              p.at()));
    } else if (event instanceof LedgerEvent.RefundSucceeded r) {
      String currency = r.currency();
      if (currency == null) {
        currency =
            journal
                .currencyOf(c, EntryKind.PAYMENT_SUCCEEDED, r.paymentId())
                .orElseThrow(
                    () ->
                        new IllegalStateException(
                            "refund "
                                + r.refundId()
                                + " names no currency and its payment "
                                + r.paymentId()
                                + " is not in the ledger yet; retrying"));
      }
      post(
          c,
          envelope,
          locks,
          PostingRules.refundSucceeded(
              r.merchantId(),
              r.environment(),
              r.refundId(),
              r.eventId(),
              Money.of(r.amount(), currency),
              r.at()));
    } else if (event instanceof LedgerEvent.PayoutSucceeded s) {
      payout(
          c,
          envelope,
          new PayoutOutcome(
              PayoutOutcome.Kind.SUCCEEDED,
              s.payoutId(),
              s.merchantId(),
              s.environment(),
              s.amount(),
              s.fee(),
              s.eventId(),
              s.at()));
    } else if (event instanceof LedgerEvent.PayoutFailed f) {
      payout(
          c,
          envelope,
          new PayoutOutcome(
              PayoutOutcome.Kind.FAILED,
              f.payoutId(),
              f.merchantId(),
              f.environment(),
              f.amount(),
              null,
              f.eventId(),
              f.at()));
    }
  }

  private void post(Connection c, Envelope envelope, JdbcJournal.Locks locks, JournalEntry entry)
      throws SQLException {
    PostResult result = journal.post(c, entry, locks);
    if (result instanceof PostResult.AlreadyPosted) {
      // The same fact under another message id: posted once already.
      log.info(
          "{} {} is already in the journal; message {} changes nothing",
          entry.kind().wire(),
          entry.reference(),
          envelope.messageId());
    } else if (result instanceof PostResult.Overdraft) {
      throw new IllegalStateException("an event posting has no overdraft guard: " + entry);
    }
  }

  private void payout(Connection c, Envelope envelope, PayoutOutcome outcome) throws SQLException {
    RecordPayoutOutcome.Result result = payouts.apply(c, outcome);
    if (result instanceof RecordPayoutOutcome.Contradiction contradiction) {
      park(c, envelope, contradiction.reason());
    } else if (result instanceof RecordPayoutOutcome.Noted noted) {
      anomalies.record(c, envelope, noted.note() + " (applied)");
    }
  }

  private void park(Connection c, Envelope envelope, String reason) throws SQLException {
    log.error(
        "event {} ({}, key {}) cannot be applied and is parked in ledger_anomalies: {}",
        envelope.messageId(),
        envelope.type(),
        envelope.key(),
        reason);
    anomalies.record(c, envelope, reason);
  }
}
