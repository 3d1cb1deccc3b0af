package ph.payments.ledger.journal.domain;

import java.util.Locale;

/**
 * What a journal transaction records. With its reference (the business id) it identifies the
 * transaction: each kind happens at most once per reference.
 */
public enum EntryKind {
  /** A payment captured: reference {@code pay_…}. */
  PAYMENT_SUCCEEDED,
  /** A refund paid back: reference {@code re_…}. */
  REFUND_SUCCEEDED,
  /** A payout's debit taken from available into in-flight: reference {@code po_…}. */
  PAYOUT_HELD,
  /** A payout paid out: reference {@code po_…}. */
  PAYOUT_SETTLED,
  /** A failed (or released) payout's debit given back: reference {@code po_…}. */
  PAYOUT_REVERSED;

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static EntryKind fromWire(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }
}
