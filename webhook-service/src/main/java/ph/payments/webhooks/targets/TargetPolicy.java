package ph.payments.webhooks.targets;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * Which addresses a live-mode webhook may be sent to: public unicast addresses only. Refused are
 * loopback, private (RFC 1918), shared (CGNAT, 100.64/10), link-local (with the cloud metadata
 * address 169.254.169.254), unique-local IPv6 (with fd00:ec2::254), multicast, unspecified,
 * documentation and other reserved ranges, and IPv6 forms that embed a refused IPv4 address
 * (mapped, compatible, NAT64, 6to4) or hide one (Teredo). Otherwise a merchant's endpoint could
 * make the service call into its own network (SSRF).
 *
 * <p>A host name is acceptable only when <em>every</em> address it resolves to is, so DNS cannot
 * mix in an internal address; and the check is repeated at every delivery on the addresses the
 * connection then uses ({@link GuardedDnsResolver}), so a name that changes after the endpoint was
 * created (DNS rebinding) is caught too.
 */
public final class TargetPolicy {

  /** Resolves host names; the system resolver in production. */
  @FunctionalInterface
  public interface Resolver {
    InetAddress[] resolve(String host) throws UnknownHostException;

    Resolver SYSTEM = InetAddress::getAllByName;
  }

  /**
   * Resolves {@code host} and returns its addresses when every one is public.
   *
   * @throws TargetRefusedException when one of them is not
   * @throws UnknownHostException when the name does not resolve
   */
  public static InetAddress[] resolvePublic(String host, Resolver resolver)
      throws UnknownHostException {
    InetAddress[] addresses = resolver.resolve(host);
    for (InetAddress address : addresses) {
      Optional<String> refusal = refusal(address);
      if (refusal.isPresent()) {
        throw new TargetRefusedException(
            host + " resolves to " + address.getHostAddress() + ", " + refusal.get());
      }
    }
    return addresses;
  }

  /** Why {@code address} is refused, or empty for a public unicast address. */
  public static Optional<String> refusal(InetAddress address) {
    if (address instanceof Inet4Address) {
      return refusalV4(address.getAddress());
    }
    if (address instanceof Inet6Address) {
      return refusalV6(address.getAddress());
    }
    return Optional.of("an address of an unknown family");
  }

  private static Optional<String> refusalV4(byte[] a) {
    int b0 = a[0] & 0xff;
    int b1 = a[1] & 0xff;
    int b2 = a[2] & 0xff;
    int b3 = a[3] & 0xff;
    if (b0 == 169 && b1 == 254 && b2 == 169 && b3 == 254) {
      return Optional.of("the cloud metadata address");
    }
    if (b0 == 127) {
      return Optional.of("a loopback address");
    }
    if (b0 == 10 || (b0 == 172 && b1 >= 16 && b1 <= 31) || (b0 == 192 && b1 == 168)) {
      return Optional.of("a private address");
    }
    if (b0 == 169 && b1 == 254) {
      return Optional.of("a link-local address");
    }
    if (b0 == 100 && b1 >= 64 && b1 <= 127) {
      return Optional.of("a shared (carrier-grade NAT) address");
    }
    if (b0 == 0) {
      return Optional.of("an unspecified address");
    }
    if (b0 >= 224) {
      return Optional.of(b0 < 240 ? "a multicast address" : "a reserved address");
    }
    if ((b0 == 192 && b1 == 0 && b2 == 0)
        || (b0 == 192 && b1 == 0 && b2 == 2)
        || (b0 == 198 && (b1 == 18 || b1 == 19))
        || (b0 == 198 && b1 == 51 && b2 == 100)
        || (b0 == 203 && b1 == 0 && b2 == 113)) {
      return Optional.of("a reserved address");
    }
    return Optional.empty();
  }

  private static Optional<String> refusalV6(byte[] a) {
    if (isZero(a, 0, 16)) {
      return Optional.of("an unspecified address");
    }
    if (isZero(a, 0, 15) && a[15] == 1) {
      return Optional.of("a loopback address");
    }
    int b0 = a[0] & 0xff;
    int b1 = a[1] & 0xff;
    // fd00:ec2::254, the IPv6 metadata address (inside fc00::/7, named for a clearer message).
    if (b0 == 0xfd
        && b1 == 0x00
        && (a[2] & 0xff) == 0x0e
        && (a[3] & 0xff) == 0xc2
        && isZero(a, 4, 14)
        && (a[14] & 0xff) == 0x02
        && (a[15] & 0xff) == 0x54) {
      return Optional.of("the cloud metadata address");
    }
    if ((b0 & 0xfe) == 0xfc) {
      return Optional.of("a unique-local (private) address");
    }
    if (b0 == 0xfe && (b1 & 0xc0) == 0x80) {
      return Optional.of("a link-local address");
    }
    if (b0 == 0xfe && (b1 & 0xc0) == 0xc0) {
      return Optional.of("a site-local (private) address");
    }
    if (b0 == 0xff) {
      return Optional.of("a multicast address");
    }
    // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible): the IPv4 address decides.
    if (isZero(a, 0, 10)
        && ((a[10] & 0xff) == 0xff && (a[11] & 0xff) == 0xff || isZero(a, 10, 12))) {
      return embedded(a, 12);
    }
    // 64:ff9b::/96 (NAT64) and 64:ff9b:1::/48 (local-use NAT64).
    if (b0 == 0x00 && b1 == 0x64 && (a[2] & 0xff) == 0xff && (a[3] & 0xff) == 0x9b) {
      return embedded(a, 12);
    }
    // 2002::/16 (6to4) carries an IPv4 address in bytes 2 to 5.
    if (b0 == 0x20 && b1 == 0x02) {
      return embedded(a, 2);
    }
    // 2001::/32 (Teredo) hides the client's IPv4 address; 2001:db8::/32 is documentation.
    if (b0 == 0x20 && b1 == 0x01 && a[2] == 0 && a[3] == 0) {
      return Optional.of("a Teredo tunnel address");
    }
    if (b0 == 0x20 && b1 == 0x01 && (a[2] & 0xff) == 0x0d && (a[3] & 0xff) == 0xb8) {
      return Optional.of("a reserved (documentation) address");
    }
    // 100::/64, the discard prefix.
    if (b0 == 0x01 && b1 == 0x00 && isZero(a, 2, 8)) {
      return Optional.of("a reserved (discard) address");
    }
    return Optional.empty();
  }

  private static Optional<String> embedded(byte[] a, int from) {
    byte[] v4 = {a[from], a[from + 1], a[from + 2], a[from + 3]};
    return refusalV4(v4).map(reason -> "an IPv6 form of " + reason);
  }

  private static boolean isZero(byte[] a, int from, int to) {
    for (int i = from; i < to; i++) {
      if (a[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private TargetPolicy() {}
}
