package ph.payments.payments.providers;

import jakarta.inject.Singleton;
import java.util.List;
import java.util.Optional;

/** Routes {@code method} + {@code currency} to the adapter that serves them (SPEC: {@code no_route}). */
@Singleton
public class ProviderRouter {

  private final List<ProviderAdapter> adapters;

  public ProviderRouter(List<ProviderAdapter> adapters) {
    this.adapters = List.copyOf(adapters);
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
