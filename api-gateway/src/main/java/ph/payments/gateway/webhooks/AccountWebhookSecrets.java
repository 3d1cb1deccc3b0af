package ph.payments.gateway.webhooks;

import io.micronaut.http.HttpResponse;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.gateway.routing.Owner;
import ph.payments.gateway.routing.ReadRouter;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;

/**
 * The account-level webhook secret of a merchant environment, kept by webhook-service: it signs
 * deliveries to a payment's {@code webhook_url}. The operator API shows it when the merchant is
 * created (test) or goes live (live), and can rotate it.
 */
@Singleton
public class AccountWebhookSecrets {

  private static final Logger log = LoggerFactory.getLogger(AccountWebhookSecrets.class);
  private static final byte[] EMPTY = "{}".getBytes(StandardCharsets.UTF_8);

  private final ReadRouter router;

  public AccountWebhookSecrets(ReadRouter router) {
    this.router = router;
  }

  /**
   * The environment's secret, created if it has none. Best effort: the merchant exists whatever
   * webhook-service says, so a failure gives empty (and a warning); rotating later shows a secret.
   */
  public Optional<String> createOrGet(String merchantId, String environment) {
    try {
      HttpResponse<String> answer =
          router.postRaw(
              Owner.WEBHOOKS,
              "/internal/account_secrets/" + merchantId + "/" + environment,
              EMPTY,
              Map.of());
      if (answer.getStatus().getCode() == 200) {
        return Optional.ofNullable(
            Json.tree(answer.getBody().orElse("{}")).path("secret").asText(null));
      }
      log.warn(
          "webhook-service answered {} for the {} webhook secret of {}",
          answer.getStatus().getCode(),
          environment,
          merchantId);
    } catch (ApiException | IllegalStateException | java.io.UncheckedIOException e) {
      log.warn(
          "no {} webhook secret for {} now ({}); rotate it later to show one",
          environment,
          merchantId,
          e.getMessage());
    }
    return Optional.empty();
  }

  /**
   * A new secret; the previous one keeps signing for 24 hours. webhook-service's answer is relayed.
   *
   * @throws ApiException 503 when webhook-service cannot be reached
   */
  public HttpResponse<String> rotate(String merchantId, String environment) {
    return router.postRaw(
        Owner.WEBHOOKS,
        "/internal/account_secrets/" + merchantId + "/" + environment + "/rotate",
        EMPTY,
        Map.of());
  }
}
