package ph.payments.payments.providers;

import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import ph.payments.payments.providers.sandbox.SandboxProviders;

/**
 * Routes a payout's {@code method} + {@code currency} to the rail that serves them (SPEC: {@code
 * no_route} otherwise). As for payments: test mode uses the sandbox rails only, live mode only the
 * connectors named in {@link LiveConnectors} (and the sandbox rails only when {@code simulated} is
 * named).
 */
@Singleton
public class PayoutRouter {

  private final List<PayoutAdapter> rails;
  private final List<PayoutAdapter> test;
  private final List<PayoutAdapter> live;

  public PayoutRouter(
      List<PayoutAdapter> connectors, SandboxProviders sandbox, LiveConnectors liveConnectors) {
    List<PayoutAdapter> all = new ArrayList<>(connectors);
    all.addAll(sandbox.payoutRails());
    this.rails = List.copyOf(all);
    this.test = List.copyOf(sandbox.payoutRails());
    List<PayoutAdapter> allowed = new ArrayList<>();
    connectors.stream().filter(c -> liveConnectors.allows(c.name())).forEach(allowed::add);
    if (liveConnectors.simulated()) {
      allowed.addAll(sandbox.payoutRails());
    }
    this.live = List.copyOf(allowed);
  }

  /** The rail for a new payout of {@code environment} ({@code test} or {@code live}). */
  public Optional<PayoutAdapter> route(String environment, String method, String currency) {
    return ("live".equals(environment) ? live : test)
        .stream()
            .filter(r -> r.methods().contains(method) && r.currencies().contains(currency))
            .findFirst();
  }

  public Optional<PayoutAdapter> byName(String name) {
    return rails.stream().filter(r -> r.name().equals(name)).findFirst();
  }
}
