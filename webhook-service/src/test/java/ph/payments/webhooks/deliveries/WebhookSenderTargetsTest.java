package ph.payments.webhooks.deliveries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.hc.core5.http.impl.BasicEndpointDetails;
import org.junit.jupiter.api.Test;
import ph.payments.webhooks.support.Receiver;
import ph.payments.webhooks.targets.TargetPolicy;
import ph.payments.webhooks.targets.TargetRefusedException;

/**
 * The sender against a real loopback receiver, the way an attacker with a test key would aim it:
 * with {@code WEBHOOK_ALLOW_PRIVATE_TARGETS} off no spelling of an internal address reaches it and
 * every refusal reads the same; with it on the receiver is reached but its reply is not kept, and
 * 0.0.0.0 and the metadata address stay refused.
 */
class WebhookSenderTargetsTest {

  private static final byte[] BODY = "{}".getBytes(StandardCharsets.UTF_8);

  @Test
  void withTheFlagOffNoSpellingOfLoopbackIsConnectedToAndEveryRefusalReadsTheSame()
      throws Exception {
    try (Receiver receiver = answering();
        WebhookSender sender = sender(false)) {
      int open = receiver.port();
      int closed = closedPort();
      for (String url :
          List.of(
              "http://127.0.0.1:" + open + "/hooks",
              "http://127.0.0.1:" + closed + "/hooks",
              "http://127.1:" + open + "/",
              "http://2130706433:" + open + "/",
              "http://0:" + open + "/",
              "http://0.0.0.0:" + open + "/",
              "http://localhost:" + open + "/",
              "http://[::ffff:127.0.0.1]:" + open + "/",
              "http://[::ffff:7f00:1]:" + open + "/",
              "https://127.0.0.1:" + open + "/",
              "http://10.255.255.1:" + open + "/",
              "http://169.254.169.254/latest/meta-data/",
              "http://[fd00:ec2::254]/latest/meta-data/")) {
        AttemptOutcome outcome = sender.send(request(url));
        assertEquals(TargetRefusedException.UNIFORM_ERROR, outcome.error(), url);
        assertNull(outcome.statusCode(), url);
        assertNull(outcome.responseSnippet(), url);
      }
      assertEquals(0, receiver.count(), "no connection reached the receiver");
    }
  }

  @Test
  void withTheFlagOnALocalReceiverIsReachedButItsReplyIsNotKept() throws Exception {
    try (Receiver receiver = answering();
        WebhookSender sender = sender(true)) {
      AttemptOutcome delivered = sender.send(request(receiver.url()));
      assertEquals(200, delivered.statusCode());
      assertNull(delivered.responseSnippet(), "a reply from a loopback address is never stored");
      assertEquals(1, receiver.count());

      for (String url :
          List.of(
              "http://0:" + receiver.port() + "/",
              "http://0.0.0.0:" + receiver.port() + "/",
              "http://169.254.169.254/latest/meta-data/",
              "http://2852039166/latest/meta-data/",
              "http://[::ffff:169.254.169.254]/latest/meta-data/",
              "http://[::ffff:a9fe:a9fe]/",
              "http://[fd00:ec2::254]/latest/meta-data/",
              "http://[fe80::1]/",
              "http://100.100.100.200/latest/meta-data/",
              "http://224.0.0.1/",
              "http://255.255.255.255/")) {
        AttemptOutcome outcome = sender.send(request(url));
        assertEquals(TargetRefusedException.UNIFORM_ERROR, outcome.error(), url);
        assertNull(outcome.statusCode(), url);
      }
      assertEquals(1, receiver.count(), "0.0.0.0 (which reaches this host) was not connected to");
    }
  }

  @Test
  void aNameThatResolvesToTheMetadataAddressIsRefusedEvenWithTheFlagOn() throws Exception {
    TargetPolicy.Resolver metadata =
        host -> new java.net.InetAddress[] {java.net.InetAddress.getByName("169.254.169.254")};
    try (WebhookSender sender = new WebhookSender(Duration.ofSeconds(1), 4, metadata, true)) {
      AttemptOutcome outcome = sender.send(request("http://metadata.google.internal/"));
      assertEquals(TargetRefusedException.UNIFORM_ERROR, outcome.error());
    }
  }

  @Test
  void onlyRepliesFromAPublicAddressAreKept() {
    assertTrue(WebhookSender.keepsSnippetFrom(endpoint("93.184.216.34")));
    assertTrue(WebhookSender.keepsSnippetFrom(endpoint("2606:4700:4700::1111")));
    assertFalse(WebhookSender.keepsSnippetFrom(endpoint("127.0.0.1")));
    assertFalse(WebhookSender.keepsSnippetFrom(endpoint("10.0.0.5")));
    assertFalse(WebhookSender.keepsSnippetFrom(endpoint("::1")));
    assertFalse(WebhookSender.keepsSnippetFrom(endpoint("::ffff:192.168.0.1")));
    assertFalse(WebhookSender.keepsSnippetFrom(null), "unknown counts as not public");
    assertFalse(
        WebhookSender.keepsSnippetFrom(
            new BasicEndpointDetails(
                InetSocketAddress.createUnresolved("shop.example", 443), null, null, null)));
  }

  private static BasicEndpointDetails endpoint(String address) {
    try {
      return new BasicEndpointDetails(
          new InetSocketAddress(java.net.InetAddress.getByName(address), 443), null, null, null);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Receiver answering() {
    return Receiver.start(
        (i, r) -> new Receiver.Response(200, "{\"internal\":\"secret\"}", Duration.ZERO, Map.of()));
  }

  private static WebhookSender sender(boolean allowPrivateTargets) {
    return new WebhookSender(
        Duration.ofSeconds(2), 4, TargetPolicy.Resolver.SYSTEM, allowPrivateTargets);
  }

  private static WebhookSender.Request request(String url) {
    return new WebhookSender.Request(url, BODY, "payment.succeeded", 1, "t=1,v1=00");
  }

  private static int closedPort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
