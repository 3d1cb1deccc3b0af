package ph.payments.payments.providers;

import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import ph.payments.payments.providers.sandbox.SandboxProviders;

/**
 * Routes a payout's {@code method} + {@code currency} to the rail that serves them (SPEC: {@code
 * no_route} otherwise). Live connectors are {@link PayoutAdapter} beans and take precedence; the
 * sandbox rails serve what no connector does, as for payments.
 */
@Singleton
public class PayoutRouter {

  private final List<PayoutAdapter> rails;

  public PayoutRouter(List<PayoutAdapter> connectors, SandboxProviders sandbox) {
    List<PayoutAdapter> all = new ArrayList<>(connectors);
    all.addAll(sandbox.payoutRails());
    this.rails = List.copyOf(all);
  }

  public Optional<PayoutAdapter> route(String method, String currency) {
    return rails.stream()
        .filter(r -> r.methods().contains(method) && r.currencies().contains(currency))
        .findFirst();
  }

  public Optional<PayoutAdapter> byName(String name) {
    return rails.stream().filter(r -> r.name().equals(name)).findFirst();
  }
}
