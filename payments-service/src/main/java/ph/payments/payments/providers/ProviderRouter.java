package ph.payments.payments.providers;

import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import ph.payments.payments.providers.sandbox.SandboxProviders;

/**
 * Routes {@code method} + {@code currency} to the adapter that serves them (SPEC: {@code
 * no_route}). Live connectors are {@link ProviderAdapter} beans and take precedence; the sandbox
 * providers serve what no connector does (the only providers until real connectors exist, for test
 * and live alike — see docs/decisions.md).
 */
@Singleton
public class ProviderRouter {

  private final List<ProviderAdapter> adapters;

  public ProviderRouter(List<ProviderAdapter> connectors, SandboxProviders sandbox) {
    List<ProviderAdapter> all = new ArrayList<>(connectors);
    all.addAll(sandbox.all());
    this.adapters = List.copyOf(all);
  }

  public Optional<ProviderAdapter> route(String method, String currency) {
    return adapters.stream()
        .filter(a -> a.methods().contains(method) && a.currencies().contains(currency))
        .findFirst();
  }

  public Optional<ProviderAdapter> byName(String name) {
    return adapters.stream().filter(a -> a.name().equals(name)).findFirst();
  }
}
