package ph.payments.ledger.events.application;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Set;
import ph.payments.contracts.Envelope;
import ph.payments.ledger.events.domain.LedgerEvent;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.money.InvalidAmountException;
import ph.payments.platform.money.Money;

/**
 * Reads an event message: {@code {id, object:"event", type, environment, created,
 * data:{object:<resource>}}} as the payments-service event log stores it, with the merchant in the
 * envelope attribute {@link Envelope#ATTRIBUTE_MERCHANT_ID}.
 */
public final class EventReader {

  public static final String PAYMENT_SUCCEEDED = "payment.succeeded";
  public static final String REFUND_SUCCEEDED = "refund.succeeded";
  public static final String PAYOUT_SUCCEEDED = "payout.succeeded";
  public static final String PAYOUT_FAILED = "payout.failed";

  /**
   * The type given to a Kafka record that lacks this system's envelope headers: it can never be
   * applied, so it is parked (see {@code EventsListener}).
   */
  public static final String UNREADABLE = "unreadable";

  private static final Set<String> POSTED =
      Set.of(PAYMENT_SUCCEEDED, REFUND_SUCCEEDED, PAYOUT_SUCCEEDED, PAYOUT_FAILED);
  private static final Set<String> ENVIRONMENTS = Set.of("test", "live");

  /** The largest amount a posting holds ({@code numeric(14,2)}). */
  private static final BigDecimal MAX_AMOUNT = new BigDecimal("999999999999.99");

  /** Thrown while reading; becomes {@link LedgerEvent.Malformed}. */
  private static final class Unreadable extends RuntimeException {
    Unreadable(String message) {
      super(message, null, false, false);
    }
  }

  public static LedgerEvent read(Envelope envelope) {
    String type = envelope.type();
    if (UNREADABLE.equals(type)) {
      return new LedgerEvent.Malformed(type, "Kafka record without the envelope headers");
    }
    if (!POSTED.contains(type)) {
      return new LedgerEvent.Ignored(type);
    }
    try {
      return read(type, envelope);
    } catch (Unreadable | InvalidAmountException e) {
      return new LedgerEvent.Malformed(type, e.getMessage());
    } catch (RuntimeException e) {
      return new LedgerEvent.Malformed(type, "not an event: " + e.getMessage());
    }
  }

  private static LedgerEvent read(String type, Envelope envelope) {
    String merchantId = envelope.attribute(Envelope.ATTRIBUTE_MERCHANT_ID);
    if (!IdType.MERCHANT.matches(merchantId)) {
      throw new Unreadable("no merchant-id attribute naming a merchant");
    }
    JsonNode event = Json.tree(envelope.payload());
    if (event.hasNonNull("type") && !type.equals(event.get("type").asText())) {
      throw new Unreadable("body type " + event.get("type").asText() + " is not " + type);
    }
    String environment = text(event, "environment");
    if (environment == null || !ENVIRONMENTS.contains(environment)) {
      throw new Unreadable("environment must be test or live");
    }
    String eventId = event.hasNonNull("id") ? event.get("id").asText() : envelope.messageId();
    Instant at =
        event.hasNonNull("created") && event.get("created").canConvertToLong()
            ? Instant.ofEpochSecond(event.get("created").asLong())
            : envelope.time();
    JsonNode resource = event.path("data").path("object");
    if (!resource.isObject()) {
      throw new Unreadable("no data.object");
    }
    if (resource.hasNonNull("environment")
        && !environment.equals(resource.get("environment").asText())) {
      throw new Unreadable("resource environment differs from the event's");
    }
    return switch (type) {
      case PAYMENT_SUCCEEDED -> payment(eventId, merchantId, environment, resource, at);
      case REFUND_SUCCEEDED -> refund(eventId, merchantId, environment, resource, at);
      case PAYOUT_SUCCEEDED -> {
        String currency = currency(resource);
        yield new LedgerEvent.PayoutSucceeded(
            eventId,
            merchantId,
            environment,
            id(resource, IdType.PAYOUT),
            positive(resource, "amount", currency),
            optional(resource, "fee_amount", currency),
            at);
      }
      case PAYOUT_FAILED -> {
        String currency = currency(resource);
        yield new LedgerEvent.PayoutFailed(
            eventId,
            merchantId,
            environment,
            id(resource, IdType.PAYOUT),
            positive(resource, "amount", currency),
            at);
      }
      default -> throw new AssertionError(type);
    };
  }

  private static LedgerEvent payment(
      String eventId, String merchantId, String environment, JsonNode resource, Instant at) {
    String currency = currency(resource);
    Money amount = positive(resource, "amount", currency);
    Money fee = optional(resource, "fee_amount", currency);
    Money net = resource.hasNonNull("net_amount") ? money(resource, "net_amount", currency) : null;
    if (net == null) {
      net = amount.minus(fee);
    }
    if (fee.isNegative() || net.isNegative() || !net.plus(fee).equals(amount)) {
      throw new Unreadable(
          "amount " + amount + " is not net_amount " + net + " plus fee_amount " + fee);
    }
    return new LedgerEvent.PaymentSucceeded(
        eventId, merchantId, environment, id(resource, IdType.PAYMENT), amount, fee, net, at);
  }

  private static LedgerEvent refund(
      String eventId, String merchantId, String environment, JsonNode resource, Instant at) {
    String currency = null;
    if (resource.hasNonNull("currency")) {
      currency = currency(resource);
    }
    JsonNode amount = resource.get("amount");
    if (amount == null || !amount.isNumber()) {
      throw new Unreadable("amount must be a number");
    }
    BigDecimal value = Money.exactScale(amount.decimalValue());
    if (value.signum() <= 0 || value.compareTo(MAX_AMOUNT) > 0) {
      throw new Unreadable("amount must be positive and at most " + MAX_AMOUNT.toPlainString());
    }
    String paymentId = text(resource, "payment");
    if (!IdType.PAYMENT.matches(paymentId)) {
      throw new Unreadable("payment must be a payment id");
    }
    return new LedgerEvent.RefundSucceeded(
        eventId,
        merchantId,
        environment,
        id(resource, IdType.REFUND),
        paymentId,
        value,
        currency,
        at);
  }

  private static String id(JsonNode resource, IdType type) {
    String id = text(resource, "id");
    if (!type.matches(id)) {
      throw new Unreadable("id must be a " + type.prefix() + "_ id");
    }
    return id;
  }

  private static String currency(JsonNode resource) {
    String currency = text(resource, "currency");
    if (!Money.isCurrencyCode(currency)) {
      throw new Unreadable("currency must be a 3-letter upper-case code");
    }
    return currency;
  }

  private static Money money(JsonNode resource, String field, String currency) {
    JsonNode node = resource.get(field);
    if (node == null || !node.isNumber()) {
      throw new Unreadable(field + " must be a number");
    }
    Money money = Money.of(node.decimalValue(), currency);
    if (money.amount().abs().compareTo(MAX_AMOUNT) > 0) {
      throw new Unreadable(field + " is larger than " + MAX_AMOUNT.toPlainString());
    }
    return money;
  }

  private static Money positive(JsonNode resource, String field, String currency) {
    Money money = money(resource, field, currency);
    if (!money.isPositive()) {
      throw new Unreadable(field + " must be positive");
    }
    return money;
  }

  /** A nullable amount; null and absent count as zero. */
  private static Money optional(JsonNode resource, String field, String currency) {
    if (!resource.hasNonNull(field)) {
      return Money.zero(currency);
    }
    Money money = money(resource, field, currency);
    if (money.isNegative()) {
      throw new Unreadable(field + " must not be negative");
    }
    return money;
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value != null && value.isTextual() ? value.asText() : null;
  }

  private EventReader() {}
}
