package ph.payments.gateway.idempotency;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;
import ph.payments.gateway.testwidgets.WidgetGatewayTest;

/**
 * A reply that comes after the request's deadline (ARCHITECTURE "Command path"): a creation answers
 * 202 Accepted with the allocated id, its status URL ({@code Location}) and a pending body; the
 * command is still applied exactly once; a retry with the same Idempotency-Key gets 202 while the
 * command waits and the result after; GET on the id answers from the command log until the owner
 * applied (or rejected) the command. The owner is paused to make replies late; the deadline is one
 * second.
 */
@MicronautTest(transactional = false)
class LateReplyIT extends WidgetGatewayTest {

  private static final String BODY = "{\"amount\":250.00,\"description\":\"Late widget\"}";

  @Override
  protected Map<String, String> widgetProperties() {
    return Map.of("gateway.commands.reply-timeout", "1s");
  }

  @AfterEach
  void resumeOwner() {
    owner.resume();
  }

  @Test
  void aRetryWithTheSameKeyGetsTheResultOfTheCommandThatTimedOut() {
    Operator.Merchant merchant = operator().createMerchant("Slow Owner Store");
    String key = "late-" + System.nanoTime();
    long commandsBefore = commands();
    int appliedBefore = owner.applied();
    owner.pause();

    Http.Response first = createWidget(merchant.testSecret(), BODY, key);
    String id = assertAccepted(first);
    assertEquals("in_progress", status(key));

    // The first request gave up; a retry takes its place, waits for the same command, and is
    // answered the same way while the command is still unanswered.
    Http.Response second = createWidget(merchant.testSecret(), BODY, key);
    assertEquals(id, assertAccepted(second), "the replay names the same resource");
    assertEquals(commandsBefore + 1, commands(), "a retry never writes a second command");

    owner.resume();
    Http.Response result = retryUntilAnswered(merchant.testSecret(), key);
    assertEquals(201, result.status(), result.body());
    assertEquals(id, result.json().get("id").asText());
    assertEquals("Late widget", result.json().get("description").asText());
    assertEquals(appliedBefore + 1, owner.applied(), "applied exactly once");
    assertEquals(commandsBefore + 1, commands());
    assertEquals(1, sql().number("SELECT count(*) FROM test_widgets WHERE id = ?", id));

    Http.Response replay = createWidget(merchant.testSecret(), BODY, key);
    assertEquals(result.body(), replay.body());
    assertEquals("true", replay.header("Idempotent-Replayed").orElse(null));
  }

  @Test
  void theReplyIsStoredEvenWhenNoRequestWaitsForItAnyMore() {
    Operator.Merchant merchant = operator().createMerchant("Crashed Gateway Store");
    String key = "unattended-" + System.nanoTime();
    owner.pause();
    assertAccepted(createWidget(merchant.testSecret(), BODY, key));

    owner.resume();
    // Nobody asks; the durable reply recorder completes the record by itself.
    await().atMost(Duration.ofSeconds(20)).until(() -> "completed".equals(status(key)));
    Http.Response retry = createWidget(merchant.testSecret(), BODY, key);
    assertEquals(201, retry.status(), retry.body());
    assertEquals("true", retry.header("Idempotent-Replayed").orElse(null));
    assertEquals(
        sql()
            .text(
                "SELECT response_body::text FROM idempotency_keys WHERE idempotency_key = ?", key),
        retry.body());
    assertEquals(
        sql()
            .text(
                "SELECT c.reply_body::text FROM commands c JOIN idempotency_keys k"
                    + " ON k.command_id = c.command_id WHERE k.idempotency_key = ?",
                key),
        retry.body(),
        "the command log and the idempotency record hold the same bytes");
  }

  @Test
  void whileTheFirstRequestStillWaitsARetryIsAConflict() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Impatient Store");
    String key = "impatient-" + System.nanoTime();
    owner.pause();
    CompletableFuture<Http.Response> first =
        CompletableFuture.supplyAsync(() -> createWidget(merchant.testSecret(), BODY, key));
    await().atMost(Duration.ofSeconds(5)).until(() -> status(key) != null);

    Http.Response duplicate = createWidget(merchant.testSecret(), BODY, key);
    assertEquals(409, duplicate.status(), duplicate.body());
    assertEquals("conflict", duplicate.errorCode());
    assertAccepted(first.get(10, TimeUnit.SECONDS));
  }

  @Test
  void withoutAKeyTheClientHoldsTheIdAndItsStatusUrlConvergesToTheResource() {
    Operator.Merchant merchant = operator().createMerchant("Keyless Late Store");
    long commandsBefore = commands();
    int appliedBefore = owner.applied();
    owner.pause();
    Http.Response first = createWidget(merchant.testSecret(), BODY, null);
    String id = assertAccepted(first);
    String location = first.header("Location").orElseThrow();

    // The status URL is truthful while the command waits: pending, not 404.
    Http.Response pending = http().get(location, merchant.testSecret());
    assertEquals(202, pending.status(), pending.body());
    assertEquals(id, pending.json().get("id").asText());
    assertEquals("pending", pending.json().get("status").asText());
    // ... for its own merchant only.
    Operator.Merchant stranger = operator().createMerchant("Curious Store");
    assertEquals(404, http().get(location, stranger.testSecret()).status());

    // A retry without a key is a new request (SPEC: the key is optional) and gets its own id;
    // the client that kept the first id can look it up instead of retrying.
    Http.Response retry = createWidget(merchant.testSecret(), BODY, null);
    String retryId = assertAccepted(retry);
    assertNotEquals(id, retryId);

    owner.resume();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> http().get(location, merchant.testSecret()).status() == 200);
    Http.Response created = http().get(location, merchant.testSecret());
    assertEquals(id, created.json().get("id").asText());
    assertEquals("Late widget", created.json().get("description").asText());
    await().atMost(Duration.ofSeconds(20)).until(() -> owner.applied() == appliedBefore + 2);
    assertEquals(commandsBefore + 2, commands());
    assertEquals(1, sql().number("SELECT count(*) FROM test_widgets WHERE id = ?", id));
  }

  @Test
  void theStatusUrlOfARejectedCreationAnswersTheRejection() {
    Operator.Merchant merchant = operator().createMerchant("Declined Late Store");
    owner.pause();
    Http.Response first =
        createWidget(
            merchant.testSecret(), "{\"amount\":1.00,\"description\":\"decline me\"}", null);
    String id = assertAccepted(first);
    String location = first.header("Location").orElseThrow();
    assertEquals(202, http().get(location, merchant.testSecret()).status());

    owner.resume();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> http().get(location, merchant.testSecret()).status() == 400);
    Http.Response rejected = http().get(location, merchant.testSecret());
    assertEquals("invalid_state", rejected.errorCode(), rejected.body());
    assertEquals(0, sql().number("SELECT count(*) FROM test_widgets WHERE id = ?", id));
  }

  @Test
  void anUnknownIdIsStillNotFound() {
    Operator.Merchant merchant = operator().createMerchant("Plain Store");
    Http.Response missing = http().get(WIDGETS + "/wgt_nosuchwidget", merchant.testSecret());
    assertEquals(404, missing.status(), missing.body());
    assertEquals("not_found", missing.errorCode());
  }

  private Http.Response retryUntilAnswered(String secret, String key) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      Http.Response response = createWidget(secret, BODY, key);
      if (response.status() != 202 || System.nanoTime() > deadline) {
        return response;
      }
    }
  }

  private String status(String key) {
    return sql().text("SELECT status FROM idempotency_keys WHERE idempotency_key = ?", key);
  }

  /** 202 with the allocated id, its status URL and a pending body; answers the id. */
  private static String assertAccepted(Http.Response response) {
    assertEquals(202, response.status(), response.body());
    String id = response.json().get("id").asText();
    assertTrue(id.startsWith("wgt_"), id);
    assertEquals("test_widget", response.json().get("object").asText());
    assertEquals("pending", response.json().get("status").asText());
    assertEquals(WIDGETS + "/" + id, response.header("Location").orElse(null));
    String retryAfter = response.header("Retry-After").orElse("");
    assertTrue(retryAfter.matches("[0-9]+"), "Retry-After in whole seconds: " + retryAfter);
    return id;
  }
}
