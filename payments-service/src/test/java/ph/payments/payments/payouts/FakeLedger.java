package ph.payments.payments.payouts;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.configuration.kafka.annotation.KafkaListener;
import io.micronaut.configuration.kafka.annotation.OffsetReset;
import io.micronaut.configuration.kafka.annotation.Topic;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.Topics;
import ph.payments.payments.payouts.application.LedgerHolds;
import ph.payments.payments.payouts.ledger.HttpLedgerHolds;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.money.Money;

/**
 * ledger-service as payments-service relies on it, in process: holds with the contract's
 * idempotency (same payout id and amount: the same hold; another amount: conflict), and the posting
 * rules applied to the events payments-service publishes on the real event topic ({@code
 * payment.succeeded} credits {@code net_amount}, {@code refund.succeeded} debits the refund's
 * amount, {@code payout.succeeded} settles a hold, {@code payout.failed} reverses it). The test can
 * make it unreachable, or lose the answer to a hold it took.
 */
@Singleton
@Replaces(HttpLedgerHolds.class)
@Requires(property = "spec.name", value = "PayoutFlowIT")
@KafkaListener(groupId = "fake-ledger-${random.uuid}", offsetReset = OffsetReset.EARLIEST)
public class FakeLedger implements LedgerHolds {

  /** A hold as the ledger keeps it. */
  public record Hold(
      String merchantId, String environment, BigDecimal amount, String status, Instant createdAt) {}

  private final Map<String, BigDecimal> available = new HashMap<>();
  private final Map<String, Hold> holds = new HashMap<>();
  private final List<HoldRequest> asked = new ArrayList<>();
  private final Set<String> applied = new HashSet<>();
  private final List<String> released = new ArrayList<>();
  private final Clock clock;
  private volatile boolean unreachable;
  private volatile boolean loseNextAnswer;

  public FakeLedger(Clock clock) {
    this.clock = clock;
  }

  @Override
  public synchronized List<OpenHold> heldBefore(
      Instant createdBefore, String startingAfter, int limit) {
    if (unreachable) {
      throw new Unavailable("fake ledger unreachable", null);
    }
    // As the ledger: the cursor is a position in (created, payout id) order, whatever its status.
    Comparator<Map.Entry<String, Hold>> order =
        Comparator.comparing((Map.Entry<String, Hold> e) -> e.getValue().createdAt())
            .thenComparing(Map.Entry::getKey);
    Map.Entry<String, Hold> cursor =
        startingAfter == null || !holds.containsKey(startingAfter)
            ? null
            : Map.entry(startingAfter, holds.get(startingAfter));
    return holds.entrySet().stream()
        .filter(e -> e.getValue().status().equals("held"))
        .filter(e -> e.getValue().createdAt().isBefore(createdBefore))
        .filter(e -> cursor == null || order.compare(e, cursor) > 0)
        .sorted(order)
        .limit(limit)
        .map(
            e ->
                new OpenHold(
                    e.getKey(),
                    e.getValue().merchantId(),
                    e.getValue().environment(),
                    Money.of(e.getValue().amount(), "PHP"),
                    e.getValue().createdAt()))
        .toList();
  }

  /** As the ledger: a held amount goes back to available once; a settled payout is refused. */
  @Override
  public synchronized void release(String payoutId) {
    if (unreachable) {
      throw new Unavailable("fake ledger unreachable", null);
    }
    Hold hold = holds.get(payoutId);
    if (hold == null || hold.status().equals("settled")) {
      throw new Unavailable("the fake ledger refuses to release " + payoutId, null);
    }
    released.add(payoutId);
    settle(payoutId, "reversed", key(hold.merchantId(), hold.environment(), "PHP"));
  }

  /** Payout ids whose hold was released through {@link #release}, repeats included. */
  /** A hold taken at {@code createdAt} whose payout payments-service never saw. */
  public synchronized void heldWithoutPayout(
      String payoutId, String merchant, String environment, String amount, Instant createdAt) {
    holds.put(payoutId, new Hold(merchant, environment, new BigDecimal(amount), "held", createdAt));
  }

  public synchronized List<String> released() {
    return List.copyOf(released);
  }

  public synchronized void credit(String merchant, String environment, String amount) {
    available.merge(key(merchant, environment, "PHP"), new BigDecimal(amount), BigDecimal::add);
  }

  public synchronized BigDecimal available(String merchant, String environment) {
    return available.getOrDefault(key(merchant, environment, "PHP"), BigDecimal.ZERO).setScale(2);
  }

  public synchronized Hold holdOf(String payoutId) {
    return holds.get(payoutId);
  }

  /** Every hold request received, replays included. */
  public synchronized List<HoldRequest> asked() {
    return List.copyOf(asked);
  }

  public void unreachable(boolean value) {
    unreachable = value;
  }

  public void loseNextAnswer() {
    loseNextAnswer = true;
  }

  @Override
  public synchronized Outcome hold(HoldRequest request) {
    if (unreachable) {
      throw new Unavailable("fake ledger unreachable", null);
    }
    asked.add(request);
    Hold existing = holds.get(request.payoutId());
    if (existing != null) {
      if (existing.amount().compareTo(request.amount().amount()) != 0) {
        return new Refused("conflict", "HTTP 409");
      }
      return existing.status().equals("held") ? new Held() : new Released();
    }
    String key = key(request.merchantId(), request.environment(), request.amount().currency());
    BigDecimal balance = available.getOrDefault(key, BigDecimal.ZERO);
    if (balance.compareTo(request.amount().amount()) < 0) {
      return new Insufficient();
    }
    available.put(key, balance.subtract(request.amount().amount()));
    holds.put(
        request.payoutId(),
        new Hold(
            request.merchantId(),
            request.environment(),
            request.amount().amount(),
            "held",
            clock.instant()));
    if (loseNextAnswer) {
      loseNextAnswer = false;
      throw new Unavailable("the fake ledger took the hold but its answer was lost", null);
    }
    return new Held();
  }

  @Topic(Topics.EVENTS)
  public synchronized void receive(ConsumerRecord<String, byte[]> record) {
    Envelope envelope = KafkaEnvelopes.fromRecord(record);
    if (!applied.add(envelope.messageId())) {
      return;
    }
    String merchant = envelope.attribute(Envelope.ATTRIBUTE_MERCHANT_ID);
    JsonNode event = Json.tree(envelope.payload());
    JsonNode resource = event.path("data").path("object");
    String environment = event.path("environment").asText();
    String currency = resource.path("currency").asText();
    switch (envelope.type()) {
      case "payment.succeeded" ->
          available.merge(
              key(merchant, environment, currency),
              resource.get("net_amount").decimalValue(),
              BigDecimal::add);
      case "refund.succeeded" ->
          available.merge(
              key(merchant, environment, currency),
              resource.get("amount").decimalValue().negate(),
              BigDecimal::add);
      case "payout.succeeded" -> settle(resource.get("id").asText(), "settled", null);
      case "payout.failed" ->
          settle(resource.get("id").asText(), "reversed", key(merchant, environment, currency));
      default -> {}
    }
  }

  private void settle(String payoutId, String status, String reverseTo) {
    Hold hold = holds.get(payoutId);
    if (hold == null || !hold.status().equals("held")) {
      return;
    }
    holds.put(
        payoutId,
        new Hold(hold.merchantId(), hold.environment(), hold.amount(), status, hold.createdAt()));
    if (reverseTo != null) {
      available.merge(reverseTo, hold.amount(), BigDecimal::add);
    }
  }

  private static String key(String merchant, String environment, String currency) {
    return merchant + "|" + environment + "|" + currency;
  }
}
