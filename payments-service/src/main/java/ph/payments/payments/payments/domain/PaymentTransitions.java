package ph.payments.payments.payments.domain;

import static ph.payments.payments.payments.domain.PaymentStatus.EXPIRED;
import static ph.payments.payments.payments.domain.PaymentStatus.FAILED;
import static ph.payments.payments.payments.domain.PaymentStatus.PENDING;
import static ph.payments.payments.payments.domain.PaymentStatus.PROCESSING;
import static ph.payments.payments.payments.domain.PaymentStatus.REFUNDED;
import static ph.payments.payments.payments.domain.PaymentStatus.SUCCEEDED;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The one table of allowed payment moves. Where SPEC leaves the source states open, the choices
 * are: a provider may capture without acknowledging first ({@code pending → succeeded}); a
 * rejection can come before or after the acknowledgement; only an unpaid ({@code pending}) payment
 * expires, never one whose funds are settling; {@code refunded} follows {@code succeeded} only.
 * Anything not in the table is rejected, never applied.
 */
public final class PaymentTransitions {

  private static final Map<PaymentStatus, Set<PaymentStatus>> ALLOWED =
      new EnumMap<>(PaymentStatus.class);

  static {
    ALLOWED.put(PENDING, EnumSet.of(PROCESSING, SUCCEEDED, FAILED, EXPIRED));
    ALLOWED.put(PROCESSING, EnumSet.of(SUCCEEDED, FAILED));
    ALLOWED.put(SUCCEEDED, EnumSet.of(REFUNDED));
    ALLOWED.put(FAILED, EnumSet.noneOf(PaymentStatus.class));
    ALLOWED.put(EXPIRED, EnumSet.noneOf(PaymentStatus.class));
    ALLOWED.put(REFUNDED, EnumSet.noneOf(PaymentStatus.class));
  }

  public static boolean allowed(PaymentStatus from, PaymentStatus to) {
    return ALLOWED.get(from).contains(to);
  }

  public static Set<PaymentStatus> from(PaymentStatus status) {
    return EnumSet.copyOf(ALLOWED.get(status));
  }

  private PaymentTransitions() {}
}
