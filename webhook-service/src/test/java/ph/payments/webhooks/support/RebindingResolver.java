package ph.payments.webhooks.support;

import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.net.InetAddress;
import java.net.UnknownHostException;
import ph.payments.webhooks.targets.TargetPolicy;

/**
 * Resolves {@value #HOST} to whatever the test says, everything else as the system does: a DNS name
 * whose answer changes between registration and delivery (DNS rebinding), or that points at an
 * internal address from the start.
 */
@Singleton
@Requires(property = "spec.name", pattern = "TargetSafetyIT|PrivateTargetsIT")
public class RebindingResolver implements TargetPolicy.Resolver {

  public static final String HOST = "rebinding.example";
  public static final String PUBLIC_ADDRESS = "93.184.216.34";

  private volatile String answer = PUBLIC_ADDRESS;

  public void resolveTo(String address) {
    this.answer = address;
  }

  @Override
  public InetAddress[] resolve(String host) throws UnknownHostException {
    if (host.equals(HOST)) {
      return new InetAddress[] {InetAddress.getByName(answer)};
    }
    return InetAddress.getAllByName(host);
  }
}
