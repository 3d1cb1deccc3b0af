package ph.payments.payments.payouts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import ph.payments.payments.payments.domain.Failure;
import ph.payments.payments.payouts.domain.Payout;
import ph.payments.payments.payouts.domain.PayoutFees;
import ph.payments.payments.payouts.domain.PayoutStatus;
import ph.payments.payments.payouts.domain.PayoutTransitions;
import ph.payments.platform.money.Money;

/** Every pair of payout states, through the table and through the aggregate, with its event. */
class PayoutTransitionsTest {

  private static final Instant NOW = Instant.parse("2026-11-22T00:00:00Z");

  private static final Map<PayoutStatus, Set<PayoutStatus>> EXPECTED =
      Map.of(
          PayoutStatus.PENDING,
              EnumSet.of(PayoutStatus.PROCESSING, PayoutStatus.SUCCEEDED, PayoutStatus.FAILED),
          PayoutStatus.PROCESSING, EnumSet.of(PayoutStatus.SUCCEEDED, PayoutStatus.FAILED),
          PayoutStatus.SUCCEEDED, EnumSet.noneOf(PayoutStatus.class),
          PayoutStatus.FAILED, EnumSet.noneOf(PayoutStatus.class));

  private static final Map<PayoutStatus, BiFunction<Payout, Instant, Payout.Move>> MOVES =
      Map.of(
          PayoutStatus.PROCESSING, Payout::processing,
          PayoutStatus.SUCCEEDED, Payout::succeeded,
          PayoutStatus.FAILED, (p, t) -> p.failed(new Failure("account_closed", "Closed."), t));

  private static final Map<PayoutStatus, String> EVENTS =
      Map.of(PayoutStatus.SUCCEEDED, "payout.succeeded", PayoutStatus.FAILED, "payout.failed");

  @Test
  void theTableAllowsExactlyTheExpectedMoves() {
    for (PayoutStatus from : PayoutStatus.values()) {
      for (PayoutStatus to : PayoutStatus.values()) {
        assertEquals(
            EXPECTED.get(from).contains(to),
            PayoutTransitions.allowed(from, to),
            from + " -> " + to);
      }
    }
  }

  @Test
  void everyMoveOfTheAggregateFollowsTheTableAndWritesOnlyItsEvent() {
    for (PayoutStatus from : PayoutStatus.values()) {
      for (Map.Entry<PayoutStatus, BiFunction<Payout, Instant, Payout.Move>> move :
          MOVES.entrySet()) {
        Payout.Move outcome = move.getValue().apply(payout(from), NOW);
        if (EXPECTED.get(from).contains(move.getKey())) {
          Payout.Moved moved =
              assertInstanceOf(Payout.Moved.class, outcome, from + " -> " + move.getKey());
          assertEquals(move.getKey(), moved.payout().status());
          assertEquals(EVENTS.get(move.getKey()), moved.eventType(), from + " -> " + move.getKey());
        } else {
          assertInstanceOf(Payout.Refused.class, outcome, from + " -> " + move.getKey());
        }
      }
    }
  }

  @Test
  void theFeeIsPartOfTheAmountAndMustBeBelowIt() {
    assertEquals(Money.of("10.00", "PHP"), PayoutFees.feeFor("ewallet1", "PHP"));
    assertEquals(Money.of("15.00", "PHP"), PayoutFees.feeFor("bank_transfer", "PHP"));
    assertEquals(Money.of("10.00", "PHP"), PayoutFees.feeFor("bank_transfer_nrt", "PHP"));
    assertEquals(Money.of("490.00", "PHP"), payout(PayoutStatus.PENDING).sent());
    assertThrows(
        IllegalArgumentException.class,
        () -> withAmount("10.00"),
        "the recipient would receive nothing");
  }

  private static Payout payout(PayoutStatus status) {
    return new Payout(
        "po_01jd3k4m5n6p7q8r9s0t1v2w3x",
        "mer_01jd3k4m5n6p7q8r9s0t1v2w3x",
        "test",
        status,
        Money.of("500.00", "PHP"),
        "ewallet1",
        "sandbox_ewallet1_payouts",
        "sbp_ref",
        JsonNodeFactory.instance.objectNode().put("account_no", "09171234567"),
        null,
        null,
        Money.of("10.00", "PHP"),
        null,
        null,
        null,
        NOW,
        NOW);
  }

  private static Payout withAmount(String amount) {
    return new Payout(
        "po_01jd3k4m5n6p7q8r9s0t1v2w3x",
        "mer_01jd3k4m5n6p7q8r9s0t1v2w3x",
        "test",
        PayoutStatus.PENDING,
        Money.of(amount, "PHP"),
        "ewallet1",
        "sandbox_ewallet1_payouts",
        "sbp_ref",
        JsonNodeFactory.instance.objectNode().put("account_no", "09171234567"),
        null,
        null,
        Money.of("10.00", "PHP"),
        null,
        null,
        null,
        NOW,
        NOW);
  }
}
