package ph.payments.payments.providers;

import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import ph.payments.payments.providers.sandbox.SandboxProviders;

/**
 * Routes {@code method} + {@code currency} to the adapter that serves them (SPEC: {@code
 * no_route}). Test mode uses the sandbox providers only. Live mode uses only the connectors named
 * in {@link LiveConnectors} ({@code LIVE_CONNECTORS}), and the sandbox only when {@code simulated}
 * is named; otherwise live answers {@code no_route} (docs/decisions.md).
 */
@Singleton
public class ProviderRouter {

  private final List<ProviderAdapter> adapters;
  private final List<ProviderAdapter> test;
  private final List<ProviderAdapter> live;

  public ProviderRouter(
      List<ProviderAdapter> connectors, SandboxProviders sandbox, LiveConnectors liveConnectors) {
    List<ProviderAdapter> all = new ArrayList<>(connectors);
    all.addAll(sandbox.all());
    this.adapters = List.copyOf(all);
    this.test = List.copyOf(sandbox.all());
    List<ProviderAdapter> allowed = new ArrayList<>();
    connectors.stream().filter(c -> liveConnectors.allows(c.name())).forEach(allowed::add);
    if (liveConnectors.simulated()) {
      allowed.addAll(sandbox.all());
    }
    this.live = List.copyOf(allowed);
  }

  /** The adapter for a new payment of {@code environment} ({@code test} or {@code live}). */
  public Optional<ProviderAdapter> route(String environment, String method, String currency) {
    return usable(environment).stream()
        .filter(a -> a.methods().contains(method) && a.currencies().contains(currency))
        .findFirst();
  }

  /**
   * Every method {@code environment} can route in {@code currency}, sorted: what a payment link's
   * page offers when the link leaves the method to the customer.
   */
  public List<String> methods(String environment, String currency) {
    return usable(environment).stream()
        .filter(a -> a.currencies().contains(currency))
        .flatMap(a -> a.methods().stream())
        .distinct()
        .sorted()
        .toList();
  }

  /**
   * The adapter called {@code name} if {@code environment} may use it now: refunds go back through
   * the payment's provider, and a live refund must not reach a provider live mode no longer uses.
   */
  public Optional<ProviderAdapter> byName(String environment, String name) {
    return usable(environment).stream().filter(a -> a.name().equals(name)).findFirst();
  }

  /**
   * Any adapter called {@code name}, for provider callbacks: they are about resources that exist
   * and are verified by the adapter's own signature.
   */
  public Optional<ProviderAdapter> byName(String name) {
    return adapters.stream().filter(a -> a.name().equals(name)).findFirst();
  }

  private List<ProviderAdapter> usable(String environment) {
    return "live".equals(environment) ? live : test;
  }
}
