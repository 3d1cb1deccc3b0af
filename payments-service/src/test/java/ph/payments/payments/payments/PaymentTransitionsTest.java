package ph.payments.payments.payments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import ph.payments.payments.payments.domain.Failure;
import ph.payments.payments.payments.domain.FeeSchedule;
import ph.payments.payments.payments.domain.Payment;
import ph.payments.payments.payments.domain.PaymentStatus;
import ph.payments.payments.payments.domain.PaymentTransitions;
import ph.payments.platform.money.Money;

/** Every pair of states, allowed or forbidden, through the table and through the aggregate. */
class PaymentTransitionsTest {

  private static final Instant NOW = Instant.parse("2026-11-22T00:00:00Z");

  private static final Map<PaymentStatus, Set<PaymentStatus>> EXPECTED =
      Map.of(
          PaymentStatus.PENDING,
              EnumSet.of(
                  PaymentStatus.PROCESSING,
                  PaymentStatus.SUCCEEDED,
                  PaymentStatus.FAILED,
                  PaymentStatus.EXPIRED),
          PaymentStatus.PROCESSING, EnumSet.of(PaymentStatus.SUCCEEDED, PaymentStatus.FAILED),
          PaymentStatus.SUCCEEDED, EnumSet.of(PaymentStatus.REFUNDED),
          PaymentStatus.FAILED, EnumSet.noneOf(PaymentStatus.class),
          PaymentStatus.EXPIRED, EnumSet.noneOf(PaymentStatus.class),
          PaymentStatus.REFUNDED, EnumSet.noneOf(PaymentStatus.class));

  private static final Map<PaymentStatus, BiFunction<Payment, Instant, Payment.Move>> MOVES =
      Map.of(
          PaymentStatus.PROCESSING, Payment::processing,
          PaymentStatus.SUCCEEDED, Payment::succeeded,
          PaymentStatus.FAILED, (p, t) -> p.failed(new Failure("declined", "Declined."), t),
          PaymentStatus.EXPIRED, Payment::expired);

  private static final Map<PaymentStatus, String> EVENTS =
      Map.of(
          PaymentStatus.PROCESSING, "payment.processing",
          PaymentStatus.SUCCEEDED, "payment.succeeded",
          PaymentStatus.FAILED, "payment.failed",
          PaymentStatus.EXPIRED, "payment.expired");

  @Test
  void theTableAllowsExactlyTheExpectedMoves() {
    for (PaymentStatus from : PaymentStatus.values()) {
      for (PaymentStatus to : PaymentStatus.values()) {
        assertEquals(
            EXPECTED.get(from).contains(to),
            PaymentTransitions.allowed(from, to),
            from + " -> " + to);
      }
    }
  }

  @Test
  void everyMoveOfTheAggregateFollowsTheTable() {
    for (PaymentStatus from : PaymentStatus.values()) {
      for (Map.Entry<PaymentStatus, BiFunction<Payment, Instant, Payment.Move>> move :
          MOVES.entrySet()) {
        Payment.Move outcome = move.getValue().apply(payment(from), NOW);
        if (EXPECTED.get(from).contains(move.getKey())) {
          Payment.Moved moved =
              assertInstanceOf(Payment.Moved.class, outcome, from + " -> " + move.getKey());
          assertEquals(move.getKey(), moved.payment().status());
          assertEquals(EVENTS.get(move.getKey()), moved.eventType());
        } else {
          assertInstanceOf(Payment.Refused.class, outcome, from + " -> " + move.getKey());
        }
      }
    }
  }

  @Test
  void successFillsNetAmountAndTimeAndFailureFillsItsFields() {
    Payment succeeded = ((Payment.Moved) payment(PaymentStatus.PENDING).succeeded(NOW)).payment();
    assertEquals(Money.of("975.00", "PHP"), succeeded.net());
    assertEquals(NOW, succeeded.succeededAt());
    assertNull(succeeded.failure());

    Failure why = new Failure("payment_declined", "Declined.");
    Payment failed = ((Payment.Moved) payment(PaymentStatus.PROCESSING).failed(why, NOW)).payment();
    assertEquals(why, failed.failure());
    assertEquals(NOW, failed.failedAt());
    assertNull(failed.net());
  }

  @Test
  void refundsAddUpAndTheOneThatCompletesTheAmountMovesThePaymentToRefundedWithoutAnEvent() {
    Payment.Moved partial =
        assertInstanceOf(
            Payment.Moved.class,
            payment(PaymentStatus.SUCCEEDED).refunded(Money.of("400.00", "PHP"), NOW));
    assertEquals(PaymentStatus.SUCCEEDED, partial.payment().status());
    assertEquals(Money.of("400.00", "PHP"), partial.payment().refunded());
    assertNull(partial.eventType(), "a partial refund writes no payment event");
    assertThrows(
        IllegalStateException.class,
        () -> partial.payment().refunded(Money.of("600.01", "PHP"), NOW),
        "refunds never pass the amount");
    Payment.Moved full =
        assertInstanceOf(
            Payment.Moved.class, partial.payment().refunded(Money.of("600.00", "PHP"), NOW));
    assertEquals(PaymentStatus.REFUNDED, full.payment().status());
    assertNull(full.eventType(), "refund.succeeded announces it, never payment.refunded");
    for (PaymentStatus from : PaymentStatus.values()) {
      if (from != PaymentStatus.SUCCEEDED) {
        assertInstanceOf(
            Payment.Refused.class,
            payment(from).refunded(Money.of("1.00", "PHP"), NOW),
            from.wire());
      }
    }
  }

  @Test
  void feesRoundHalfUpAndNeverExceedTheAmount() {
    FeeSchedule card = FeeSchedule.defaultFor("card");
    assertEquals(Money.of("50.00", "PHP"), card.feeFor(Money.of("1000.00", "PHP")));
    assertEquals(Money.of("18.50", "PHP"), card.feeFor(Money.of("100.00", "PHP")));
    assertEquals(
        Money.of("1.00", "PHP"), card.feeFor(Money.of("1.00", "PHP")), "capped at the amount");
    FeeSchedule wallet = FeeSchedule.defaultFor("ewallet1");
    assertEquals(
        Money.of("0.03", "PHP"), wallet.feeFor(Money.of("1.00", "PHP")), "2.5% of 1.00 rounds up");
    assertEquals(
        Money.of("0.02", "PHP"), wallet.feeFor(Money.of("0.99", "PHP")), "0.02475 rounds to 0.02");
    assertEquals(
        new FeeSchedule(new BigDecimal("3.0"), BigDecimal.ZERO), FeeSchedule.defaultFor("unknown"));
  }

  private static Payment payment(PaymentStatus status) {
    return new Payment(
        "pay_01jd3k4m5n6p7q8r9s0t1v2w3x",
        "mer_01jd3k4m5n6p7q8r9s0t1v2w3x",
        "test",
        status,
        Money.of("1000.00", "PHP"),
        "ewallet1",
        "sandbox_ewallet1",
        "sbx_ref",
        Payment.Checkout.NONE,
        null,
        null,
        null,
        null,
        JsonNodeFactory.instance.objectNode(),
        null,
        null,
        Money.of("25.00", "PHP"),
        null,
        Money.zero("PHP"),
        null,
        null,
        NOW.plusSeconds(1800),
        null,
        null,
        NOW,
        NOW);
  }
}
