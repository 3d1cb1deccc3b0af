package ph.payments.payments.invoices.domain;

import java.util.Locale;

/** SPEC part 2 "Invoice" {@code kind}. */
public enum InvoiceKind {
  /** A merchant's invoice to its customer, numbered {@code INV-YYYY-NNNN} when sent. */
  INVOICE,
  /** An operator's invoice of a merchant's activation fee: never numbered (not built yet). */
  ACTIVATION_FEE;

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static InvoiceKind fromWire(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }
}
