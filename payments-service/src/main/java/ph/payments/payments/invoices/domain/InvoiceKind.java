package ph.payments.payments.invoices.domain;

import java.util.Locale;

/** SPEC part 2 "Invoice" {@code kind}. */
public enum InvoiceKind {
  /** A merchant's invoice to its customer, numbered {@code INV-YYYY-NNNN} when sent. */
  INVOICE,
  /**
   * An operator's invoice of a merchant's activation fee ({@code activation_fees.create}): never
   * numbered; paid to the platform.
   */
  ACTIVATION_FEE;

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static InvoiceKind fromWire(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }
}
