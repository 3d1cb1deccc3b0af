package ph.payments.ledger.holds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import ph.payments.ledger.holds.domain.HoldStatus;
import ph.payments.ledger.holds.domain.PayoutHold;
import ph.payments.ledger.holds.domain.PayoutOutcome;
import ph.payments.ledger.holds.domain.PayoutTransitions;
import ph.payments.ledger.holds.domain.PayoutTransitions.Transition;
import ph.payments.ledger.journal.domain.EntryKind;
import ph.payments.platform.money.Money;

/** Walks every (record, outcome) pair of the hold table in docs/ledger.md. */
class PayoutTransitionsTest {

  private static final String M = "mer_01jd3k4m5n6p7q8r9s0t1v2w3x";
  private static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");

  @Test
  void everyPairDoesWhatTheTableSays() {
    Map<String, String> expected = new TreeMap<>();
    expected.put("none + succeeded", "post payout_settled from available -> settled");
    expected.put("none + failed", "mark reversed");
    expected.put("none + released", "mark reversed");
    expected.put("held + succeeded", "post payout_settled from in-flight -> settled");
    expected.put("held + failed", "post payout_reversed -> reversed");
    expected.put("held + released", "post payout_reversed -> reversed");
    expected.put("refused + succeeded", "post payout_settled from available -> settled (noted)");
    expected.put("refused + failed", "unchanged");
    expected.put("refused + released", "unchanged");
    expected.put("settled + succeeded", "unchanged");
    expected.put("settled + failed", "anomaly");
    expected.put("settled + released", "anomaly");
    expected.put("reversed + succeeded", "anomaly");
    expected.put("reversed + failed", "unchanged");
    expected.put("reversed + released", "unchanged");

    Map<String, String> actual = new TreeMap<>();
    List<HoldStatus> states = new ArrayList<>(List.of(HoldStatus.values()));
    states.add(0, null);
    for (HoldStatus state : states) {
      for (PayoutOutcome.Kind kind : PayoutOutcome.Kind.values()) {
        PayoutHold record = state == null ? null : hold(state, "300.00");
        actual.put(
            (state == null ? "none" : state.wire()) + " + " + kind.name().toLowerCase(),
            describe(PayoutTransitions.on(record, outcome(kind, "300.00"))));
      }
    }
    assertEquals(expected, actual);
  }

  @Test
  void anOutcomeThatDisagreesWithTheRecordIsAnAnomaly() {
    assertInstanceOf(
        PayoutTransitions.Anomaly.class,
        PayoutTransitions.on(
            hold(HoldStatus.HELD, "300.00"), outcome(PayoutOutcome.Kind.SUCCEEDED, "300.01")));
    assertInstanceOf(
        PayoutTransitions.Anomaly.class,
        PayoutTransitions.on(
            hold(HoldStatus.HELD, "300.00"),
            new PayoutOutcome(
                PayoutOutcome.Kind.FAILED,
                "po_1",
                "mer_other",
                "test",
                Money.of("300.00", "PHP"),
                null,
                null,
                NOW)));
  }

  private static String describe(Transition transition) {
    if (transition instanceof PayoutTransitions.Post post) {
      String from =
          post.entry().kind() == EntryKind.PAYOUT_SETTLED
              ? post.entry().postings().get(0).account().code().wire().equals("merchant_available")
                  ? " from available"
                  : " from in-flight"
              : "";
      return "post "
          + post.entry().kind().wire()
          + from
          + " -> "
          + post.next().wire()
          + (post.note() == null ? "" : " (noted)");
    }
    if (transition instanceof PayoutTransitions.Mark mark) {
      return "mark " + mark.next().wire();
    }
    if (transition instanceof PayoutTransitions.Unchanged) {
      return "unchanged";
    }
    return "anomaly";
  }

  private static PayoutHold hold(HoldStatus status, String amount) {
    return new PayoutHold("po_1", M, "test", Money.of(amount, "PHP"), status, null, NOW, NOW);
  }

  private static PayoutOutcome outcome(PayoutOutcome.Kind kind, String amount) {
    return new PayoutOutcome(
        kind, "po_1", M, "test", Money.of(amount, "PHP"), Money.of("5.00", "PHP"), "evt_1", NOW);
  }
}
