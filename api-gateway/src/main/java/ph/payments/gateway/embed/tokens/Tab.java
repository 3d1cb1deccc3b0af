package ph.payments.gateway.embed.tokens;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * A tab of the embeddable panel (SPEC part 2 "EmbedToken" {@code tabs}): what a token may read
 * through {@code /embed/v1}. Declared in the order the panel shows them.
 */
public enum Tab {
  PAYMENTS,
  PAYOUTS,
  BALANCE,
  INVOICES,
  CUSTOMERS,
  EVENTS;

  /** The wire form, e.g. {@code payments}. */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<Tab> fromWire(String value) {
    return Arrays.stream(values()).filter(tab -> tab.wire().equals(value)).findFirst();
  }
}
