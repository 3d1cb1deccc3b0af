package ph.payments.webhooks.endpoints;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.sealing.ReplySealer;
import ph.payments.webhooks.WebhookCommands;
import ph.payments.webhooks.support.WebhookServiceTest;

/**
 * The signing secret of a creation or rotation leaves webhook-service only sealed for the gateway:
 * the reply and its outbox row hold the sealed form, which opens for that command alone.
 */
@MicronautTest(transactional = false)
class SealedSecretRepliesIT extends WebhookServiceTest {

  /** The endpoint's public-looking host resolves through the test resolver (no DNS needed). */
  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("spec.name", "SealedSecretRepliesIT");
  }

  @Test
  void creationAndRotationRepliesCarryTheSecretSealedAndTheOutboxNeverInClear() {
    String merchant = merchant();
    CommandReply created =
        command(
            WebhookCommands.ENDPOINT_CREATE,
            merchant,
            "test",
            IdType.WEBHOOK_ENDPOINT.generate(),
            endpointBody("https://hooks.example.ph/sealed"));
    assertEquals(201, created.status(), created.body().toString());
    String id = created.body().get("id").asText();
    CommandReply rotated =
        command(WebhookCommands.ENDPOINT_ROTATE_SECRET, merchant, "test", id, null);
    assertEquals(200, rotated.status(), rotated.body().toString());

    List<String> secrets = new ArrayList<>();
    for (CommandReply reply : List.of(created, rotated)) {
      String sealed = reply.body().get("secret").asText();
      assertTrue(ReplySealer.isSealed(sealed), sealed);
      String secret = opened(reply).get("secret").asText();
      assertTrue(secret.startsWith("whsec_"), "opens to the signing secret");
      secrets.add(secret);
      ReplySealer gateway = ReplySealer.configured(REPLY_SEALING_KEY, false);
      assertThrows(
          ReplySealer.SealedValueException.class,
          () -> gateway.open(sealed, IdType.COMMAND.generate(), "secret"),
          "not in another command's reply");
    }
    String outbox =
        transactions.inTransaction(
            c -> {
              StringBuilder all = new StringBuilder();
              try (var select = c.prepareStatement("SELECT payload, attributes::text FROM outbox");
                  var rs = select.executeQuery()) {
                while (rs.next()) {
                  all.append(new String(rs.getBytes(1), StandardCharsets.UTF_8))
                      .append(rs.getString(2));
                }
              }
              return all.toString();
            });
    assertTrue(outbox.contains(ReplySealer.PREFIX), "the replies are in the outbox");
    for (String secret : secrets) {
      assertFalse(outbox.contains(secret), "a signing secret in clear in the outbox");
      assertFalse(outbox.contains(secret.substring("whsec_".length())));
    }
  }
}
