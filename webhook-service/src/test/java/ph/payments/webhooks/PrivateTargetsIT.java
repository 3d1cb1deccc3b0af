package ph.payments.webhooks;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.ids.IdType;
import ph.payments.webhooks.support.Events;
import ph.payments.webhooks.support.RebindingResolver;
import ph.payments.webhooks.support.Receiver;
import ph.payments.webhooks.support.WebhookServiceTest;
import ph.payments.webhooks.targets.TargetRefusedException;

/**
 * A local development deployment: {@code WEBHOOK_ALLOW_PRIVATE_TARGETS=true} (bin/run sets it). A
 * merchant's receiver on localhost works in test mode, but its reply is not stored; link-local and
 * metadata addresses stay refused, at creation and at delivery.
 */
@MicronautTest(transactional = false)
class PrivateTargetsIT extends WebhookServiceTest {

  /** Numeric spellings like 127.1 are not host names to java.net.URI: refused as malformed. */
  private static final String MALFORMED =
      "must be an absolute http or https URI of at most 2048 characters";

  private static final String CREATION_REFUSAL =
      "must not reach a link-local, metadata, multicast or reserved address";

  @Inject RebindingResolver resolver;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of(
        "spec.name", "PrivateTargetsIT",
        "webhooks.allow-private-targets", "true",
        "webhooks.retry-schedule", "400d,400d,400d,400d,400d,400d",
        "webhooks.timeout", "1s",
        "webhooks.delivery.poll-interval", "250ms");
  }

  @AfterEach
  void publicAgain() {
    resolver.resolveTo(RebindingResolver.PUBLIC_ADDRESS);
  }

  @Test
  void aTestModeReceiverOnALocalPortIsDeliveredToButItsReplyIsNotKept() {
    try (Receiver receiver = Receiver.answering(200)) {
      String merchant = merchant();
      createEndpoint(merchant, "test", receiver.url());
      events().send(merchant, Events.payment("payment.succeeded", "test"));
      await().atMost(Duration.ofSeconds(15)).until(() -> receiver.count() == 1);
      JsonNode attempt = awaitAttemptsOfFirstDelivery(merchant, "test", 1).get("data").get(0);
      assertEquals(200, attempt.get("status_code").asInt(), attempt.toString());
      assertTrue(attempt.get("response_snippet").isNull(), "the receiver's body is not stored");
      assertEquals(0, storedSnippets(merchant));
    }
  }

  @Test
  void metadataAndLinkLocalAddressesStayRefusedAtCreation() {
    for (String environment : List.of("test", "live")) {
      for (String url :
          List.of(
              "http://169.254.169.254/latest/meta-data/",
              "http://2852039166/latest/meta-data/",
              "http://[::ffff:169.254.169.254]/latest/meta-data/",
              "http://[fd00:ec2::254]/latest/meta-data/",
              "http://100.100.100.200/latest/meta-data/",
              "http://169.254.170.2/v2/credentials",
              "http://[fe80::1]/",
              "http://0:8080/",
              "http://224.0.0.1/")) {
        CommandReply refused =
            command(
                WebhookCommands.ENDPOINT_CREATE,
                merchant(),
                environment,
                IdType.WEBHOOK_ENDPOINT.generate(),
                endpointBody(url));
        assertEquals(400, refused.status(), environment + " " + url);
        String issue = refused.body().at("/error/issues/url").asText();
        assertTrue(
            issue.equals(CREATION_REFUSAL) || issue.equals(MALFORMED), url + ": " + refused.body());
      }
    }
  }

  @Test
  void aNameReboundToTheMetadataAddressAndAWebhookUrlThereAreRefusedAtDelivery() {
    String merchant = merchant();
    createEndpoint(merchant, "test", "http://" + RebindingResolver.HOST + "/hooks");
    resolver.resolveTo("169.254.169.254");
    events().send(merchant, Events.payment("payment.succeeded", "test"));
    JsonNode attempt = awaitAttemptsOfFirstDelivery(merchant, "test", 1).get("data").get(0);
    assertTrue(attempt.get("status_code").isNull(), attempt.toString());
    assertEquals(TargetRefusedException.UNIFORM_ERROR, attempt.get("error").asText());

    String other = merchant();
    events()
        .send(
            other,
            Events.payment("payment.succeeded", "test"),
            "http://[::ffff:169.254.169.254]/latest/meta-data/iam/security-credentials/");
    JsonNode override = awaitAttemptsOfFirstDelivery(other, "test", 1).get("data").get(0);
    assertTrue(override.get("status_code").isNull(), override.toString());
    assertEquals(TargetRefusedException.UNIFORM_ERROR, override.get("error").asText());
  }
}
