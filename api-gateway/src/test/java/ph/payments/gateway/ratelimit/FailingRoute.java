package ph.payments.gateway.ratelimit;

import io.micronaut.context.annotation.Requires;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import ph.payments.gateway.auth.RequiresScope;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;

/** A {@code /v1} route that always answers with an error, to see the limit headers on errors. */
@Requires(property = "spec.name", value = "RateLimitIT")
@Controller("/v1/test_rate_limit_probe")
public class FailingRoute {

  @Get("/failing")
  @RequiresScope("payments:read")
  public String fail() {
    throw new ApiException(ErrorCode.INVALID_STATE, "This route always fails.");
  }
}
