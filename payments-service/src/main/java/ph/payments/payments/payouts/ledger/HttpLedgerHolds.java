package ph.payments.payments.payouts.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.payments.payouts.application.LedgerHolds;
import ph.payments.platform.json.Json;
import ph.payments.platform.micronaut.InternalHeaders;

/**
 * {@link LedgerHolds} over ledger-service's internal HTTP API: {@code POST
 * {payments.ledger-url}/internal/holds} with the internal token. 201 or 200 (a replay) is held, 400
 * {@code insufficient_balance} is insufficient, any other definite refusal (409 {@code conflict},
 * another 400) is refused; no answer, 401/404 (misconfiguration or an older ledger), 408, 429 and
 * 5xx are {@link LedgerHolds.Unavailable}, so the command is retried rather than answered.
 */
@Singleton
public class HttpLedgerHolds implements LedgerHolds {

  private static final Logger log = LoggerFactory.getLogger(HttpLedgerHolds.class);

  private final URI holds;
  private final String internalToken;
  private final Duration timeout;
  private final HttpClient client;

  public HttpLedgerHolds(
      @Value("${payments.ledger-url}") String ledgerUrl,
      @Nullable @Value("${internal.token:}") String internalToken,
      @Value("${payments.ledger-timeout:5s}") Duration timeout) {
    this.holds = URI.create(ledgerUrl.replaceAll("/+$", "") + "/internal/holds");
    this.internalToken = internalToken == null ? "" : internalToken;
    this.timeout = timeout;
    this.client =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
  }

  @Override
  public Outcome hold(HoldRequest request) {
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("payout_id", request.payoutId());
    body.put("merchant_id", request.merchantId());
    body.put("environment", request.environment());
    body.put("amount", request.amount().amount());
    body.put("currency", request.amount().currency());
    HttpResponse<String> response;
    try {
      response =
          client.send(
              HttpRequest.newBuilder(holds)
                  .timeout(timeout)
                  .header(InternalHeaders.TOKEN, internalToken)
                  .header("Content-Type", "application/json")
                  .header("Accept", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofByteArray(Json.toBytes(body)))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new Unavailable("ledger-service unreachable at " + holds + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Unavailable("interrupted while asking ledger-service for a hold", e);
    }
    int status = response.statusCode();
    if (status == 200 || status == 201) {
      return new Held();
    }
    String code = errorCode(response.body());
    if (status == 400 && "insufficient_balance".equals(code)) {
      return new Insufficient();
    }
    if (status == 401 || status == 404 || status == 408 || status == 429 || status >= 500) {
      throw new Unavailable(
          "ledger-service answered " + status + " to hold " + request.payoutId(), null);
    }
    log.error(
        "ledger-service refused hold {} ({}): {} {}",
        request.payoutId(),
        request.amount(),
        status,
        response.body());
    return new Refused(code == null ? "internal_error" : code, "HTTP " + status);
  }

  private static String errorCode(String body) {
    try {
      JsonNode code = Json.tree(body).path("error").path("code");
      return code.isTextual() ? code.asText() : null;
    } catch (RuntimeException notJson) {
      return null;
    }
  }
}
