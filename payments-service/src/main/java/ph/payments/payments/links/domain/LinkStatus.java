package ph.payments.payments.links.domain;

import java.util.Locale;

/** SPEC part 3 "Payment link": an update may set either value. */
public enum LinkStatus {
  /** Takes payments (unless its {@code expires_at} has passed). */
  ACTIVE,
  /** Takes no payment: 409 {@code link_inactive}. */
  INACTIVE;

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static LinkStatus fromWire(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }
}
