package ph.payments.webhooks.targets;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.SystemDefaultDnsResolver;

/**
 * The HTTP client's resolver for live-mode deliveries: it resolves the host and hands the client
 * only addresses it checked, so the connection goes to exactly the address that passed {@link
 * TargetPolicy} (no second lookup that DNS rebinding could answer differently). When any address of
 * the name is refused, no connection is made at all.
 */
public final class GuardedDnsResolver implements DnsResolver {

  private final TargetPolicy.Resolver resolver;

  public GuardedDnsResolver(TargetPolicy.Resolver resolver) {
    this.resolver = resolver;
  }

  @Override
  public InetAddress[] resolve(String host) throws UnknownHostException {
    return TargetPolicy.resolvePublic(host, resolver);
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
