package ph.payments.gateway.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.math.BigDecimal;
import java.util.Set;
import ph.payments.contracts.Topics;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.gateway.auth.AuthenticatedKeys;
import ph.payments.gateway.commands.CommandBus;
import ph.payments.gateway.merchants.MerchantAccounts;
import ph.payments.gateway.merchants.MerchantAccounts.KeyView;
import ph.payments.gateway.merchants.MerchantAccounts.MerchantView;
import ph.payments.gateway.merchants.Scopes;
import ph.payments.gateway.web.Fields;
import ph.payments.gateway.webhooks.AccountWebhookSecrets;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;

/**
 * The operator API (ARCHITECTURE "Conventions"), behind {@link AdminTokenFilter}: merchants, their
 * activation and their API keys. A key's secret is in the response that creates it and nowhere
 * else.
 */
@Controller("/admin/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class OperatorController {

  private static final Set<String> ENVIRONMENTS = Set.of("test", "live");

  /**
   * Highest per-key override: the sliding-window log keeps one timestamp per admitted request of
   * the last minute, rewritten on every request. Higher volumes use several keys.
   */
  static final int MAX_RATE_LIMIT = 10_000;

  private final MerchantAccounts accounts;
  private final CommandBus commands;
  private final AccountWebhookSecrets webhookSecrets;
  private final AuthenticatedKeys authenticatedKeys;

  public OperatorController(
      MerchantAccounts accounts,
      CommandBus commands,
      AccountWebhookSecrets webhookSecrets,
      AuthenticatedKeys authenticatedKeys) {
    this.accounts = accounts;
    this.commands = commands;
    this.webhookSecrets = webhookSecrets;
    this.authenticatedKeys = authenticatedKeys;
  }

  /**
   * After a change to a key or a merchant has committed: authentication reads them afresh, so the
   * change applies to the very next request.
   */
  private <T> T changed(T committed) {
    authenticatedKeys.invalidateAll();
    return committed;
  }

  /**
   * {@code {method, percent, fixed_amount}}: the merchant's own fee for a method (percent of the
   * gross amount plus a fixed part), replacing the default for new payments; {@code percent} null
   * restores the default. Applied by payments-service, which owns fees.
   */
  @Post("/merchants/{id}/fees")
  public HttpResponse<JsonNode> setFee(String id, @Nullable @Body JsonNode json) {
    Fields body = Fields.of(json).allowOnly("method", "percent", "fixed_amount");
    String method = body.requiredString("method", 1, 40);
    boolean clearing = json != null && json.has("percent") && json.get("percent").isNull();
    if (!clearing) {
      body.requiredAmount("percent", BigDecimal.ZERO, new BigDecimal("99.99"));
      body.requiredAmount("fixed_amount", BigDecimal.ZERO, new BigDecimal("100000"));
    }
    body.validate();
    accounts.find(merchantId(id));
    ObjectNode command = Json.mapper().createObjectNode();
    command.put("merchant_id", id);
    command.put("method", method);
    command.set("percent", json.get("percent"));
    command.set("fixed_amount", clearing ? null : json.get("fixed_amount"));
    CommandReply reply =
        commands.submit(
            new CommandBus.Request(
                Topics.PAYMENTS_COMMANDS, "merchant_fees.set", null, null, null, command));
    return HttpResponse.<JsonNode>status(HttpStatus.valueOf(reply.status())).body(reply.body());
  }

  /**
   * {@code {name, email}} → 201 merchant with a {@code sk_test_} key that may do everything, and
   * the test environment's account-level webhook secret ({@code webhook_secrets.test}, null when
   * webhook-service could not be reached; rotate it to get one).
   */
  @Post("/merchants")
  public HttpResponse<MerchantJson> createMerchant(@Nullable @Body JsonNode json) {
    Fields body = Fields.of(json).allowOnly("name", "email");
    String name = body.requiredString("name", 1, 200);
    String email = body.requiredEmail("email");
    body.validate();
    MerchantView merchant = accounts.create(name, email);
    return HttpResponse.created(
        MerchantJson.of(merchant, webhookSecret(merchant.merchant().id(), "test")));
  }

  @Get("/merchants/{id}")
  public MerchantJson merchant(String id) {
    return MerchantJson.of(accounts.find(merchantId(id)));
  }

  /**
   * Takes the merchant live; the first activation issues a {@code sk_live_} key and shows the live
   * account-level webhook secret ({@code webhook_secrets.live}).
   */
  @Post("/merchants/{id}/activate")
  public MerchantJson activate(String id) {
    MerchantView merchant = changed(accounts.activate(merchantId(id)));
    boolean wentLive =
        merchant.keys().stream()
            .anyMatch(key -> key.secret() != null && "live".equals(key.key().environment()));
    return MerchantJson.of(merchant, wentLive ? webhookSecret(id, "live") : null);
  }

  private java.util.Map<String, String> webhookSecret(String merchantId, String environment) {
    java.util.Map<String, String> secrets = new java.util.LinkedHashMap<>();
    secrets.put(environment, webhookSecrets.createOrGet(merchantId, environment).orElse(null));
    return secrets;
  }

  /** Every key of the merchant is answered 403 {@code merchant_inactive} afterwards. */
  @Post("/merchants/{id}/deactivate")
  public MerchantJson deactivate(String id) {
    return MerchantJson.of(changed(accounts.deactivate(merchantId(id))));
  }

  @Post("/merchants/{id}/reactivate")
  public MerchantJson reactivate(String id) {
    return MerchantJson.of(changed(accounts.reactivate(merchantId(id))));
  }

  /**
   * {@code {environment, scopes, rate_limit_per_minute?}} → 201 key with its secret. Several active
   * keys per environment are allowed, so keys rotate without downtime.
   */
  @Post("/merchants/{id}/api_keys")
  public HttpResponse<ApiKeyJson> createKey(String id, @Nullable @Body JsonNode json) {
    Fields body = Fields.of(json).allowOnly("environment", "scopes", "rate_limit_per_minute");
    String environment =
        body.has("environment") ? body.optionalEnum("environment", ENVIRONMENTS) : null;
    if (!body.has("environment")) {
      body.issue("environment", "is required");
    }
    Set<String> scopes = body.optionalStringSet("scopes", Scopes.KNOWN);
    if (!body.has("scopes")) {
      body.issue("scopes", "is required");
    } else if (scopes != null && scopes.isEmpty()) {
      body.issue("scopes", "must name at least one scope");
    }
    Integer perMinute = body.optionalInteger("rate_limit_per_minute", 1, MAX_RATE_LIMIT);
    body.validate();
    KeyView key = accounts.createKey(merchantId(id), environment, scopes, perMinute);
    return HttpResponse.created(ApiKeyJson.of(key));
  }

  /** Afterwards the key is answered 401 {@code unauthenticated}. */
  @Post("/api_keys/{id}/revoke")
  public ApiKeyJson revoke(String id) {
    return ApiKeyJson.of(changed(accounts.revokeKey(keyId(id))));
  }

  /** {@code {rate_limit_per_minute}}: the key's override; null restores the default. */
  @Post("/api_keys/{id}/rate_limit")
  public ApiKeyJson rateLimit(String id, @Nullable @Body JsonNode json) {
    Fields body = Fields.of(json).allowOnly("rate_limit_per_minute");
    if (json == null || !json.has("rate_limit_per_minute")) {
      body.issue("rate_limit_per_minute", "is required (null restores the default)");
    }
    Integer perMinute = body.optionalInteger("rate_limit_per_minute", 1, MAX_RATE_LIMIT);
    body.validate();
    return ApiKeyJson.of(changed(accounts.setRateLimit(keyId(id), perMinute)));
  }

  private static String merchantId(String id) {
    if (!IdType.MERCHANT.matches(id)) {
      throw ApiException.notFound("merchant");
    }
    return id;
  }

  private static String keyId(String id) {
    if (!IdType.API_KEY.matches(id)) {
      throw ApiException.notFound("API key");
    }
    return id;
  }

  /**
   * The merchant as the operator API shows it; {@code webhook_secrets} only in the responses that
   * create an environment's account-level webhook secret.
   */
  public record MerchantJson(
      String id,
      String object,
      String name,
      String email,
      String status,
      boolean live,
      long created,
      java.util.List<ApiKeyJson> apiKeys,
      @com.fasterxml.jackson.annotation.JsonInclude(
              com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
          java.util.Map<String, String> webhookSecrets) {

    static MerchantJson of(MerchantView view) {
      return of(view, null);
    }

    static MerchantJson of(MerchantView view, java.util.Map<String, String> webhookSecrets) {
      var merchant = view.merchant();
      return new MerchantJson(
          merchant.id(),
          "merchant",
          merchant.name(),
          merchant.email(),
          merchant.status(),
          merchant.live(),
          merchant.createdAt().getEpochSecond(),
          view.keys().stream().map(ApiKeyJson::of).toList(),
          webhookSecrets);
    }
  }

  /** A key as the operator API shows it; {@code secret} only in the creating response. */
  @com.fasterxml.jackson.annotation.JsonInclude(
      com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
  public record ApiKeyJson(
      String id,
      String object,
      String environment,
      String secret,
      String secretLast4,
      java.util.List<String> scopes,
      Integer rateLimitPerMinute,
      long created,
      Long revokedAt) {

    static ApiKeyJson of(KeyView view) {
      var key = view.key();
      return new ApiKeyJson(
          key.id(),
          "api_key",
          key.environment(),
          view.secret(),
          key.secretLast4(),
          java.util.List.of(key.scopes()),
          key.rateLimitPerMinute(),
          key.createdAt().getEpochSecond(),
          key.revokedAt() == null ? null : key.revokedAt().getEpochSecond());
    }
  }
}
