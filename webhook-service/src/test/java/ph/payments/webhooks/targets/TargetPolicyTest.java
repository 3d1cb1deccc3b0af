package ph.payments.webhooks.targets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import ph.payments.webhooks.targets.TargetPolicy.Reach;

class TargetPolicyTest {

  /**
   * Every address with its class, and what that means: PUBLIC is a target with the flag off and on,
   * PRIVATE only with {@code WEBHOOK_ALLOW_PRIVATE_TARGETS=true}, NEVER in neither case.
   */
  @ParameterizedTest(name = "{0} is {1} ({2})")
  @CsvSource(
      delimiter = '|',
      value = {
        // Public unicast.
        "93.184.216.34         | PUBLIC  | public",
        "8.8.8.8               | PUBLIC  | public",
        "1.1.1.1               | PUBLIC  | public",
        "172.15.255.255        | PUBLIC  | public",
        "172.32.0.1            | PUBLIC  | public",
        "100.63.255.255        | PUBLIC  | public",
        "100.128.0.1           | PUBLIC  | public",
        "169.253.1.1           | PUBLIC  | public",
        "169.255.0.1           | PUBLIC  | public",
        "192.0.1.1             | PUBLIC  | public",
        "223.255.255.255       | PUBLIC  | public",
        "2606:4700:4700::1111  | PUBLIC  | public",
        "2a00:1450:4001:82b::200e | PUBLIC | public",
        "64:ff9b::808:808      | PUBLIC  | public",
        "2002:0808:0808::1     | PUBLIC  | public",
        // Where a local receiver lives: only with the flag.
        "127.0.0.1             | PRIVATE | loopback",
        "127.255.0.9           | PRIVATE | loopback",
        "10.1.2.3              | PRIVATE | private",
        "172.16.0.1            | PRIVATE | private",
        "172.31.255.255        | PRIVATE | private",
        "192.168.1.10          | PRIVATE | private",
        "100.64.0.1            | PRIVATE | carrier-grade",
        "100.100.100.199       | PRIVATE | carrier-grade",
        "192.0.2.5             | PRIVATE | documentation",
        "198.18.0.1            | PRIVATE | benchmarking",
        "::1                   | PRIVATE | loopback",
        "fc00::1               | PRIVATE | unique-local",
        "fd12:3456::1          | PRIVATE | unique-local",
        "fec0::1               | PRIVATE | site-local",
        "::ffff:127.0.0.1      | PRIVATE | loopback",
        "::ffff:10.0.0.1       | PRIVATE | private",
        "::10.0.0.1            | PRIVATE | private",
        "::ffff:0:10.0.0.1     | PRIVATE | IPv6 form of a private",
        "64:ff9b::7f00:1       | PRIVATE | IPv6 form of a loopback",
        "2002:c0a8:0101::1     | PRIVATE | IPv6 form of a private",
        "2001:db8::1           | PRIVATE | documentation",
        // Never, whatever the flag: link-local and metadata, this-network, multicast, broadcast.
        "169.254.169.254       | NEVER   | metadata",
        "169.254.170.2         | NEVER   | link-local",
        "169.254.0.1           | NEVER   | link-local",
        "169.254.255.255       | NEVER   | link-local",
        "100.100.100.200       | NEVER   | metadata",
        "192.0.0.192           | NEVER   | metadata",
        "0.0.0.0               | NEVER   | this network",
        "0.1.2.3               | NEVER   | this network",
        "224.0.0.1             | NEVER   | multicast",
        "239.255.255.250       | NEVER   | multicast",
        "240.0.0.1             | NEVER   | reserved",
        "255.255.255.255       | NEVER   | broadcast",
        "::                    | NEVER   | unspecified",
        "fe80::1               | NEVER   | link-local",
        "febf:ffff::1          | NEVER   | link-local",
        "fd00:ec2::254         | NEVER   | metadata",
        "ff02::1               | NEVER   | multicast",
        "::2                   | NEVER   | this network",
        "100::1                | NEVER   | discard",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2 | NEVER | Teredo",
        // IPv6 forms of the metadata and link-local addresses.
        "::ffff:169.254.169.254 | NEVER  | metadata",
        "::ffff:a9fe:a9fe      | NEVER   | metadata",
        "::169.254.169.254     | NEVER   | metadata",
        "::ffff:0:169.254.169.254 | NEVER | metadata",
        "64:ff9b::a9fe:a9fe    | NEVER   | metadata",
        "64:ff9b:1::a9fe:a9fe  | NEVER   | metadata",
        "2002:a9fe:a9fe::1     | NEVER   | metadata",
        "::ffff:100.100.100.200 | NEVER  | metadata",
        "::ffff:0.0.0.0        | NEVER   | this network",
        "::ffff:224.0.0.1      | NEVER   | multicast",
        "::ffff:255.255.255.255 | NEVER  | broadcast",
      })
  void everyAddressHasItsClass(String address, Reach reach, String why)
      throws UnknownHostException {
    TargetPolicy.Classification classification =
        TargetPolicy.classify(InetAddress.getByName(address));
    assertEquals(reach, classification.reach(), address + ": " + classification.reason());
    assertTrue(classification.reason().contains(why), classification.reason());
    assertEquals(reach == Reach.PUBLIC, classification.allowed(false), "flag off: " + address);
    assertEquals(reach != Reach.NEVER, classification.allowed(true), "flag on: " + address);
  }

  /**
   * Spellings an attacker tries for loopback, "this network" and the metadata address, resolved by
   * the system resolver as deliveries resolve them: whatever address a spelling becomes (or none),
   * no non-public address is handed out with the flag off, and no metadata, link-local or 0.0.0.0
   * address with it on.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "127.0.0.1",
        "127.1",
        "2130706433",
        "0x7f000001",
        "0x7f.0.0.1",
        "0177.0.0.1",
        "017700000001",
        "localhost",
        "0",
        "0.0.0.0",
        "[::]",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "[::ffff:7f00:1]",
        "169.254.169.254",
        "2852039166",
        "0xa9fea9fe",
        "0251.0376.0251.0376",
        "169.254.43518",
        "[::ffff:169.254.169.254]",
        "[::ffff:a9fe:a9fe]",
        "[0:0:0:0:0:ffff:169.254.169.254]",
        "[fd00:ec2::254]",
        "[fe80::1]",
      })
  void noSpellingOfAnInternalAddressGetsThrough(String host) {
    for (boolean allowPrivate : new boolean[] {false, true}) {
      InetAddress[] handedOut;
      try {
        handedOut = TargetPolicy.resolveAllowed(host, TargetPolicy.Resolver.SYSTEM, allowPrivate);
      } catch (UnknownHostException refusedOrUnresolved) {
        continue; // refused, or not an address at all: no connection either way
      }
      for (InetAddress address : handedOut) {
        Reach reach = TargetPolicy.classify(address).reach();
        assertTrue(
            reach == Reach.PUBLIC || (allowPrivate && reach == Reach.PRIVATE),
            host + " handed out " + address + " with the flag " + (allowPrivate ? "on" : "off"));
      }
    }
  }

  @Test
  void theSpellingsJavaReadsAsAddressesAreJudgedByTheAddress() {
    // These the JDK parses itself (no DNS), so the outcome is certain.
    for (String host :
        new String[] {"127.0.0.1", "127.1", "2130706433", "[::1]", "[::ffff:127.0.0.1]"}) {
      assertThrows(
          TargetRefusedException.class,
          () -> TargetPolicy.resolveAllowed(host, TargetPolicy.Resolver.SYSTEM, false),
          host);
    }
    for (String host :
        new String[] {
          "0",
          "0.0.0.0",
          "[::]",
          "169.254.169.254",
          "2852039166",
          "169.254.43518",
          "[::ffff:169.254.169.254]",
          "[fd00:ec2::254]"
        }) {
      assertThrows(
          TargetRefusedException.class,
          () -> TargetPolicy.resolveAllowed(host, TargetPolicy.Resolver.SYSTEM, true),
          host);
    }
  }

  @Test
  void aNameIsAllowedOnlyWhenEveryAddressIs() throws UnknownHostException {
    InetAddress publicOne = InetAddress.getByName("93.184.216.34");
    InetAddress internal = InetAddress.getByName("10.0.0.7");
    InetAddress metadata = InetAddress.getByName("169.254.169.254");
    TargetPolicy.Resolver mixed = host -> new InetAddress[] {publicOne, internal};
    TargetRefusedException refused =
        assertThrows(
            TargetRefusedException.class,
            () -> TargetPolicy.resolveAllowed("shop.example", mixed, false));
    assertTrue(refused.getMessage().contains("10.0.0.7"), "the log's detail");
    assertEquals(2, TargetPolicy.resolveAllowed("shop.example", mixed, true).length);

    TargetPolicy.Resolver withMetadata = host -> new InetAddress[] {internal, metadata};
    assertThrows(
        TargetRefusedException.class,
        () -> TargetPolicy.resolveAllowed("shop.example", withMetadata, true));

    TargetPolicy.Resolver good = host -> new InetAddress[] {publicOne};
    assertArrayEquals(
        new InetAddress[] {publicOne}, TargetPolicy.resolveAllowed("shop.example", good, false));
  }

  @Test
  void theGuardedResolverHandsTheClientOnlyCheckedAddresses() throws UnknownHostException {
    InetAddress publicOne = InetAddress.getByName("93.184.216.34");
    GuardedDnsResolver resolver =
        new GuardedDnsResolver(host -> new InetAddress[] {publicOne}, false);
    assertEquals(publicOne, resolver.resolve("shop.example", 443).get(0).getAddress());
    assertEquals(443, resolver.resolve("shop.example", 443).get(0).getPort());

    TargetPolicy.Resolver toLoopback =
        host -> new InetAddress[] {InetAddress.getByName("127.0.0.1")};
    GuardedDnsResolver rebinding = new GuardedDnsResolver(toLoopback, false);
    assertThrows(TargetRefusedException.class, () -> rebinding.resolve("shop.example", 443));
    assertThrows(TargetRefusedException.class, () -> rebinding.resolve("shop.example"));
    assertFalse(new GuardedDnsResolver(toLoopback, true).resolve("shop.example", 80).isEmpty());

    GuardedDnsResolver toMetadata =
        new GuardedDnsResolver(
            host -> new InetAddress[] {InetAddress.getByName("169.254.169.254")}, true);
    assertThrows(TargetRefusedException.class, () -> toMetadata.resolve("shop.example", 80));
  }
}
