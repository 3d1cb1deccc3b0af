package ph.payments.gateway.embed.tokens;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What the merchant mounts: the payments list alone, or the whole panel. It chooses the tabs of a
 * token whose request named none; with tabs named, the tabs decide.
 */
public enum Surface {
  PAYMENTS,
  PANEL;

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The tabs of a token asked for without {@code tabs}. */
  public List<Tab> defaultTabs(Audience audience) {
    return this == PAYMENTS ? List.of(Tab.PAYMENTS) : audience.tabs();
  }

  public static Optional<Surface> fromWire(String value) {
    return Arrays.stream(values()).filter(s -> s.wire().equals(value)).findFirst();
  }
}
