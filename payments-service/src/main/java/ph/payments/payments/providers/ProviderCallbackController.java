package ph.payments.payments.providers;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.Map;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.tx.Transactions;

/**
 * Where payment providers and payout rails report (relayed by the gateway's public {@code
 * /callbacks/providers/{name}}): the raw body and its signature header go to {@link
 * ProviderCallbacks}. A duplicate or an ignored callback is still acknowledged with 200, so the
 * provider stops resending it.
 */
@Controller("/internal/providers")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ProviderCallbackController {

  public static final String SIGNATURE_HEADER = "X-Provider-Signature";

  private final ProviderRouter router;
  private final PayoutRouter payoutRouter;
  private final ProviderCallbacks callbacks;
  private final Transactions transactions;

  public ProviderCallbackController(
      ProviderRouter router,
      PayoutRouter payoutRouter,
      ProviderCallbacks callbacks,
      Transactions transactions) {
    this.router = router;
    this.payoutRouter = payoutRouter;
    this.callbacks = callbacks;
    this.transactions = transactions;
  }

  @Post(uri = "/{provider}/callbacks", consumes = "application/json")
  public HttpResponse<Map<String, String>> receive(
      String provider, @Body byte[] body, @Nullable @Header(SIGNATURE_HEADER) String signature) {
    CallbackSource adapter =
        router
            .byName(provider)
            .<CallbackSource>map(a -> a)
            .or(() -> payoutRouter.byName(provider))
            .orElseThrow(() -> ApiException.notFound("provider"));
    try {
      ProviderCallbacks.Outcome outcome =
          transactions.inTransaction(c -> callbacks.receive(c, adapter, body, signature));
      return HttpResponse.ok(Map.of("outcome", outcome.name().toLowerCase()));
    } catch (ProviderCallbacks.InvalidSignature e) {
      throw new ApiException(ErrorCode.UNAUTHENTICATED, "Invalid provider signature.");
    }
  }
}
