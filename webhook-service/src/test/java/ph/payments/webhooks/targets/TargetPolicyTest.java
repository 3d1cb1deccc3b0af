package ph.payments.webhooks.targets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TargetPolicyTest {

  @ParameterizedTest(name = "{0} is refused: {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "127.0.0.1         | loopback",
        "127.255.0.9       | loopback",
        "10.1.2.3          | private",
        "172.16.0.1        | private",
        "172.31.255.255    | private",
        "192.168.1.10      | private",
        "169.254.169.254   | metadata",
        "169.254.10.1      | link-local",
        "100.64.0.1        | carrier-grade",
        "100.100.100.200   | carrier-grade",
        "0.0.0.0           | unspecified",
        "224.0.0.1         | multicast",
        "255.255.255.255   | reserved",
        "192.0.2.5         | reserved",
        "198.18.0.1        | reserved",
        "::1               | loopback",
        "::                | unspecified",
        "fe80::1           | link-local",
        "fc00::1           | unique-local",
        "fd12:3456::1      | unique-local",
        "fd00:ec2::254     | metadata",
        "fec0::1           | site-local",
        "ff02::1           | multicast",
        "::ffff:127.0.0.1  | loopback",
        "::ffff:10.0.0.1   | private",
        "::10.0.0.1        | private",
        "64:ff9b::a9fe:a9fe | metadata",
        "2002:c0a8:0101::1 | private",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2 | Teredo",
        "2001:db8::1       | documentation",
      })
  void nonPublicAddressesAreRefused(String address, String why) throws UnknownHostException {
    String reason = TargetPolicy.refusal(InetAddress.getByName(address)).orElseThrow();
    assertTrue(reason.contains(why), reason);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "93.184.216.34",
        "8.8.8.8",
        "1.1.1.1",
        "172.15.255.255",
        "172.32.0.1",
        "100.63.255.255",
        "100.128.0.1",
        "169.253.1.1",
        "2606:4700:4700::1111",
        "2a00:1450:4001:82b::200e",
        "64:ff9b::808:808",
      })
  void publicAddressesAreAllowed(String address) throws UnknownHostException {
    assertEquals(
        java.util.Optional.empty(), TargetPolicy.refusal(InetAddress.getByName(address)), address);
  }

  @Test
  void aNameIsAllowedOnlyWhenEveryAddressIsPublic() throws UnknownHostException {
    InetAddress publicOne = InetAddress.getByName("93.184.216.34");
    InetAddress internal = InetAddress.getByName("10.0.0.7");
    TargetPolicy.Resolver mixed = host -> new InetAddress[] {publicOne, internal};
    TargetRefusedException refused =
        assertThrows(
            TargetRefusedException.class, () -> TargetPolicy.resolvePublic("shop.example", mixed));
    assertTrue(refused.getMessage().contains("10.0.0.7"), refused.getMessage());

    TargetPolicy.Resolver good = host -> new InetAddress[] {publicOne};
    assertArrayEquals(
        new InetAddress[] {publicOne}, TargetPolicy.resolvePublic("shop.example", good));
  }

  @Test
  void theGuardedResolverHandsTheClientOnlyCheckedAddresses() throws UnknownHostException {
    InetAddress publicOne = InetAddress.getByName("93.184.216.34");
    GuardedDnsResolver resolver = new GuardedDnsResolver(host -> new InetAddress[] {publicOne});
    assertEquals(publicOne, resolver.resolve("shop.example", 443).get(0).getAddress());
    assertEquals(443, resolver.resolve("shop.example", 443).get(0).getPort());

    GuardedDnsResolver rebinding =
        new GuardedDnsResolver(host -> new InetAddress[] {InetAddress.getByName("127.0.0.1")});
    assertThrows(TargetRefusedException.class, () -> rebinding.resolve("shop.example", 443));
    assertThrows(TargetRefusedException.class, () -> rebinding.resolve("shop.example"));
  }
}
