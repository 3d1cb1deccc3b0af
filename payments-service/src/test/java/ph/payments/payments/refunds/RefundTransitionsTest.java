package ph.payments.payments.refunds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import ph.payments.payments.payments.domain.Failure;
import ph.payments.payments.refunds.domain.Refund;
import ph.payments.payments.refunds.domain.RefundStatus;
import ph.payments.payments.refunds.domain.RefundTransitions;
import ph.payments.platform.money.Money;

/** Every pair of refund states, through the table and through the aggregate, with its event. */
class RefundTransitionsTest {

  private static final Instant NOW = Instant.parse("2026-11-22T00:00:00Z");

  private static final Map<RefundStatus, Set<RefundStatus>> EXPECTED =
      Map.of(
          RefundStatus.PENDING,
              EnumSet.of(
                  RefundStatus.PROCESSING,
                  RefundStatus.PENDING_MANUAL,
                  RefundStatus.SUCCEEDED,
                  RefundStatus.FAILED),
          RefundStatus.PROCESSING, EnumSet.of(RefundStatus.SUCCEEDED, RefundStatus.FAILED),
          RefundStatus.PENDING_MANUAL, EnumSet.of(RefundStatus.SUCCEEDED, RefundStatus.FAILED),
          RefundStatus.SUCCEEDED, EnumSet.noneOf(RefundStatus.class),
          RefundStatus.FAILED, EnumSet.noneOf(RefundStatus.class));

  private static final Map<RefundStatus, BiFunction<Refund, Instant, Refund.Move>> MOVES =
      Map.of(
          RefundStatus.PROCESSING, Refund::processing,
          RefundStatus.PENDING_MANUAL, Refund::pendingManual,
          RefundStatus.SUCCEEDED, Refund::succeeded,
          RefundStatus.FAILED, (r, t) -> r.failed(new Failure("refund_declined", "No."), t));

  /** Only the final moves have events; refund.created is written at creation. */
  private static final Map<RefundStatus, String> EVENTS =
      Map.of(RefundStatus.SUCCEEDED, "refund.succeeded", RefundStatus.FAILED, "refund.failed");

  @Test
  void theTableAllowsExactlyTheExpectedMoves() {
    for (RefundStatus from : RefundStatus.values()) {
      for (RefundStatus to : RefundStatus.values()) {
        assertEquals(
            EXPECTED.get(from).contains(to),
            RefundTransitions.allowed(from, to),
            from + " -> " + to);
      }
    }
  }

  @Test
  void everyMoveOfTheAggregateFollowsTheTableAndWritesOnlyItsEvent() {
    for (RefundStatus from : RefundStatus.values()) {
      for (Map.Entry<RefundStatus, BiFunction<Refund, Instant, Refund.Move>> move :
          MOVES.entrySet()) {
        Refund.Move outcome = move.getValue().apply(refund(from), NOW);
        if (EXPECTED.get(from).contains(move.getKey())) {
          Refund.Moved moved =
              assertInstanceOf(Refund.Moved.class, outcome, from + " -> " + move.getKey());
          assertEquals(move.getKey(), moved.refund().status());
          assertEquals(EVENTS.get(move.getKey()), moved.eventType(), from + " -> " + move.getKey());
        } else {
          assertInstanceOf(Refund.Refused.class, outcome, from + " -> " + move.getKey());
        }
      }
    }
  }

  @Test
  void successAndFailureFillTheirFieldsAndOnlyFailureFreesTheAmount() {
    Refund succeeded = ((Refund.Moved) refund(RefundStatus.PROCESSING).succeeded(NOW)).refund();
    assertEquals(NOW, succeeded.succeededAt());
    assertNull(succeeded.failure());
    assertEquals(true, succeeded.reserves());
    Failure why = new Failure("refund_declined", "No.");
    Refund failed = ((Refund.Moved) refund(RefundStatus.PENDING_MANUAL).failed(why, NOW)).refund();
    assertEquals(why, failed.failure());
    assertEquals(NOW, failed.failedAt());
    assertEquals(false, failed.reserves());
  }

  private static Refund refund(RefundStatus status) {
    return new Refund(
        "re_01jd3k4m5n6p7q8r9s0t1v2w3x",
        "mer_01jd3k4m5n6p7q8r9s0t1v2w3x",
        "test",
        "pay_01jd3k4m5n6p7q8r9s0t1v2w3x",
        status,
        Money.of("100.00", "PHP"),
        null,
        "sandbox_card",
        "sbr_ref",
        null,
        null,
        null,
        NOW,
        NOW);
  }
}
