package ph.payments.webhooks.endpoints;

import java.util.List;
import java.util.Set;

/** Event types an endpoint can subscribe to (SPEC part 6), and {@code *} for all of them. */
public final class EventTypes {

  public static final String ALL = "*";

  public static final Set<String> KNOWN =
      Set.of(
          "payment.processing",
          "payment.succeeded",
          "payment.failed",
          "payment.expired",
          "refund.created",
          "refund.succeeded",
          "refund.failed",
          "payout.succeeded",
          "payout.failed",
          "invoice.balance_due",
          "invoice.forfeited",
          "transfer.sent",
          "transfer.received",
          "claim.expired",
          "product.stock_adjusted");

  /** What an endpoint created without {@code events} receives (SPEC part 4). */
  public static final List<String> DEFAULT = List.of("payment.succeeded", "payment.failed");

  public static boolean valid(String type) {
    return ALL.equals(type) || KNOWN.contains(type);
  }

  private EventTypes() {}
}
