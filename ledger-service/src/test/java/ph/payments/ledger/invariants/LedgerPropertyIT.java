package ph.payments.ledger.invariants;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.Envelope;
import ph.payments.ledger.audit.LedgerAudit;
import ph.payments.ledger.holds.application.TakeHold;
import ph.payments.ledger.holds.domain.HoldDecision;
import ph.payments.ledger.holds.domain.HoldRequest;
import ph.payments.ledger.support.Events;
import ph.payments.ledger.support.LedgerTest;
import ph.payments.platform.money.Money;
import ph.payments.testkit.TestDatabase;

/**
 * The ledger's invariants over thousands of random histories (see {@link History}): after each one,
 * every balance of the merchant equals the {@link LedgerModel}'s and every hold request got the
 * model's answer; at the end, all postings of each environment and currency sum to zero and the
 * audit finds every maintained balance equal to the sum of its postings. Histories of different
 * merchants run on several threads at once, against one database.
 *
 * <p>Reproduce a failure with the seed it prints: {@code -Dledger.property.seed=<seed>
 * -Dledger.property.sequences=1}. {@code -Dledger.property.sequences=N} runs more (default 2,000).
 */
@MicronautTest(transactional = false)
class LedgerPropertyIT extends LedgerTest {

  private static final int SEQUENCES = Integer.getInteger("ledger.property.sequences", 2_000);
  private static final long SEED = Long.getLong("ledger.property.seed", new Random().nextLong());
  private static final int THREADS = 4;

  @Inject TakeHold takeHold;
  @Inject LedgerAudit audit;

  /** How often each kind of step and answer occurred, so a weakened generator shows. */
  private final Map<String, AtomicLong> seen = new java.util.concurrent.ConcurrentHashMap<>();

  @Override
  protected Map<String, String> extraProperties() {
    // Durability of a test database does not matter; commit latency does.
    return Map.of(
        "datasources.default.url",
        TestDatabase.forClass(getClass()).jdbcUrl() + "?options=-c%20synchronous_commit%3Doff");
  }

  @Test
  void randomHistoriesLeaveEveryBalanceAsTheModelSaysAndAllPostingsSumToZero() throws Exception {
    AtomicLong anomalies = new AtomicLong();
    AtomicLong steps = new AtomicLong();
    long started = System.nanoTime();
    runAll(SEQUENCES, SEED, anomalies, steps, null);
    long millis = (System.nanoTime() - started) / 1_000_000;
    System.out.printf(
        "LedgerPropertyIT: %d histories, %d steps in %d ms (seed %d)%n  %s%n",
        SEQUENCES, steps.get(), millis, SEED, new TreeMap<>(seen));
    if (SEQUENCES >= 1_000) {
      for (String kind :
          List.of(
              "hold taken",
              "hold refused",
              "hold exists",
              "hold conflict",
              "message duplicate",
              "message retried",
              "message payment.succeeded",
              "message refund.succeeded",
              "message payout.succeeded",
              "message payout.failed",
              "negative balance")) {
        assertTrue(seen.containsKey(kind), () -> "the histories never had: " + kind);
      }
    }

    assertAllPostingsSumToZero();
    LedgerAudit.Report report = audit.run();
    assertTrue(report.consistent(), () -> "audit: " + report);
    assertEquals(anomalies.get(), report.anomalyCount(), "anomalies as the model expects");
  }

  @Test
  void replayingEveryConsumedEventChangesNothing() throws Exception {
    List<Envelope> consumed = Collections.synchronizedList(new ArrayList<>());
    runAll(300, SEED ^ 0x5eed, new AtomicLong(), new AtomicLong(), consumed);
    Map<String, Object> before = snapshot();

    List<Envelope> replay = new ArrayList<>(consumed);
    Collections.shuffle(replay, new Random(SEED));
    for (Envelope envelope : replay) {
      apply(envelope); // the same message again: the inbox has it
    }
    for (Envelope envelope : replay) {
      apply(Events.asNewMessage(envelope)); // the same fact under a new message id
    }
    assertEquals(before, snapshot());
    assertTrue(audit.run().consistent());
  }

  private void runAll(
      int sequences, long seed, AtomicLong anomalies, AtomicLong steps, List<Envelope> consumed)
      throws Exception {
    AtomicInteger next = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        workers.add(
            pool.submit(
                () -> {
                  for (int i = next.getAndIncrement(); i < sequences; i = next.getAndIncrement()) {
                    long sequenceSeed = seed + i;
                    try {
                      LedgerModel model = new LedgerModel();
                      History history = History.generate(new Random(sequenceSeed));
                      steps.addAndGet(history.steps.size());
                      run(history, model, consumed);
                      assertBooksMatch(history.merchant, model);
                      anomalies.addAndGet(model.anomalies());
                    } catch (Throwable e) {
                      throw new AssertionError(
                          "history with seed "
                              + sequenceSeed
                              + " failed (rerun: -Dledger.property.seed="
                              + sequenceSeed
                              + " -Dledger.property.sequences=1): "
                              + e,
                          e);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> worker : workers) {
        worker.get(10, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** Delivers the history's steps to the ledger and the model, checking each answer. */
  private void run(History history, LedgerModel model, List<Envelope> consumed) {
    Deque<History.Step> queue = new ArrayDeque<>(history.steps);
    int retries = 0;
    while (!queue.isEmpty()) {
      History.Step step = queue.poll();
      if (step instanceof History.Message message) {
        Envelope envelope = message.envelope();
        LedgerModel.Applied expected = model.apply(envelope);
        boolean applied;
        try {
          applied = transactions.inTransaction(c -> applyEvent.apply(c, envelope));
        } catch (RuntimeException e) {
          assertEquals(
              LedgerModel.Applied.RETRY, expected, () -> "threw " + e + " for " + envelope);
          count("message retried");
          // As the listener would: try again later (the payment it needs is further on).
          queue.addLast(step);
          assertTrue(++retries < 10_000, "retries never end");
          continue;
        }
        assertEquals(
            expected == LedgerModel.Applied.APPLIED, applied, () -> "applied? " + envelope);
        assertTrue(expected != LedgerModel.Applied.RETRY, () -> "should have thrown: " + envelope);
        count(applied ? "message " + envelope.type() : "message duplicate");
        if (applied && consumed != null) {
          consumed.add(envelope);
        }
      } else if (step instanceof History.Hold hold) {
        LedgerModel.HoldAnswer expected =
            model.hold(
                hold.payoutId(),
                hold.merchant(),
                hold.environment(),
                hold.currency(),
                hold.amount());
        HoldDecision actual =
            takeHold.take(
                new HoldRequest(
                    hold.payoutId(),
                    hold.merchant(),
                    hold.environment(),
                    Money.of(hold.amount(), hold.currency())));
        assertEquals(expected.answer(), answer(actual), () -> "answer to " + hold);
        count("hold " + expected.answer().name().toLowerCase(java.util.Locale.ROOT));
        if (expected.answer() != LedgerModel.Answer.CONFLICT) {
          assertEquals(expected.status(), actual.hold().status().wire(), () -> "status " + hold);
        }
        if (expected.answer() == LedgerModel.Answer.TAKEN) {
          assertEquals(expected.balanceAfter(), actual.hold().balanceAfter(), "balance_after");
        }
      }
    }
  }

  private static LedgerModel.Answer answer(HoldDecision decision) {
    if (decision instanceof HoldDecision.Taken) {
      return LedgerModel.Answer.TAKEN;
    }
    if (decision instanceof HoldDecision.Exists) {
      return LedgerModel.Answer.EXISTS;
    }
    if (decision instanceof HoldDecision.Refused) {
      return LedgerModel.Answer.REFUSED;
    }
    return LedgerModel.Answer.CONFLICT;
  }

  /** Every account of the merchant, and no other, with the model's balance. */
  private void assertBooksMatch(String merchant, LedgerModel model) {
    Map<String, BigDecimal> expected = new TreeMap<>();
    model
        .books()
        .forEach(
            (book, accounts) -> {
              String[] parts = book.split("\\|");
              accounts.forEach(
                  (code, balance) -> expected.put(parts[1] + "|" + parts[2] + "|" + code, balance));
            });
    Map<String, BigDecimal> actual =
        transactions.inTransaction(
            c -> {
              Map<String, BigDecimal> rows = new TreeMap<>();
              try (PreparedStatement select =
                  c.prepareStatement(
                      "SELECT environment, currency, code, balance FROM accounts"
                          + " WHERE merchant_id = ?")) {
                select.setString(1, merchant);
                try (ResultSet rs = select.executeQuery()) {
                  while (rs.next()) {
                    rows.put(
                        rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3),
                        rs.getBigDecimal(4));
                  }
                }
              }
              return rows;
            });
    assertEquals(expected, actual, "balances of " + merchant);
    if (actual.entrySet().stream()
        .anyMatch(e -> e.getKey().endsWith(LedgerModel.AVAILABLE) && e.getValue().signum() < 0)) {
      count("negative balance");
    }
  }

  private void count(String kind) {
    seen.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
  }

  private void assertAllPostingsSumToZero() {
    Map<String, BigDecimal> totals =
        transactions.inTransaction(
            c -> {
              Map<String, BigDecimal> rows = new TreeMap<>();
              try (PreparedStatement select =
                      c.prepareStatement(
                          "SELECT a.environment || '/' || a.currency, sum(p.amount)"
                              + " FROM postings p JOIN accounts a ON a.id = p.account_id"
                              + " GROUP BY 1");
                  ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                  rows.put(rs.getString(1), rs.getBigDecimal(2));
                }
              }
              return rows;
            });
    assertTrue(totals.size() >= 4, () -> "test and live, PHP and USD: " + totals);
    totals.forEach(
        (book, total) -> assertEquals(0, total.signum(), () -> book + " sums to " + total));
  }

  /** Everything the ledger holds, as comparable values. */
  private Map<String, Object> snapshot() {
    return transactions.inTransaction(
        c -> {
          Map<String, Object> snapshot = new TreeMap<>();
          String[] queries = {
            "SELECT id::text, balance::text FROM accounts",
            "SELECT id::text, kind || ' ' || reference FROM journal_transactions",
            "SELECT id::text, amount::text || ' ' || balance_after::text FROM postings",
            "SELECT payout_id, status || ' ' || amount::text FROM payout_holds",
            "SELECT id::text, reason FROM ledger_anomalies"
          };
          for (String query : queries) {
            Map<String, String> rows = new TreeMap<>();
            try (PreparedStatement select = c.prepareStatement(query);
                ResultSet rs = select.executeQuery()) {
              while (rs.next()) {
                rows.put(rs.getString(1), rs.getString(2));
              }
            }
            snapshot.put(query, rows);
          }
          return snapshot;
        });
  }
}
