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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.payments.payouts.application.LedgerHolds;
import ph.payments.platform.json.Json;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.money.Money;
import ph.payments.platform.replicas.Replicas;
import ph.payments.platform.tracing.Tracing;

/**
 * {@link LedgerHolds} over ledger-service's internal HTTP API: {@code POST
 * {payments.ledger-url}/internal/holds} with the internal token. 201 or 200 (a replay) is held, 400
 * {@code insufficient_balance} is insufficient, any other definite refusal (409 {@code conflict},
 * another 400) is refused; no answer, 401/404 (misconfiguration or an older ledger), 408, 429 and
 * 5xx are {@link LedgerHolds.Unavailable}, so the command is retried rather than answered.
 *
 * <p>{@code payments.ledger-url} may name several ledger replicas, comma-separated ({@link
 * Replicas}). A call that gets no answer from one (refused, reset, or {@code ledger-timeout}
 * passed) is made at the next: every call here is safe to repeat. Taking a hold is idempotent on
 * the payout id (the ledger answers a repeat with the hold as it stands, 200), releasing one is
 * idempotent too, and listing reads. An answer, an error status included, is never sent to another
 * replica.
 */
@Singleton
public class HttpLedgerHolds implements LedgerHolds {

  private static final Logger log = LoggerFactory.getLogger(HttpLedgerHolds.class);
  private static final String HOLDS = "/internal/holds";

  private final Replicas ledger;
  private final String internalToken;
  private final Duration timeout;
  private final HttpClient client;

  public HttpLedgerHolds(
      @Value("${payments.ledger-url}") String ledgerUrl,
      @Nullable @Value("${internal.token:}") String internalToken,
      @Value("${payments.ledger-timeout:5s}") Duration timeout) {
    this.ledger = Replicas.parse("ledger-service", "payments.ledger-url", ledgerUrl);
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
    HttpResponse<String> response = send(HOLDS, Json.toBytes(body));
    int status = response.statusCode();
    if (status == 200 || status == 201) {
      // A replay answers the hold as it stands: one that was given back holds nothing now.
      String holdStatus = holdStatus(response.body());
      return holdStatus == null || holdStatus.equals("held") ? new Held() : new Released();
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

  @Override
  public List<OpenHold> heldBefore(Instant createdBefore, String startingAfter, int limit) {
    HttpResponse<String> response =
        send(
            HOLDS
                + "?status=held&created_before="
                + createdBefore.getEpochSecond()
                + "&limit="
                + limit
                + (startingAfter == null ? "" : "&starting_after=" + startingAfter),
            null);
    if (response.statusCode() != 200) {
      throw new Unavailable(
          "ledger-service answered " + response.statusCode() + " to the list of open holds", null);
    }
    List<OpenHold> open = new ArrayList<>();
    for (JsonNode hold : Json.tree(response.body()).path("data")) {
      open.add(
          new OpenHold(
              hold.get("payout_id").asText(),
              hold.get("merchant_id").asText(),
              hold.get("environment").asText(),
              Money.of(hold.get("amount").decimalValue(), hold.get("currency").asText()),
              Instant.ofEpochSecond(hold.get("created").asLong())));
    }
    return open;
  }

  @Override
  public void release(String payoutId) {
    HttpResponse<String> response = send(HOLDS + "/" + payoutId + "/release", new byte[0]);
    if (response.statusCode() != 200) {
      throw new Unavailable(
          "ledger-service answered "
              + response.statusCode()
              + " to releasing the hold of "
              + payoutId
              + ": "
              + response.body(),
          null);
    }
  }

  /**
   * GET {@code path} when {@code body} is null, else POST it, at the ledger's replicas in turn
   * until one answers (see the class comment: every call here may be repeated).
   *
   * @throws Unavailable when no replica answered
   */
  private HttpResponse<String> send(String path, byte[] body) {
    try {
      return ledger.call(url -> send(URI.create(url + path), body), e -> e instanceof IOException);
    } catch (IOException e) {
      throw new Unavailable("ledger-service unreachable at " + ledger.urls() + path + ": " + e, e);
    }
  }

  private HttpResponse<String> send(URI uri, byte[] body) throws IOException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(timeout)
            .header(InternalHeaders.TOKEN, internalToken)
            .header("Accept", "application/json");
    Tracing.outgoingHeaders().forEach(request::header);
    if (body != null) {
      request.header("Content-Type", "application/json");
      request.POST(HttpRequest.BodyPublishers.ofByteArray(body));
    }
    try {
      return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Unavailable("interrupted while asking ledger-service", e);
    }
  }

  private static String holdStatus(String body) {
    try {
      JsonNode status = Json.tree(body).path("status");
      return status.isTextual() ? status.asText() : null;
    } catch (RuntimeException notJson) {
      return null;
    }
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
