package ph.payments.ledger.invariants;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import ph.payments.contracts.Envelope;
import ph.payments.platform.json.Json;

/**
 * The ledger's rules as plain maps, written independently of the service (docs/ledger.md, the
 * posting rules and the hold table): what every balance must be after a history of messages and
 * hold requests, and what every hold request must be answered. TigerBeetle's auditor does the same
 * for its state machine.
 */
final class LedgerModel {

  static final String AVAILABLE = "merchant_available";
  static final String IN_FLIGHT = "merchant_payouts_in_flight";
  static final String FEES = "platform_fees";
  static final String CLEARING = "provider_clearing";

  /** merchant|environment|currency. */
  record Book(String merchant, String environment, String currency) {
    String key() {
      return merchant + "|" + environment + "|" + currency;
    }
  }

  /** How the model answers a hold request. */
  enum Answer {
    TAKEN,
    EXISTS,
    REFUSED,
    CONFLICT
  }

  /** The answer with the payout's status afterwards and, when taken, the balance after. */
  record HoldAnswer(Answer answer, String status, BigDecimal balanceAfter) {}

  /** What applying a message did in the model. */
  enum Applied {
    DUPLICATE,
    APPLIED,
    /** The message cannot be applied yet (refund without a currency before its payment). */
    RETRY
  }

  private record Payout(
      String merchant, String environment, String currency, BigDecimal amount, String status) {
    Payout with(String next) {
      return new Payout(merchant, environment, currency, amount, next);
    }
  }

  /** book key → account code → balance. */
  private final Map<String, Map<String, BigDecimal>> books = new TreeMap<>();

  private final Set<String> consumed = new HashSet<>();
  private final Set<String> facts = new HashSet<>();
  private final Map<String, String> paymentCurrency = new HashMap<>();
  private final Map<String, Payout> payouts = new HashMap<>();
  private long anomalies;

  Applied apply(Envelope envelope) {
    if (consumed.contains(envelope.messageId())) {
      return Applied.DUPLICATE;
    }
    JsonNode event = Json.tree(envelope.payload());
    JsonNode r = event.get("data").get("object");
    String merchant = envelope.attribute(Envelope.ATTRIBUTE_MERCHANT_ID);
    String environment = event.get("environment").asText();
    switch (envelope.type()) {
      case "payment.succeeded" -> {
        String currency = r.get("currency").asText();
        if (facts.add("payment:" + r.get("id").asText())) {
          Book book = new Book(merchant, environment, currency);
          add(book, CLEARING, r.get("amount").decimalValue().negate());
          add(book, AVAILABLE, r.get("net_amount").decimalValue());
          add(book, FEES, r.get("fee_amount").decimalValue());
          paymentCurrency.put(r.get("id").asText(), currency);
        }
      }
      case "refund.succeeded" -> {
        String currency =
            r.hasNonNull("currency")
                ? r.get("currency").asText()
                : paymentCurrency.get(r.get("payment").asText());
        if (currency == null) {
          return Applied.RETRY;
        }
        if (facts.add("refund:" + r.get("id").asText())) {
          Book book = new Book(merchant, environment, currency);
          BigDecimal amount = r.get("amount").decimalValue();
          add(book, AVAILABLE, amount.negate());
          add(book, CLEARING, amount);
        }
      }
      case "payout.succeeded" -> {
        String id = r.get("id").asText();
        BigDecimal amount = r.get("amount").decimalValue();
        BigDecimal fee =
            r.hasNonNull("fee_amount") ? r.get("fee_amount").decimalValue() : BigDecimal.ZERO;
        Book book = new Book(merchant, environment, r.get("currency").asText());
        Payout payout = payouts.get(id);
        String status = payout == null ? null : payout.status();
        if (status == null || status.equals("refused") || status.equals("held")) {
          add(
              book,
              status != null && status.equals("held") ? IN_FLIGHT : AVAILABLE,
              amount.negate());
          add(book, CLEARING, amount.subtract(fee));
          add(book, FEES, fee);
          if (status != null && status.equals("refused")) {
            anomalies++; // applied, but an operator is told
          }
          payouts.put(
              id,
              payout == null
                  ? new Payout(merchant, environment, book.currency(), amount, "settled")
                  : payout.with("settled"));
        } else if (status.equals("reversed")) {
          anomalies++;
        }
      }
      case "payout.failed" -> {
        String id = r.get("id").asText();
        BigDecimal amount = r.get("amount").decimalValue();
        Book book = new Book(merchant, environment, r.get("currency").asText());
        Payout payout = payouts.get(id);
        if (payout == null) {
          payouts.put(id, new Payout(merchant, environment, book.currency(), amount, "reversed"));
        } else if (payout.status().equals("held")) {
          add(book, IN_FLIGHT, amount.negate());
          add(book, AVAILABLE, amount);
          payouts.put(id, payout.with("reversed"));
        } else if (payout.status().equals("settled")) {
          anomalies++;
        }
      }
      default -> {}
    }
    consumed.add(envelope.messageId());
    return Applied.APPLIED;
  }

  HoldAnswer hold(
      String payoutId, String merchant, String environment, String currency, BigDecimal amount) {
    Payout existing = payouts.get(payoutId);
    if (existing != null) {
      boolean same =
          existing.merchant().equals(merchant)
              && existing.environment().equals(environment)
              && existing.currency().equals(currency)
              && existing.amount().compareTo(amount) == 0;
      if (!same) {
        return new HoldAnswer(Answer.CONFLICT, existing.status(), null);
      }
      return new HoldAnswer(
          existing.status().equals("refused") ? Answer.REFUSED : Answer.EXISTS,
          existing.status(),
          null);
    }
    Book book = new Book(merchant, environment, currency);
    BigDecimal available = balance(book, AVAILABLE);
    if (available.compareTo(amount) < 0) {
      payouts.put(payoutId, new Payout(merchant, environment, currency, amount, "refused"));
      return new HoldAnswer(Answer.REFUSED, "refused", null);
    }
    add(book, AVAILABLE, amount.negate());
    add(book, IN_FLIGHT, amount);
    payouts.put(payoutId, new Payout(merchant, environment, currency, amount, "held"));
    return new HoldAnswer(Answer.TAKEN, "held", balance(book, AVAILABLE));
  }

  private void add(Book book, String code, BigDecimal amount) {
    Map<String, BigDecimal> accounts =
        books.computeIfAbsent(
            book.key(),
            k -> {
              Map<String, BigDecimal> fresh = new TreeMap<>();
              for (String c : new String[] {AVAILABLE, IN_FLIGHT, FEES, CLEARING}) {
                fresh.put(c, new BigDecimal("0.00"));
              }
              return fresh;
            });
    accounts.merge(code, amount, BigDecimal::add);
  }

  BigDecimal balance(Book book, String code) {
    Map<String, BigDecimal> accounts = books.get(book.key());
    return accounts == null ? new BigDecimal("0.00") : accounts.get(code);
  }

  /** Every book with activity: book key → code → balance. */
  Map<String, Map<String, BigDecimal>> books() {
    return books;
  }

  String payoutStatus(String payoutId) {
    Payout payout = payouts.get(payoutId);
    return payout == null ? null : payout.status();
  }

  long anomalies() {
    return anomalies;
  }

  @Override
  public String toString() {
    return Objects.toString(books);
  }
}
