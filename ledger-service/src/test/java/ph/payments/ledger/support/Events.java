package ph.payments.ledger.support;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import ph.payments.contracts.Envelope;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;

/**
 * Event messages shaped as payments-service's event log writes them ({@code {id, object:"event",
 * type, environment, created, data:{object:<resource>}}}, message id = event id, key = the
 * resource's aggregate, merchant in the {@code merchant-id} attribute). Refunds and payouts do not
 * exist yet in payments-service; their resources follow SPEC part 2.
 */
public final class Events {

  private static final long TRANSACTION = ThreadLocalRandom.current().nextLong(1, 1L << 40);
  private static final AtomicLong SEQUENCE = new AtomicLong();

  public static String merchant() {
    return IdType.MERCHANT.generate();
  }

  public static String payment() {
    return IdType.PAYMENT.generate();
  }

  public static String payout() {
    return IdType.PAYOUT.generate();
  }

  public static String refund() {
    return IdType.REFUND.generate();
  }

  public static Envelope paymentSucceeded(
      String merchant, String environment, String paymentId, String amount, String fee) {
    return paymentSucceeded(merchant, environment, paymentId, amount, fee, "PHP");
  }

  public static Envelope paymentSucceeded(
      String merchant,
      String environment,
      String paymentId,
      String amount,
      String fee,
      String currency) {
    ObjectNode payment = Json.mapper().createObjectNode();
    payment.put("id", paymentId);
    payment.put("object", "payment");
    payment.put("environment", environment);
    payment.put("status", "succeeded");
    payment.put("amount", new BigDecimal(amount));
    payment.put("currency", currency);
    payment.put("method", "ewallet1");
    payment.put("provider", "sandbox_ewallet1");
    payment.put("fee_amount", new BigDecimal(fee));
    payment.put("net_amount", new BigDecimal(amount).subtract(new BigDecimal(fee)));
    payment.put("created", Instant.now().getEpochSecond());
    return event("payment.succeeded", merchant, environment, paymentId, payment);
  }

  /**
   * @param currency null leaves the field out, as SPEC's Refund table does
   */
  public static Envelope refundSucceeded(
      String merchant,
      String environment,
      String refundId,
      String paymentId,
      String amount,
      String currency) {
    ObjectNode refund = Json.mapper().createObjectNode();
    refund.put("id", refundId);
    refund.put("object", "refund");
    refund.put("environment", environment);
    refund.put("payment", paymentId);
    refund.put("amount", new BigDecimal(amount));
    if (currency != null) {
      refund.put("currency", currency);
    }
    refund.put("status", "succeeded");
    refund.putNull("reason");
    refund.put("created", Instant.now().getEpochSecond());
    // Keyed by the payment, so a payment's refunds follow its success in one partition.
    return event("refund.succeeded", merchant, environment, paymentId, refund);
  }

  public static Envelope payoutSucceeded(
      String merchant, String environment, String payoutId, String amount, String fee) {
    return payoutEvent("payout.succeeded", merchant, environment, payoutId, amount, fee, "PHP");
  }

  public static Envelope payoutFailed(
      String merchant, String environment, String payoutId, String amount) {
    return payoutEvent("payout.failed", merchant, environment, payoutId, amount, null, "PHP");
  }

  public static Envelope payoutEvent(
      String type,
      String merchant,
      String environment,
      String payoutId,
      String amount,
      String fee,
      String currency) {
    ObjectNode payout = Json.mapper().createObjectNode();
    payout.put("id", payoutId);
    payout.put("object", "payout");
    payout.put("environment", environment);
    payout.put("status", type.equals("payout.succeeded") ? "succeeded" : "failed");
    payout.put("amount", new BigDecimal(amount));
    payout.put("currency", currency);
    payout.put("method", "ewallet1");
    payout.put("fee_amount", fee == null ? null : new BigDecimal(fee));
    payout.put("created", Instant.now().getEpochSecond());
    return event(type, merchant, environment, payoutId, payout);
  }

  /** An event of any type about {@code resource}. */
  public static Envelope event(
      String type, String merchant, String environment, String key, ObjectNode resource) {
    String id = IdType.eventId(TRANSACTION, SEQUENCE.incrementAndGet());
    ObjectNode event = Json.mapper().createObjectNode();
    event.put("id", id);
    event.put("object", "event");
    event.put("type", type);
    event.put("environment", environment);
    event.put("created", Instant.now().getEpochSecond());
    event.putObject("data").set("object", resource);
    return new Envelope(
        id,
        type,
        key,
        Instant.now(),
        Json.toBytes(event),
        merchant == null ? Map.of() : Map.of(Envelope.ATTRIBUTE_MERCHANT_ID, merchant));
  }

  /** The same event published again under a new message id (a producer that sent it twice). */
  public static Envelope asNewMessage(Envelope envelope) {
    return new Envelope(
        IdType.MESSAGE.generate(),
        envelope.type(),
        envelope.key(),
        envelope.time(),
        envelope.payload(),
        envelope.attributes());
  }

  private Events() {}
}
