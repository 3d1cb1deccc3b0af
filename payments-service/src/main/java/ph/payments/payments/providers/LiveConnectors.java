package ph.payments.payments.providers;

import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which connectors live mode may use ({@code payments.live-connectors}, {@code LIVE_CONNECTORS}: a
 * comma list, empty by default). Live traffic moves real money, so it goes only where the operator
 * named a connector: with the list empty every live payment, refund and payout answers {@code
 * no_route}, and nothing falls back to the sandbox (which would "succeed" with no money moving and
 * let the ledger settle it).
 *
 * <p>{@value #SIMULATED} is the one name that is not a real connector: it lets the sandbox
 * providers and rails serve live mode, for local development and the end-to-end tests only. Live
 * resources it serves keep the sandbox's provider names ({@code sandbox_…}) and references ({@code
 * sbx_…}), so they are visibly not real, and start-up logs a warning. An unknown name refuses
 * start-up: a typo must not leave live mode silently without the connector the operator meant.
 */
@Context
public class LiveConnectors {

  /** The local simulated connector: the sandbox standing in for live providers. */
  public static final String SIMULATED = "simulated";

  private static final Logger log = LoggerFactory.getLogger(LiveConnectors.class);

  private final Set<String> names;

  public LiveConnectors(
      @Nullable @Value("${payments.live-connectors:}") String configured,
      List<ProviderAdapter> connectors,
      List<PayoutAdapter> payoutConnectors) {
    this.names =
        configured == null
            ? Set.of()
            : Arrays.stream(configured.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .collect(Collectors.toCollection(LinkedHashSet::new));
    Set<String> known = new TreeSet<>();
    known.add(SIMULATED);
    connectors.forEach(c -> known.add(c.name()));
    payoutConnectors.forEach(c -> known.add(c.name()));
    Set<String> unknown = new TreeSet<>(names);
    unknown.removeAll(known);
    if (!unknown.isEmpty()) {
      throw new IllegalStateException(
          "LIVE_CONNECTORS names " + unknown + ", which are not connectors; known: " + known);
    }
    if (names.contains(SIMULATED)) {
      log.warn(
          "LIVE_CONNECTORS includes 'simulated': live payments, refunds and payouts are SIMULATED"
              + " by the sandbox (no money moves). For local development and tests only.");
    } else if (names.isEmpty()) {
      log.info("LIVE_CONNECTORS is empty: live payments, refunds and payouts answer no_route");
    }
  }

  /** Whether live mode may use the connector called {@code name} (never a sandbox provider). */
  public boolean allows(String name) {
    return !SIMULATED.equals(name) && names.contains(name);
  }

  /** Whether the sandbox stands in for live providers ({@value #SIMULATED} is listed). */
  public boolean simulated() {
    return names.contains(SIMULATED);
  }
}
