package ph.payments.gateway.embed.tokens;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Who looks at the embedded panel, which decides the tabs a token may carry at all. */
public enum Audience {
  /** The merchant's own staff: every tab; a scope only narrows what can be narrowed. */
  MERCHANT(List.of(Tab.values())),
  /**
   * One of the merchant's customers: only that customer's payments and invoices; a token of this
   * audience always carries the customer's id.
   */
  CUSTOMER(List.of(Tab.PAYMENTS, Tab.INVOICES));

  private final List<Tab> tabs;

  Audience(List<Tab> tabs) {
    this.tabs = tabs;
  }

  /** Every tab this audience may see, in the panel's order. */
  public List<Tab> tabs() {
    return tabs;
  }

  public boolean allows(Tab tab) {
    return tabs.contains(tab);
  }

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<Audience> fromWire(String value) {
    return Arrays.stream(values()).filter(a -> a.wire().equals(value)).findFirst();
  }
}
