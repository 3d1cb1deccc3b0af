package ph.payments.gateway.idempotency;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.commands.Command;
import ph.payments.gateway.commands.CommandBus;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;
import ph.payments.gateway.testwidgets.WidgetGatewayTest;

/**
 * A retry that finds its key locked by a request still waiting for the reply, or by one whose
 * gateway died while waiting (issue 19), gets the outcome as soon as the owner applied the command:
 * it waits for the same command's reply instead of answering 409 {@code conflict} until the lock
 * ends (the lock is the reply timeout, 10 s here as by default).
 */
@MicronautTest(transactional = false)
class RetryWhileLockedIT extends WidgetGatewayTest {

  private static final String BODY = "{\"amount\":250.00,\"description\":\"Locked widget\"}";

  @Inject CommandBus bus;
  @Inject Clock clock;

  @AfterEach
  void resumeOwner() {
    owner.resume();
  }

  @Test
  void aRetryAfterTheGatewayDiedGetsTheOutcomeOnceTheOwnerApplied() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Dead Gateway Store");
    String key = "dead-holder-" + System.nanoTime();
    int appliedBefore = owner.applied();
    owner.pause();
    // What a gateway that died while waiting leaves behind: the command and its outbox row, and the
    // key's record in progress, locked for the reply timeout by a request nobody answers now.
    Command command = widgetCreation(bus, merchant.id(), "Locked widget");
    String widgetId = command.resourceId();
    JsonNode validated = command.body();
    Instant now = clock.instant();
    IdempotencyRecords.Owner holder =
        new IdempotencyRecords.Owner(merchant.id(), "test", new IdempotencyKey(key));
    assertTrue(
        bus.accept(
            command,
            topic(),
            (connection, admitted) ->
                IdempotencyRecords.claim(
                        connection,
                        holder,
                        "POST " + WIDGETS,
                        RequestFingerprint.of("POST", WIDGETS, validated),
                        admitted.commandId(),
                        now,
                        now.plus(Duration.ofSeconds(10)))
                    instanceof Claim.Admitted));

    long started = System.nanoTime();
    CompletableFuture<Http.Response> retry =
        CompletableFuture.supplyAsync(() -> createWidget(merchant.testSecret(), BODY, key));
    Thread.sleep(1_000);
    assertFalse(retry.isDone(), () -> "answered before the owner applied: " + retry.join());

    owner.resume();
    Http.Response answer = retry.get(30, TimeUnit.SECONDS);
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    assertEquals(201, answer.status(), answer.body());
    assertEquals(widgetId, answer.json().get("id").asText());
    assertEquals("true", answer.header("Idempotent-Replayed").orElse(null));
    assertTrue(tookMillis < 9_000, "answered before the lock ended: " + tookMillis + " ms");
    assertEquals(appliedBefore + 1, owner.applied());

    Http.Response replay = createWidget(merchant.testSecret(), BODY, key);
    assertEquals(answer.body(), replay.body());
  }

  @Test
  void aDuplicateOfARequestStillWaitingGetsTheSameOutcome() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Twice Store");
    String key = "alive-holder-" + System.nanoTime();
    owner.pause();
    CompletableFuture<Http.Response> first =
        CompletableFuture.supplyAsync(() -> createWidget(merchant.testSecret(), BODY, key));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                sql().text("SELECT status FROM idempotency_keys WHERE idempotency_key = ?", key)
                    != null);
    CompletableFuture<Http.Response> duplicate =
        CompletableFuture.supplyAsync(() -> createWidget(merchant.testSecret(), BODY, key));
    Thread.sleep(500);
    assertFalse(duplicate.isDone(), () -> "answered early: " + duplicate.join());

    owner.resume();
    Http.Response original = first.get(30, TimeUnit.SECONDS);
    Http.Response replayed = duplicate.get(30, TimeUnit.SECONDS);
    assertEquals(201, original.status(), original.body());
    assertEquals(201, replayed.status(), replayed.body());
    assertEquals(original.body(), replayed.body());
    assertEquals("true", replayed.header("Idempotent-Replayed").orElse(null));
  }
}
