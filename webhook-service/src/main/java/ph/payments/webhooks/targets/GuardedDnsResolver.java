package ph.payments.webhooks.targets;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.SystemDefaultDnsResolver;

/**
 * The HTTP client's resolver for every delivery: it resolves the host and hands the client only
 * addresses it checked against {@link TargetPolicy}, so the connection goes to exactly the address
 * that passed (no second lookup that DNS rebinding could answer differently). When any address of
 * the name is refused, no connection is made at all.
 */
public final class GuardedDnsResolver implements DnsResolver {

  private final TargetPolicy.Resolver resolver;
  private final boolean allowPrivateTargets;

  /**
   * @param resolver resolves host names (the system resolver in production)
   * @param allowPrivateTargets {@code WEBHOOK_ALLOW_PRIVATE_TARGETS}
   */
  public GuardedDnsResolver(TargetPolicy.Resolver resolver, boolean allowPrivateTargets) {
    this.resolver = resolver;
    this.allowPrivateTargets = allowPrivateTargets;
  }

  @Override
  public InetAddress[] resolve(String host) throws UnknownHostException {
    return TargetPolicy.resolveAllowed(host, resolver, allowPrivateTargets);
  }

  @Override
  public List<InetSocketAddress> resolve(String host, int port) throws UnknownHostException {
    List<InetSocketAddress> addresses = new ArrayList<>();
    for (InetAddress address : resolve(host)) {
      addresses.add(new InetSocketAddress(address, port));
    }
    return addresses;
  }

  @Override
  public String resolveCanonicalHostname(String host) throws UnknownHostException {
    return SystemDefaultDnsResolver.INSTANCE.resolveCanonicalHostname(host);
  }
}
