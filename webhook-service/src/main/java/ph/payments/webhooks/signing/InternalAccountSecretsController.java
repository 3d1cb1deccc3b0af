package ph.payments.webhooks.signing;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.Set;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * The account-level webhook secrets, for the gateway's operator API only (behind the internal
 * token): shown when a merchant is created or activated, and rotated on an operator's request.
 */
@Controller("/internal/account_secrets/{merchantId}/{environment}")
@ExecuteOn(TaskExecutors.BLOCKING)
public class InternalAccountSecretsController {

  private static final Set<String> ENVIRONMENTS = Set.of("test", "live");

  private final Transactions transactions;
  private final AccountSecrets secrets;

  public InternalAccountSecretsController(Transactions transactions, AccountSecrets secrets) {
    this.transactions = transactions;
    this.secrets = secrets;
  }

  /** The environment's secret, created if missing; asking again returns the same secret. */
  @Post
  public ObjectNode createOrGet(String merchantId, String environment) {
    check(merchantId, environment);
    AccountSecrets.Shown shown =
        transactions.inTransaction(c -> secrets.createOrGet(c, merchantId, environment));
    return json(merchantId, environment, shown);
  }

  /** A new secret; the previous one keeps signing for 24 hours. */
  @Post("/rotate")
  public ObjectNode rotate(String merchantId, String environment) {
    check(merchantId, environment);
    AccountSecrets.Shown shown =
        transactions.inTransaction(c -> secrets.rotate(c, merchantId, environment));
    return json(merchantId, environment, shown);
  }

  private static void check(String merchantId, String environment) {
    if (!IdType.MERCHANT.matches(merchantId) || !ENVIRONMENTS.contains(environment)) {
      throw ApiException.notFound("merchant environment");
    }
  }

  private static ObjectNode json(
      String merchantId, String environment, AccountSecrets.Shown shown) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("object", "webhook_secret");
    json.put("merchant", merchantId);
    json.put("environment", environment);
    json.put("secret", shown.secret());
    json.put(
        "previous_secret_expires_at",
        shown.previousExpiresAt() == null ? null : shown.previousExpiresAt().getEpochSecond());
    return json;
  }
}
