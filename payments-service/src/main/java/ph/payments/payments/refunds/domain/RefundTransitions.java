package ph.payments.payments.refunds.domain;

import static ph.payments.payments.refunds.domain.RefundStatus.FAILED;
import static ph.payments.payments.refunds.domain.RefundStatus.PENDING;
import static ph.payments.payments.refunds.domain.RefundStatus.PENDING_MANUAL;
import static ph.payments.payments.refunds.domain.RefundStatus.PROCESSING;
import static ph.payments.payments.refunds.domain.RefundStatus.SUCCEEDED;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The one table of allowed refund moves (SPEC leaves them open): a refund handed to the provider
 * ({@code pending}) is accepted for later ({@code processing}), queued for operators ({@code
 * pending_manual}), or answered at once; either waiting state ends in {@code succeeded} or {@code
 * failed}, which are final. Only the moves to the final states have events ({@code
 * refund.succeeded}, {@code refund.failed}); {@code refund.created} is written at creation.
 */
public final class RefundTransitions {

  private static final Map<RefundStatus, Set<RefundStatus>> ALLOWED =
      new EnumMap<>(RefundStatus.class);

  static {
    ALLOWED.put(PENDING, EnumSet.of(PROCESSING, PENDING_MANUAL, SUCCEEDED, FAILED));
    ALLOWED.put(PROCESSING, EnumSet.of(SUCCEEDED, FAILED));
    ALLOWED.put(PENDING_MANUAL, EnumSet.of(SUCCEEDED, FAILED));
    ALLOWED.put(SUCCEEDED, EnumSet.noneOf(RefundStatus.class));
    ALLOWED.put(FAILED, EnumSet.noneOf(RefundStatus.class));
  }

  public static boolean allowed(RefundStatus from, RefundStatus to) {
    return ALLOWED.get(from).contains(to);
  }

  private RefundTransitions() {}
}
