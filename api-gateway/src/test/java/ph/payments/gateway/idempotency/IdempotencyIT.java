package ph.payments.gateway.idempotency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;
import ph.payments.gateway.testwidgets.WidgetGatewayTest;

/**
 * Idempotency-Key on a mutating {@code /v1} POST (SPEC parts 4 and 8), over real HTTP with the
 * command applied by a real owner through Kafka.
 */
@MicronautTest(transactional = false)
class IdempotencyIT extends WidgetGatewayTest {

  private static final String BODY =
      "{\"amount\":1500.50,\"currency\":\"PHP\",\"description\":\"Blue widget\","
          + "\"metadata\":{\"order\":\"A-1\",\"lines\":[1,2]}}";

  @Test
  void twentyConcurrentRequestsWithOneKeyCreateExactlyOneCommand() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Concurrent Store");
    String key = "concurrent-" + System.nanoTime();
    long commandsBefore = commands();
    int appliedBefore = owner.applied();

    int requests = 20;
    ExecutorService pool = Executors.newFixedThreadPool(requests);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Http.Response>> futures = new ArrayList<>();
    try {
      for (int i = 0; i < requests; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return createWidget(merchant.testSecret(), BODY, key);
                }));
      }
      start.countDown();
      List<Http.Response> created = new ArrayList<>();
      for (Future<Http.Response> future : futures) {
        Http.Response response = future.get(60, TimeUnit.SECONDS);
        if (response.status() == 201) {
          created.add(response);
        } else {
          assertEquals(409, response.status(), response.body());
          assertEquals("conflict", response.errorCode());
        }
      }
      assertFalse(created.isEmpty(), "someone must have been answered 201");
      String widgetId = created.get(0).json().get("id").asText();
      for (Http.Response response : created) {
        // Late losers may be answered the stored response; it is the same widget.
        assertEquals(created.get(0).body(), response.body());
      }

      assertEquals(commandsBefore + 1, commands(), "exactly one command row");
      assertEquals(appliedBefore + 1, owner.applied(), "applied once by the owner");
      assertEquals(1, sql().number("SELECT count(*) FROM test_widgets WHERE id = ?", widgetId));

      Http.Response retry = createWidget(merchant.testSecret(), BODY, key);
      assertEquals(201, retry.status());
      assertEquals(created.get(0).body(), retry.body(), "byte for byte");
      assertEquals("true", retry.header("Idempotent-Replayed").orElse(null));
      assertEquals(commandsBefore + 1, commands());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theFirstResponseHasNoReplayedHeaderAndReplaysAreIdentical() {
    Operator.Merchant merchant = operator().createMerchant("Replay Store");
    String key = "replay-" + System.nanoTime();
    Http.Response first = createWidget(merchant.testSecret(), BODY, key);
    assertEquals(201, first.status(), first.body());
    assertTrue(first.header("Idempotent-Replayed").isEmpty());
    assertTrue(first.json().get("id").asText().startsWith("wgt_"));
    assertEquals("1500.50", first.json().get("amount").decimalValue().toPlainString());

    for (int i = 0; i < 3; i++) {
      Http.Response again = createWidget(merchant.testSecret(), BODY, key);
      assertEquals(201, again.status());
      assertEquals(first.body(), again.body());
      assertEquals("true", again.header("Idempotent-Replayed").orElse(null));
      assertEquals("application/json", again.header("Content-Type").orElse(""));
    }
    assertEquals(
        1, sql().number("SELECT count(*) FROM idempotency_keys WHERE idempotency_key = ?", key));
  }

  @Test
  void theSameKeyWithAnotherBodyIsAConflictButFormattingIsNot() {
    Operator.Merchant merchant = operator().createMerchant("Fingerprint Store");
    String key = "fingerprint-" + System.nanoTime();
    Http.Response first = createWidget(merchant.testSecret(), BODY, key);
    assertEquals(201, first.status(), first.body());

    String reformatted =
        "{ \"metadata\" : { \"lines\" : [ 1, 2 ], \"order\" : \"A-1\" },\n"
            + "  \"description\" : \"Blue widget\",\n  \"currency\" : \"PHP\",\n"
            + "  \"amount\" : 1500.50 }";
    Http.Response replay = createWidget(merchant.testSecret(), reformatted, key);
    assertEquals(201, replay.status(), replay.body());
    assertEquals(first.body(), replay.body());
    assertEquals("true", replay.header("Idempotent-Replayed").orElse(null));

    for (String other :
        List.of(
            BODY.replace("1500.50", "1500.51"),
            BODY.replace("Blue widget", "Red widget"),
            BODY.replace("[1,2]", "[2,1]"),
            "{\"amount\":1500.50,\"description\":\"Blue widget\"}")) {
      Http.Response conflict = createWidget(merchant.testSecret(), other, key);
      assertEquals(409, conflict.status(), other + " → " + conflict.body());
      assertEquals("conflict", conflict.errorCode());
    }
    assertEquals(
        1,
        sql()
            .number(
                "SELECT count(*) FROM commands c JOIN idempotency_keys k"
                    + " ON k.command_id = c.command_id WHERE k.idempotency_key = ?",
                key));
  }

  @Test
  void keysUpTo255PrintableCharactersAreAcceptedAndLongerOnesAreInvalid() {
    Operator.Merchant merchant = operator().createMerchant("Long Key Store");
    long commandsBefore = commands();

    Http.Response tooLong = createWidget(merchant.testSecret(), BODY, "k".repeat(256));
    assertEquals(400, tooLong.status(), tooLong.body());
    assertEquals("invalid_request", tooLong.errorCode());
    assertTrue(tooLong.json().at("/error/issues/Idempotency-Key").isTextual(), tooLong.body());
    assertEquals(commandsBefore, commands(), "an invalid key sends nothing");

    String longest = "k".repeat(200) + " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" + "k".repeat(22);
    assertEquals(255, longest.length());
    Http.Response accepted = createWidget(merchant.testSecret(), BODY, longest);
    assertEquals(201, accepted.status(), accepted.body());
    Http.Response replay = createWidget(merchant.testSecret(), BODY, longest);
    assertEquals(accepted.body(), replay.body());
    assertEquals("true", replay.header("Idempotent-Replayed").orElse(null));
  }

  @Test
  void keysBelongToOneMerchantInOneEnvironment() {
    Operator.Merchant first = operator().createMerchant("First Store");
    Operator.Merchant second = operator().createMerchant("Second Store");
    Operator.Key firstLive = operator().activate(first.id());
    String key = "shared-" + System.nanoTime();
    long commandsBefore = commands();

    Http.Response a = createWidget(first.testSecret(), BODY, key);
    Http.Response b = createWidget(second.testSecret(), BODY, key);
    Http.Response c = createWidget(firstLive.secret(), BODY, key);
    for (Http.Response response : List.of(a, b, c)) {
      assertEquals(201, response.status(), response.body());
      assertTrue(response.header("Idempotent-Replayed").isEmpty(), "none is a replay");
    }
    assertNotEquals(a.json().get("id"), b.json().get("id"));
    assertNotEquals(a.json().get("id"), c.json().get("id"));
    assertEquals("live", c.json().get("environment").asText());
    assertEquals(commandsBefore + 3, commands(), "three independent commands");

    // Another API key of the same merchant and environment shares the key space.
    Operator.Key another = operator().createKey(first.id(), "test", List.of("payments:write"));
    Http.Response sameMerchant = createWidget(another.secret(), BODY, key);
    assertEquals(a.body(), sameMerchant.body());
    assertEquals("true", sameMerchant.header("Idempotent-Replayed").orElse(null));
    assertEquals(commandsBefore + 3, commands());
  }

  @Test
  void requestsRejectedBeforeTheCommandPathDoNotUseTheKey() {
    Operator.Merchant merchant = operator().createMerchant("Careful Store");
    Operator.Key readOnly = operator().createKey(merchant.id(), "test", List.of("payments:read"));
    String key = "rejected-" + System.nanoTime();

    Http.Response invalid = createWidget(merchant.testSecret(), "{\"amount\":0}", key);
    assertEquals(400, invalid.status(), invalid.body());
    assertEquals("invalid_request", invalid.errorCode());
    Http.Response forbidden = createWidget(readOnly.secret(), BODY, key);
    assertEquals(403, forbidden.status(), forbidden.body());
    Http.Response unauthenticated = createWidget("sk_test_" + "x".repeat(43), BODY, key);
    assertEquals(401, unauthenticated.status(), unauthenticated.body());
    assertEquals(
        0, sql().number("SELECT count(*) FROM idempotency_keys WHERE idempotency_key = ?", key));

    Http.Response valid = createWidget(merchant.testSecret(), BODY, key);
    assertEquals(201, valid.status(), valid.body());
    assertTrue(valid.header("Idempotent-Replayed").isEmpty(), "processed, not replayed");
  }

  @Test
  void theOwnersRejectionIsStoredAndReplayedLikeAnyOutcome() {
    Operator.Merchant merchant = operator().createMerchant("Declined Store");
    String key = "declined-" + System.nanoTime();
    String declined = "{\"amount\":5.00,\"description\":\"decline me\"}";
    long commandsBefore = commands();

    Http.Response first = createWidget(merchant.testSecret(), declined, key);
    assertEquals(400, first.status(), first.body());
    assertEquals("invalid_state", first.errorCode());
    Http.Response again = createWidget(merchant.testSecret(), declined, key);
    assertEquals(400, again.status());
    assertEquals(first.body(), again.body());
    assertEquals("true", again.header("Idempotent-Replayed").orElse(null));
    assertEquals(
        commandsBefore + 1, commands(), "the owner's answer reached the command path once");
  }

  @Test
  void withoutAKeyEveryRequestIsANewCommand() {
    Operator.Merchant merchant = operator().createMerchant("Keyless Store");
    long commandsBefore = commands();
    Http.Response first = createWidget(merchant.testSecret(), BODY, null);
    Http.Response second = createWidget(merchant.testSecret(), BODY, null);
    assertEquals(201, first.status(), first.body());
    assertEquals(201, second.status(), second.body());
    assertNotEquals(first.json().get("id"), second.json().get("id"));
    assertEquals(commandsBefore + 2, commands());
    assertEquals(
        0,
        sql()
            .number(
                "SELECT count(*) FROM idempotency_keys k JOIN commands c"
                    + " ON c.command_id = k.command_id WHERE c.merchant_id = ?",
                merchant.id()));
  }
}
