package ph.payments.webhooks.support;

import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.net.InetAddress;
import java.net.UnknownHostException;
import ph.payments.webhooks.targets.TargetPolicy;

/**
 * Resolves {@value #HOST} to whatever the test says: a DNS name whose answer changes between
 * registration and delivery (DNS rebinding), or that points at an internal address from the start.
 * Names under {@value #PUBLIC_DOMAIN} resolve to a public address, as a merchant's would on the
 * internet (the test machine may have no DNS); everything else as the system resolves it.
 */
@Singleton
@Requires(
    property = "spec.name",
    pattern = "TargetSafetyIT|PrivateTargetsIT|WebhookDeliveryIT|SealedSecretRepliesIT")
public class RebindingResolver implements TargetPolicy.Resolver {

  public static final String HOST = "rebinding.example";
  public static final String PUBLIC_ADDRESS = "93.184.216.34";
  public static final String PUBLIC_DOMAIN = "example.ph";

  private volatile String answer = PUBLIC_ADDRESS;

  public void resolveTo(String address) {
    this.answer = address;
  }

  @Override
  public InetAddress[] resolve(String host) throws UnknownHostException {
    if (host.equals(HOST)) {
      return new InetAddress[] {InetAddress.getByName(answer)};
    }
    if (host.endsWith("." + PUBLIC_DOMAIN)) {
      return new InetAddress[] {InetAddress.getByName(PUBLIC_ADDRESS)};
    }
    return InetAddress.getAllByName(host);
  }
}
