package ph.payments.webhooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.webhooks.support.Events;
import ph.payments.webhooks.support.RebindingResolver;
import ph.payments.webhooks.support.Receiver;
import ph.payments.webhooks.support.WebhookServiceTest;
import ph.payments.webhooks.targets.TargetRefusedException;

/**
 * A deployment as in production: {@code WEBHOOK_ALLOW_PRIVATE_TARGETS} off. Test mode, which anyone
 * reaches with the test key issued on signup, is guarded exactly like live mode (issue 14, item 1):
 * a private target is refused when the endpoint is created or changed, and at delivery (a name
 * rebound to loopback, a payment's {@code webhook_url}) no connection is made, no reply is stored
 * and the attempt log reads the same whether the port is open or closed.
 */
@MicronautTest(transactional = false)
class TargetSafetyIT extends WebhookServiceTest {

  /** Numeric spellings like 127.1 are not host names to java.net.URI: refused as malformed. */
  private static final String MALFORMED =
      "must be an absolute http or https URI of at most 2048 characters";

  private static final String CREATION_REFUSAL =
      "must reach a public address (private and loopback addresses are refused)";

  @Inject RebindingResolver resolver;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of(
        "spec.name", "TargetSafetyIT",
        "webhooks.allow-private-targets", "false",
        "webhooks.retry-schedule", "400d,400d,400d,400d,400d,400d",
        "webhooks.timeout", "1s",
        "webhooks.delivery.poll-interval", "250ms");
  }

  @AfterEach
  void publicAgain() {
    resolver.resolveTo(RebindingResolver.PUBLIC_ADDRESS);
  }

  @Test
  void bothModesRefusePrivateTargetsAtCreationAndUpdateWithOneMessage() {
    try (Receiver receiver = Receiver.answering(200)) {
      for (String environment : List.of("test", "live")) {
        String merchant = merchant();
        for (String url :
            List.of(
                receiver.url(),
                "http://localhost:" + receiver.port() + "/x",
                "http://127.1:" + receiver.port() + "/x",
                "http://2130706433:" + receiver.port() + "/x",
                "http://0:" + receiver.port() + "/x",
                "http://[::ffff:127.0.0.1]:" + receiver.port() + "/x",
                "http://10.0.0.5:5432/",
                "http://169.254.169.254/latest/meta-data/",
                "http://[::ffff:169.254.169.254]/latest/meta-data/",
                "http://[fd00:ec2::254]/")) {
          CommandReply refused =
              command(
                  WebhookCommands.ENDPOINT_CREATE,
                  merchant,
                  environment,
                  IdType.WEBHOOK_ENDPOINT.generate(),
                  endpointBody(url));
          assertEquals(400, refused.status(), environment + " " + url);
          String issue = refused.body().at("/error/issues/url").asText();
          assertTrue(
              issue.equals(CREATION_REFUSAL) || issue.equals(MALFORMED),
              environment + " " + url + ": " + refused.body());
        }
        CommandReply unresolvable =
            command(
                WebhookCommands.ENDPOINT_CREATE,
                merchant,
                environment,
                IdType.WEBHOOK_ENDPOINT.generate(),
                endpointBody("http://does-not-resolve.invalid/hooks"));
        assertEquals(400, unresolvable.status());

        String endpoint =
            createEndpoint(merchant, environment, "https://" + RebindingResolver.HOST + "/hooks")
                .get("id")
                .asText();
        CommandReply update =
            command(
                WebhookCommands.ENDPOINT_UPDATE,
                merchant,
                environment,
                endpoint,
                Json.mapper().valueToTree(Map.of("url", receiver.url())));
        assertEquals(400, update.status(), update.body().toString());
        assertEquals(CREATION_REFUSAL, update.body().at("/error/issues/url").asText());
      }
      assertEquals(0, receiver.count());
    }
  }

  @Test
  void aDeliveryToALocalPortIsRefusedBeforeAnyConnectionInBothModes() throws Exception {
    try (Receiver receiver = Receiver.answering(200)) {
      int closed = closedPort();
      for (String environment : List.of("test", "live")) {
        // Registered while the name was public; now it points at loopback (DNS rebinding). One
        // endpoint on the receiver's open port, one on a closed port: the log cannot tell them
        // apart.
        String merchant = merchant();
        createEndpoint(
            merchant, environment, "http://" + RebindingResolver.HOST + ":" + receiver.port());
        String other = merchant();
        createEndpoint(other, environment, "http://" + RebindingResolver.HOST + ":" + closed);
        resolver.resolveTo("127.0.0.1");
        events().send(merchant, Events.payment("payment.succeeded", environment));
        events().send(other, Events.payment("payment.succeeded", environment));

        JsonNode open = awaitAttemptsOfFirstDelivery(merchant, environment, 1).get("data").get(0);
        JsonNode shut = awaitAttemptsOfFirstDelivery(other, environment, 1).get("data").get(0);
        for (JsonNode attempt : List.of(open, shut)) {
          assertTrue(attempt.get("status_code").isNull(), attempt.toString());
          assertEquals(TargetRefusedException.UNIFORM_ERROR, attempt.get("error").asText());
          assertTrue(attempt.get("response_snippet").isNull(), attempt.toString());
        }
        JsonNode delivery =
            get(
                    "/internal/webhook_deliveries/" + open.get("delivery").asText(),
                    merchant,
                    environment)
                .json();
        assertEquals(TargetRefusedException.UNIFORM_ERROR, delivery.get("last_error").asText());
        assertEquals(0, storedSnippets(merchant));
        resolver.resolveTo(RebindingResolver.PUBLIC_ADDRESS);
      }
      assertEquals(0, receiver.count(), "no connection was made");
    }
  }

  @Test
  void aTestPaymentsWebhookUrlOnALocalPortIsRefusedToo() {
    // A payment's webhook_url is not registered beforehand: only the delivery can refuse it.
    try (Receiver receiver = Receiver.answering(200)) {
      String merchant = merchant();
      events()
          .send(
              merchant,
              Events.payment("payment.succeeded", "test"),
              "http://127.0.0.1:" + receiver.port() + "/hooks");
      JsonNode attempt = awaitAttemptsOfFirstDelivery(merchant, "test", 1).get("data").get(0);
      assertTrue(attempt.get("status_code").isNull(), attempt.toString());
      assertEquals(TargetRefusedException.UNIFORM_ERROR, attempt.get("error").asText());
      assertTrue(attempt.get("response_snippet").isNull());
      assertEquals(0, storedSnippets(merchant));
      assertEquals(0, receiver.count(), "no connection was made");
    }
  }

  private static int closedPort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
