package ph.payments.webhooks.targets;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Which addresses a webhook may be sent to, in both environments alike (issue 14, item 1: test keys
 * are issued on signup, so test mode is reachable by anyone and must be guarded like live mode).
 * Every address falls in one of three {@link Reach classes}:
 *
 * <ul>
 *   <li>{@link Reach#PUBLIC public} unicast addresses are always targets;
 *   <li>{@link Reach#PRIVATE private} ones (loopback, RFC 1918, shared/CGNAT, unique-local and
 *       site-local IPv6, documentation and benchmarking ranges) only where the operator set {@code
 *       WEBHOOK_ALLOW_PRIVATE_TARGETS=true} (local development, where a merchant's receiver runs on
 *       {@code localhost});
 *   <li>{@link Reach#NEVER never}: link-local (169.254/16, fe80::/10, where clouds serve instance
 *       metadata and credentials), the metadata addresses elsewhere (fd00:ec2::254,
 *       100.100.100.200, 192.0.0.0/24 with Oracle's 192.0.0.192), "this network" 0.0.0.0/8 and ::
 *       (connecting to 0.0.0.0 reaches the local host), multicast, broadcast and the reserved
 *       240/4, Teredo (which hides the IPv4 address it reaches) and the discard prefix.
 * </ul>
 *
 * IPv6 forms that embed an IPv4 address (mapped ::ffff:a.b.c.d, translated ::ffff:0:a.b.c.d,
 * compatible ::a.b.c.d, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16) are classified as
 * the IPv4 address they carry. Classification works on the resolved bytes, so decimal, octal, hex
 * or shortened IPv4 literals ({@code 2130706433}, {@code 0177.0.0.1}, {@code 0x7f.1}, {@code
 * 127.1}) are judged as whatever address the resolver makes of them, which is the address the
 * connection then uses.
 *
 * <p>A host name is acceptable only when <em>every</em> address it resolves to is, so DNS cannot
 * mix in an internal address; and the check is repeated at every delivery on the addresses the
 * connection then uses ({@link GuardedDnsResolver}), so a name that changes after the endpoint was
 * created (DNS rebinding) is caught too. Redirects are never followed.
 */
public final class TargetPolicy {

  /** Where an address stands. */
  public enum Reach {
    /** Public unicast: always a target. */
    PUBLIC,
    /** Not public, but where a local receiver lives: a target only with the deployment flag. */
    PRIVATE,
    /** Never a target, whatever the configuration (metadata, link-local, broadcast, …). */
    NEVER
  }

  /**
   * An address's class, with the reason for operators' logs (never shown to merchants).
   *
   * @param reach where the address stands
   * @param reason what it is, e.g. "a loopback address"; "a public address" for public ones
   */
  public record Classification(Reach reach, String reason) {

    /** Whether a delivery may connect to the address. */
    public boolean allowed(boolean allowPrivateTargets) {
      return reach == Reach.PUBLIC || (reach == Reach.PRIVATE && allowPrivateTargets);
    }
  }

  /** Resolves host names; the system resolver in production. */
  @FunctionalInterface
  public interface Resolver {
    InetAddress[] resolve(String host) throws UnknownHostException;

    Resolver SYSTEM = InetAddress::getAllByName;
  }

  private static final Classification PUBLIC = new Classification(Reach.PUBLIC, "a public address");

  /**
   * Resolves {@code host} and returns its addresses when every one is allowed.
   *
   * @param allowPrivateTargets {@code WEBHOOK_ALLOW_PRIVATE_TARGETS}
   * @throws TargetRefusedException when one of them is not
   * @throws UnknownHostException when the name does not resolve
   */
  public static InetAddress[] resolveAllowed(
      String host, Resolver resolver, boolean allowPrivateTargets) throws UnknownHostException {
    if (host == null || host.isEmpty()) {
      throw new UnknownHostException("no host");
    }
    InetAddress[] addresses = resolver.resolve(host);
    for (InetAddress address : addresses) {
      Classification classification = classify(address);
      if (!classification.allowed(allowPrivateTargets)) {
        throw new TargetRefusedException(
            host + " resolves to " + address.getHostAddress() + ", " + classification.reason());
      }
    }
    return addresses;
  }

  /** The class of {@code address}. */
  public static Classification classify(InetAddress address) {
    if (address instanceof Inet4Address) {
      return classifyV4(address.getAddress());
    }
    if (address instanceof Inet6Address) {
      return classifyV6(address.getAddress());
    }
    return never("an address of an unknown family");
  }

  private static Classification classifyV4(byte[] a) {
    int b0 = a[0] & 0xff;
    int b1 = a[1] & 0xff;
    int b2 = a[2] & 0xff;
    int b3 = a[3] & 0xff;
    // First what no configuration allows.
    if (b0 == 169 && b1 == 254) {
      return never(
          b2 == 169 && b3 == 254
              ? "the cloud metadata address"
              : "a link-local address (where clouds serve instance metadata)");
    }
    if (b0 == 100 && b1 == 100 && b2 == 100 && b3 == 200) {
      return never("the cloud metadata address"); // Alibaba Cloud, inside 100.64/10
    }
    if (b0 == 192 && b1 == 0 && b2 == 0) {
      return never("an IETF protocol address (with Oracle Cloud's metadata 192.0.0.192)");
    }
    if (b0 == 0) {
      return never("a \"this network\" address (0.0.0.0 reaches the local host)");
    }
    if (b0 >= 224 && b0 < 240) {
      return never("a multicast address");
    }
    if (b0 >= 240) {
      boolean broadcast = b0 == 255 && b1 == 255 && b2 == 255 && b3 == 255;
      return never(broadcast ? "the broadcast address" : "a reserved address");
    }
    // Then what a local development deployment may allow.
    if (b0 == 127) {
      return privately("a loopback address");
    }
    if (b0 == 10 || (b0 == 172 && b1 >= 16 && b1 <= 31) || (b0 == 192 && b1 == 168)) {
      return privately("a private address");
    }
    if (b0 == 100 && b1 >= 64 && b1 <= 127) {
      return privately("a shared (carrier-grade NAT) address");
    }
    if ((b0 == 192 && b1 == 0 && b2 == 2)
        || (b0 == 198 && (b1 == 18 || b1 == 19))
        || (b0 == 198 && b1 == 51 && b2 == 100)
        || (b0 == 203 && b1 == 0 && b2 == 113)) {
      return privately("a reserved (documentation or benchmarking) address");
    }
    return PUBLIC;
  }

  private static Classification classifyV6(byte[] a) {
    if (isZero(a, 0, 16)) {
      return never("an unspecified address");
    }
    if (isZero(a, 0, 15) && a[15] == 1) {
      return privately("a loopback address");
    }
    int b0 = a[0] & 0xff;
    int b1 = a[1] & 0xff;
    // fd00:ec2::254, the IPv6 metadata address of AWS (inside the unique-local fc00::/7).
    if (b0 == 0xfd
        && b1 == 0x00
        && (a[2] & 0xff) == 0x0e
        && (a[3] & 0xff) == 0xc2
        && isZero(a, 4, 14)
        && (a[14] & 0xff) == 0x02
        && (a[15] & 0xff) == 0x54) {
      return never("the cloud metadata address");
    }
    if (b0 == 0xfe && (b1 & 0xc0) == 0x80) {
      return never("a link-local address");
    }
    if (b0 == 0xff) {
      return never("a multicast address");
    }
    if ((b0 & 0xfe) == 0xfc) {
      return privately("a unique-local (private) address");
    }
    if (b0 == 0xfe && (b1 & 0xc0) == 0xc0) {
      return privately("a site-local (private) address");
    }
    // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), ::ffff:0:a.b.c.d (translated).
    if (isZero(a, 0, 10) && ((a[10] & 0xff) == 0xff && (a[11] & 0xff) == 0xff || isZero(a, 10, 12))
        || isZero(a, 0, 8) && (a[8] & 0xff) == 0xff && (a[9] & 0xff) == 0xff && isZero(a, 10, 12)) {
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
    // 2001::/32 (Teredo) hides the IPv4 address it reaches; 2001:db8::/32 is documentation.
    if (b0 == 0x20 && b1 == 0x01 && a[2] == 0 && a[3] == 0) {
      return never("a Teredo tunnel address");
    }
    if (b0 == 0x20 && b1 == 0x01 && (a[2] & 0xff) == 0x0d && (a[3] & 0xff) == 0xb8) {
      return privately("a reserved (documentation) address");
    }
    // 100::/64, the discard prefix.
    if (b0 == 0x01 && b1 == 0x00 && isZero(a, 2, 8)) {
      return never("a reserved (discard) address");
    }
    return PUBLIC;
  }

  private static Classification embedded(byte[] a, int from) {
    byte[] v4 = {a[from], a[from + 1], a[from + 2], a[from + 3]};
    Classification inner = classifyV4(v4);
    return inner.reach() == Reach.PUBLIC
        ? PUBLIC
        : new Classification(inner.reach(), "an IPv6 form of " + inner.reason());
  }

  private static Classification never(String reason) {
    return new Classification(Reach.NEVER, reason);
  }

  private static Classification privately(String reason) {
    return new Classification(Reach.PRIVATE, reason);
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
