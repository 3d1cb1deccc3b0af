package ph.payments.webhooks.targets;

import jakarta.inject.Singleton;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Optional;
import ph.payments.webhooks.WebhookSettings;

/**
 * Checks an endpoint URL when it is created or changed, the same in test and live mode: its host
 * must resolve, and only to addresses {@link TargetPolicy} allows under {@code
 * WEBHOOK_ALLOW_PRIVATE_TARGETS}. Deliveries check again, on the addresses they connect to ({@link
 * GuardedDnsResolver}).
 *
 * <p>The refusal never names the address or what kind it is: which internal names exist and where
 * they point is not the merchant's to learn.
 */
@Singleton
public class TargetGuard {

  private final WebhookSettings settings;
  private final TargetPolicy.Resolver resolver;

  public TargetGuard(WebhookSettings settings, TargetPolicy.Resolver resolver) {
    this.settings = settings;
    this.resolver = resolver;
  }

  /** What is wrong with {@code url} as a target, or empty. */
  public Optional<String> refusal(String url) {
    String host = URI.create(url).getHost();
    try {
      TargetPolicy.resolveAllowed(host, resolver, settings.allowPrivateTargets());
      return Optional.empty();
    } catch (TargetRefusedException e) {
      return Optional.of(
          settings.allowPrivateTargets()
              ? "must not reach a link-local, metadata, multicast or reserved address"
              : "must reach a public address (private and loopback addresses are refused)");
    } catch (UnknownHostException e) {
      return Optional.of("must have a host name that resolves");
    }
  }
}
