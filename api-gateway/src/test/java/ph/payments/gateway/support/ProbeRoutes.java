package ph.payments.gateway.support;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import java.math.BigDecimal;
import java.util.Map;
import ph.payments.gateway.auth.MerchantContext;
import ph.payments.gateway.auth.RequiresScope;
import ph.payments.gateway.auth.TestModeOnly;
import ph.payments.gateway.web.Fields;
import ph.payments.gateway.web.ListParams;

/**
 * Test-only {@code /v1} routes that answer with the authenticated context, so authentication,
 * scopes and limits can be tested before (and independently of) the real endpoints.
 */
@Requires(env = "test")
@Controller("/v1/test_probe")
public class ProbeRoutes {

  @Get
  @RequiresScope("payments:read")
  public Map<String, Object> read(HttpRequest<?> request) {
    return describe(MerchantContext.of(request));
  }

  @Post("/write")
  @RequiresScope("payments:write")
  public Map<String, Object> write(HttpRequest<?> request) {
    return describe(MerchantContext.of(request));
  }

  @Get("/sandbox")
  @TestModeOnly
  @RequiresScope("payments:write")
  public Map<String, Object> sandbox(HttpRequest<?> request) {
    return describe(MerchantContext.of(request));
  }

  @Get("/list")
  @RequiresScope("payments:read")
  public Map<String, Object> list(HttpRequest<?> request) {
    ListParams params = ListParams.from(request);
    return Map.of(
        "limit", params.limit(),
        "starting_after", String.valueOf(params.startingAfter()));
  }

  @Post("/body")
  @RequiresScope("payments:write")
  public Map<String, Object> body(@Nullable @Body JsonNode json) {
    Fields body = Fields.of(json).allowOnly("amount", "currency", "email", "url", "metadata");
    body.requiredAmount("amount", new BigDecimal("0.01"), new BigDecimal("999999999999"));
    body.currency("currency", "PHP");
    body.optionalEmail("email");
    body.optionalUri("url");
    body.optionalObject("metadata");
    body.validate();
    return Map.of("valid", true);
  }

  @Get("/undeclared")
  public Map<String, Object> undeclared() {
    return Map.of("reached", true);
  }

  private static Map<String, Object> describe(MerchantContext context) {
    return Map.of(
        "merchant_id", context.merchantId(),
        "environment", context.environment(),
        "api_key_id", context.apiKeyId(),
        "rate_limit_per_minute", context.rateLimitPerMinute());
  }
}
