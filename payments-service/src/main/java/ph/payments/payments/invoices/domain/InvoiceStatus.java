package ph.payments.payments.invoices.domain;

import java.util.Locale;

/** SPEC part 3 "Invoice"; the transitions are the table of docs/invoices.md and {@link Invoice}. */
public enum InvoiceStatus {
  /** Being written: every field may change; not shown to customers, takes no payment. */
  DRAFT,
  /** Sent (numbered, shown at its URL), nothing paid yet. */
  SENT,
  /** Some paid, some remaining. */
  PARTIAL,
  /** Nothing remaining. A refund reopens it. */
  PAID,
  /** Voided by the merchant, or forfeited by the job ({@code forfeited_at} set). Final. */
  VOID;

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static InvoiceStatus fromWire(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }

  /** Sent, partial or paid: shown to customers and open to refunds moving it. */
  public boolean issued() {
    return this == SENT || this == PARTIAL || this == PAID;
  }
}
