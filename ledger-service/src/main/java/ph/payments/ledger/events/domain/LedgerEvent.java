package ph.payments.ledger.events.domain;

import java.time.Instant;
import ph.payments.platform.money.Money;

/**
 * An event of the event topic as the ledger reads it: the facts it posts from, or a reason it
 * cannot. Every variant carries the event id (which is also the message id) and the merchant and
 * environment the event belongs to, where known.
 */
public sealed interface LedgerEvent {

  /** {@code payment.succeeded}: credit the merchant with the net amount, book the fee. */
  record PaymentSucceeded(
      String eventId,
      String merchantId,
      String environment,
      String paymentId,
      Money amount,
      Money fee,
      Money net,
      Instant at)
      implements LedgerEvent {}

  /**
   * {@code refund.succeeded}: debit the refunded amount.
   *
   * @param currency null when the refund resource does not carry one (SPEC's Refund lists no
   *     currency field): the payment's currency then applies
   */
  record RefundSucceeded(
      String eventId,
      String merchantId,
      String environment,
      String refundId,
      String paymentId,
      java.math.BigDecimal amount,
      String currency,
      Instant at)
      implements LedgerEvent {}

  /** {@code payout.succeeded}: settle the payout. */
  record PayoutSucceeded(
      String eventId,
      String merchantId,
      String environment,
      String payoutId,
      Money amount,
      Money fee,
      Instant at)
      implements LedgerEvent {}

  /** {@code payout.failed}: reverse the payout's debit. */
  record PayoutFailed(
      String eventId,
      String merchantId,
      String environment,
      String payoutId,
      Money amount,
      Instant at)
      implements LedgerEvent {}

  /** Any other type: consumed, nothing posted. */
  record Ignored(String type) implements LedgerEvent {}

  /** A type the ledger posts from, but the event cannot be read: consumed, reported. */
  record Malformed(String type, String reason) implements LedgerEvent {}
}
