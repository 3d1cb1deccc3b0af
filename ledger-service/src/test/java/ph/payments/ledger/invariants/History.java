package ph.payments.ledger.invariants;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import ph.payments.contracts.Envelope;
import ph.payments.ledger.support.Events;

/**
 * A random history of one merchant: payments succeeding, refunds, payouts held and then succeeding,
 * failing or staying in flight, in test and live, PHP and USD; delivered the way a real broker and
 * a retrying caller can deliver it: messages redelivered (same message id), re-published (new
 * message id), reordered within their key, payout outcomes before their hold, hold requests
 * replayed with the same and with another amount.
 */
final class History {

  /** One step of the delivery: a message to consume or a hold to request. */
  sealed interface Step {}

  record Message(Envelope envelope) implements Step {}

  record Hold(
      String payoutId, String merchant, String environment, String currency, BigDecimal amount)
      implements Step {}

  final String merchant;
  final List<Step> steps;

  private History(String merchant, List<Step> steps) {
    this.merchant = merchant;
    this.steps = steps;
  }

  static History generate(Random random) {
    String merchant = Events.merchant();
    List<Step> timeline = new ArrayList<>();
    List<Step> pendingOutcomes = new ArrayList<>();
    List<String[]> payments = new ArrayList<>(); // id, environment, currency, amount
    // Roughly what is available, in timeline order, so some payouts ask for exactly all of it.
    java.util.Map<String, BigDecimal> estimate = new java.util.HashMap<>();
    int operations = 3 + random.nextInt(20);
    for (int i = 0; i < operations; i++) {
      String environment = random.nextInt(5) == 0 ? "live" : "test";
      String currency = random.nextInt(6) == 0 ? "USD" : "PHP";
      int choice = random.nextInt(100);
      if (choice < 40 || payments.isEmpty()) {
        String id = Events.payment();
        BigDecimal amount = cents(random, 1, random.nextInt(10) == 0 ? 5_000_000 : 300_000);
        BigDecimal fee = cents(random, 0, Math.min(amount.movePointRight(2).intValue(), 5_000));
        timeline.add(
            new Message(
                Events.paymentSucceeded(
                    merchant,
                    environment,
                    id,
                    amount.toPlainString(),
                    fee.toPlainString(),
                    currency)));
        payments.add(new String[] {id, environment, currency, amount.toPlainString()});
        estimate.merge(environment + currency, amount.subtract(fee), BigDecimal::add);
      } else if (choice < 55) {
        String[] payment = payments.get(random.nextInt(payments.size()));
        BigDecimal paid = new BigDecimal(payment[3]);
        BigDecimal amount = cents(random, 1, paid.movePointRight(2).intValue());
        estimate.merge(payment[1] + payment[2], amount.negate(), BigDecimal::add);
        timeline.add(
            new Message(
                Events.refundSucceeded(
                    merchant,
                    payment[1],
                    Events.refund(),
                    payment[0],
                    amount.toPlainString(),
                    random.nextInt(5) == 0 ? null : payment[2])));
      } else if (choice < 85) {
        String payout = Events.payout();
        BigDecimal amount = cents(random, 1, 250_000);
        BigDecimal available = estimate.getOrDefault(environment + currency, BigDecimal.ZERO);
        if (random.nextInt(6) == 0 && available.signum() > 0) {
          amount = available; // exactly all of it
        }
        if (amount.compareTo(available) <= 0) {
          estimate.merge(environment + currency, amount.negate(), BigDecimal::add);
        }
        Hold hold = new Hold(payout, merchant, environment, currency, amount);
        int outcome = random.nextInt(10);
        Step event = null;
        if (outcome < 6) {
          BigDecimal fee =
              random.nextBoolean()
                  ? null
                  : cents(random, 0, Math.min(1_500, amount.movePointRight(2).intValue()));
          event =
              new Message(
                  Events.payoutEvent(
                      "payout.succeeded",
                      merchant,
                      environment,
                      payout,
                      amount.toPlainString(),
                      fee == null ? null : fee.toPlainString(),
                      currency));
        } else if (outcome < 9) {
          event =
              new Message(
                  Events.payoutEvent(
                      "payout.failed",
                      merchant,
                      environment,
                      payout,
                      amount.toPlainString(),
                      null,
                      currency));
        } // else: stays in flight
        if (event != null && random.nextInt(30) == 0) {
          timeline.add(event); // the outcome overtakes its hold
          timeline.add(hold);
        } else if (random.nextInt(40) == 0 && event != null) {
          timeline.add(event); // a payout the ledger is never asked to hold
        } else {
          timeline.add(hold);
          if (event != null) {
            pendingOutcomes.add(event);
          }
        }
      } else {
        timeline.add(
            new Message(
                Events.event(
                    random.nextBoolean() ? "payment.processing" : "refund.created",
                    merchant,
                    environment,
                    Events.payment(),
                    ph.payments.platform.json.Json.mapper().createObjectNode())));
      }
      // Outcomes arrive some steps after their hold.
      while (!pendingOutcomes.isEmpty() && random.nextInt(3) == 0) {
        timeline.add(pendingOutcomes.remove(random.nextInt(pendingOutcomes.size())));
      }
    }
    timeline.addAll(pendingOutcomes);
    return new History(merchant, deliver(timeline, random));
  }

  /** Perturbs the timeline as delivery may: duplicates, re-publications, reordering in a key. */
  private static List<Step> deliver(List<Step> timeline, Random random) {
    List<Step> steps = new ArrayList<>(timeline);
    // Reorder within a key: swap a message with a later message of the same key.
    for (int i = 0; i < steps.size(); i++) {
      if (steps.get(i) instanceof Message m && random.nextInt(8) == 0) {
        for (int j = i + 1; j < steps.size(); j++) {
          if (steps.get(j) instanceof Message later
              && later.envelope().key().equals(m.envelope().key())) {
            steps.set(i, later);
            steps.set(j, m);
            break;
          }
        }
      }
    }
    List<Step> delivered = new ArrayList<>(steps);
    for (Step step : steps) {
      int at = delivered.indexOf(step);
      if (step instanceof Message m) {
        if (random.nextInt(5) == 0) {
          delivered.add(at + 1 + random.nextInt(delivered.size() - at), m); // redelivered
        }
        if (random.nextInt(20) == 0) {
          delivered.add(
              at + 1 + random.nextInt(delivered.size() - at),
              new Message(Events.asNewMessage(m.envelope()))); // published twice
        }
      } else if (step instanceof Hold h) {
        if (random.nextInt(10) == 0) {
          delivered.add(at + 1 + random.nextInt(delivered.size() - at), h); // caller retries
        }
        if (random.nextInt(30) == 0) {
          delivered.add(
              at + 1 + random.nextInt(delivered.size() - at),
              new Hold(
                  h.payoutId(),
                  h.merchant(),
                  h.environment(),
                  h.currency(),
                  h.amount().add(new BigDecimal("0.01")))); // same id, other amount
        }
      }
    }
    return delivered;
  }

  private static BigDecimal cents(Random random, int min, int max) {
    int value = max <= min ? min : min + random.nextInt(max - min + 1);
    return BigDecimal.valueOf(value, 2);
  }
}
