package ph.payments.gateway.idempotency;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * A reply that comes after the request's deadline (ARCHITECTURE "Command path"): the request gets
 * 503 with {@code Retry-After}, the command is still applied exactly once, and a retry with the
 * same Idempotency-Key gets the result. The owner is paused to make replies late; the deadline is
 * one second.
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
    assertUnavailable(first);
    assertEquals("in_progress", status(key));

    // The first request gave up; a retry takes its place and waits for the same command.
    Http.Response second = createWidget(merchant.testSecret(), BODY, key);
    assertUnavailable(second);
    assertEquals(commandsBefore + 1, commands(), "a retry never writes a second command");

    owner.resume();
    Http.Response result = retryUntilAnswered(merchant.testSecret(), key);
    assertEquals(201, result.status(), result.body());
    assertEquals("Late widget", result.json().get("description").asText());
    assertEquals(appliedBefore + 1, owner.applied(), "applied exactly once");
    assertEquals(commandsBefore + 1, commands());
    assertEquals(
        1,
        sql()
            .number(
                "SELECT count(*) FROM test_widgets WHERE id = ?",
                result.json().get("id").asText()));

    Http.Response replay = createWidget(merchant.testSecret(), BODY, key);
    assertEquals(result.body(), replay.body());
    assertEquals("true", replay.header("Idempotent-Replayed").orElse(null));
  }

  @Test
  void theReplyIsStoredEvenWhenNoRequestWaitsForItAnyMore() {
    Operator.Merchant merchant = operator().createMerchant("Crashed Gateway Store");
    String key = "unattended-" + System.nanoTime();
    owner.pause();
    assertUnavailable(createWidget(merchant.testSecret(), BODY, key));

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
    assertUnavailable(first.get(10, TimeUnit.SECONDS));
  }

  @Test
  void withoutAKeyALateCommandIsStillAppliedOnce() {
    Operator.Merchant merchant = operator().createMerchant("Keyless Late Store");
    long commandsBefore = commands();
    int appliedBefore = owner.applied();
    owner.pause();
    assertUnavailable(createWidget(merchant.testSecret(), BODY, null));

    owner.resume();
    await().atMost(Duration.ofSeconds(20)).until(() -> owner.applied() == appliedBefore + 1);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                sql()
                        .number(
                            "SELECT count(*) FROM commands WHERE merchant_id = ?"
                                + " AND replied_at IS NOT NULL",
                            merchant.id())
                    == 1);
    assertEquals(commandsBefore + 1, commands());
    assertEquals(appliedBefore + 1, owner.applied());
  }

  private Http.Response retryUntilAnswered(String secret, String key) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      Http.Response response = createWidget(secret, BODY, key);
      if (response.status() != 503 || System.nanoTime() > deadline) {
        return response;
      }
    }
  }

  private String status(String key) {
    return sql().text("SELECT status FROM idempotency_keys WHERE idempotency_key = ?", key);
  }

  private static void assertUnavailable(Http.Response response) {
    assertEquals(503, response.status(), response.body());
    assertEquals("internal_error", response.errorCode());
    String retryAfter = response.header("Retry-After").orElse("");
    assertTrue(retryAfter.matches("[0-9]+"), "Retry-After in whole seconds: " + retryAfter);
  }
}
