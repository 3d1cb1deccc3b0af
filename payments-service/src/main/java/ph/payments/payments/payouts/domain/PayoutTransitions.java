package ph.payments.payments.payouts.domain;

import static ph.payments.payments.payouts.domain.PayoutStatus.FAILED;
import static ph.payments.payments.payouts.domain.PayoutStatus.PENDING;
import static ph.payments.payments.payouts.domain.PayoutStatus.PROCESSING;
import static ph.payments.payments.payouts.domain.PayoutStatus.SUCCEEDED;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The one table of allowed payout moves (SPEC leaves them open): a payout moves forward only, may
 * skip {@code processing} (an instant rail answers at once), and ends in {@code succeeded} or
 * {@code failed}. Only the final moves have events ({@code payout.succeeded}, {@code
 * payout.failed}); SPEC has no event for creation or {@code processing}.
 */
public final class PayoutTransitions {

  private static final Map<PayoutStatus, Set<PayoutStatus>> ALLOWED =
      new EnumMap<>(PayoutStatus.class);

  static {
    ALLOWED.put(PENDING, EnumSet.of(PROCESSING, SUCCEEDED, FAILED));
    ALLOWED.put(PROCESSING, EnumSet.of(SUCCEEDED, FAILED));
    ALLOWED.put(SUCCEEDED, EnumSet.noneOf(PayoutStatus.class));
    ALLOWED.put(FAILED, EnumSet.noneOf(PayoutStatus.class));
  }

  public static boolean allowed(PayoutStatus from, PayoutStatus to) {
    return ALLOWED.get(from).contains(to);
  }

  private PayoutTransitions() {}
}
