package ph.payments.webhooks.targets;

import jakarta.inject.Singleton;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Optional;
import ph.payments.webhooks.WebhookSettings;

/**
 * Checks an endpoint URL when it is created or changed: in live mode (unless private targets are
 * allowed) its host must resolve, and only to public addresses. Deliveries check again, on the
 * addresses they connect to ({@link GuardedDnsResolver}).
 */
@Singleton
public class TargetGuard {

  private final WebhookSettings settings;
  private final TargetPolicy.Resolver resolver;

  public TargetGuard(WebhookSettings settings, TargetPolicy.Resolver resolver) {
    this.settings = settings;
    this.resolver = resolver;
  }

  /** What is wrong with {@code url} as a target in {@code environment}, or empty. */
  public Optional<String> refusal(String url, String environment) {
    if (settings.privateTargetsAllowed(environment)) {
      return Optional.empty();
    }
    String host = URI.create(url).getHost();
    try {
      TargetPolicy.resolvePublic(host, resolver);
      return Optional.empty();
    } catch (TargetRefusedException e) {
      return Optional.of("must reach a public address in live mode; " + e.getMessage());
    } catch (UnknownHostException e) {
      return Optional.of("must have a host name that resolves");
    }
  }
}
