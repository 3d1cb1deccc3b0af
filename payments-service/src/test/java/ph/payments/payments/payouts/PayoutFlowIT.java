package ph.payments.payments.payouts;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.payments.payments.MovableClock;
import ph.payments.payments.payouts.application.ReleaseOrphanedHolds;
import ph.payments.payments.providers.sandbox.SandboxPayoutBatches;
import ph.payments.payments.support.ServiceClient;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * Payouts in payments-service, against a ledger that keeps the contract ({@link FakeLedger}: holds
 * over the port, posting rules from the real event topic): routing, the bank registry, the hold
 * before anything is created, each rail's first answer and the magic accounts, the batch rail's
 * cut-off on a moved clock, test helpers through signed callbacks, retries, an unreachable ledger,
 * and a merchant's whole day (payment, part refund, payout of the rest) in the balance.
 */
@MicronautTest(transactional = false)
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PayoutFlowIT implements TestPropertyProvider {

  private static final String TOKEN = "internal-token-for-payout-flow-it";
  private static final String WALLET = "{\"account_no\":\"09171234567\"}";
  private static final String BANK =
      "{\"account_no\":\"001234567890\",\"bank_code\":\"BNORPHMMXXX\",\"first_name\":\"Juan\","
          + "\"last_name\":\"Dela Cruz\"}";

  @Inject CommandDispatcher dispatcher;
  @Inject Transactions transactions;
  @Inject EmbeddedServer server;
  @Inject MovableClock clock;
  @Inject FakeLedger ledger;
  @Inject SandboxPayoutBatches batches;
  @Inject InterruptedPayoutMoves moves;
  @Inject ReleaseOrphanedHolds reconciler;

  private ServiceClient service;

  @Override
  public Map<String, String> getProperties() {
    TestDatabase database = TestDatabase.forClass(getClass());
    Map<String, String> properties = new HashMap<>();
    properties.put("spec.name", "PayoutFlowIT");
    // Live mode here is the simulated connector, named explicitly (no_route otherwise).
    properties.put("payments.live-connectors", "simulated");
    properties.put("datasources.default.url", database.jdbcUrl());
    properties.put("datasources.default.username", database.user());
    properties.put("kafka.bootstrap.servers", TestKafka.bootstrapServers());
    properties.put("micronaut.server.port", "-1");
    properties.put("internal.token", TOKEN);
    properties.put("payments.sandbox.callback-secret", "sandbox-secret-for-payout-flow-it");
    properties.put("payments.expiry-sweep", "1h");
    properties.put("payments.sandbox.batch-sweep", "1h"); // the test sends batches itself
    properties.put("outbox.sweep-interval", "200ms");
    properties.put("payments.orphaned-holds.sweep", "1h"); // the test runs the reconciler itself
    properties.put("payments.orphaned-holds.grace", "15m");
    return properties;
  }

  private ServiceClient service() {
    if (service == null) {
      service = new ServiceClient(dispatcher, transactions, server.getURL().toString(), TOKEN);
    }
    return service;
  }

  @Test
  void anInstantPayoutSucceedsAtOnceAfterItsHoldWasTaken() {
    String merchant = merchantWith("1000");
    CommandReply reply =
        payout(
            merchant,
            "{\"amount\":500,\"method\":\"ewallet1\",\"destination\":"
                + WALLET
                + ",\"description\":\"Supplier May\",\"metadata\":{\"batch\":\"m-5\"}}");
    assertEquals(201, reply.status(), reply.body().toString());
    JsonNode payout = reply.body();
    assertEquals("succeeded", payout.get("status").asText());
    assertEquals("500.00", payout.get("amount").decimalValue().toPlainString());
    assertEquals("10.00", payout.get("fee_amount").decimalValue().toPlainString());
    assertEquals("sandbox_ewallet1_payouts", payout.get("provider").asText());
    assertEquals("09171234567", payout.at("/destination/account_no").asText());
    assertFalse(payout.get("paid_at").isNull());
    assertTrue(payout.get("failure").isNull());
    List<String> fields = new ArrayList<>();
    payout.fieldNames().forEachRemaining(fields::add);
    assertEquals(
        List.of(
            "id",
            "object",
            "environment",
            "status",
            "amount",
            "currency",
            "method",
            "provider",
            "provider_ref",
            "destination",
            "description",
            "metadata",
            "fee_amount",
            "failure",
            "paid_at",
            "failed_at",
            "created"),
        fields);

    String id = payout.get("id").asText();
    assertEquals("500.00", ledger.holdOf(id).amount().toPlainString(), "the hold is the amount");
    assertEquals(List.of("payout.succeeded"), service().eventTypes(id));
    assertEquals(List.of(id), service().eventKeys(id), "payout events are keyed by the payout");
    assertEquals(new BigDecimal("500.00"), ledger.available(merchant, "test"));
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> "settled".equals(ledger.holdOf(id).status()));
    assertEquals(payout, service().json("/internal/payouts/" + id, merchant, "test"));
  }

  @Test
  void notEnoughBalanceIsAnsweredAtOnceAndNothingIsCreated() {
    String merchant = merchantWith("100");
    String id = IdType.PAYOUT.generate();
    CommandReply reply =
        service()
            .dispatch(
                ServiceClient.command(
                    "payouts.create",
                    merchant,
                    "test",
                    id,
                    "{\"amount\":100.01,\"method\":\"ewallet1\",\"destination\":" + WALLET + "}"));
    assertEquals(400, reply.status());
    assertEquals("insufficient_balance", reply.body().at("/error/code").asText());
    assertEquals(404, service().get("/internal/payouts/" + id, merchant, "test").statusCode());
    assertEquals(List.of(), service().eventTypes(id));
    assertNull(ledger.holdOf(id));
    assertEquals(new BigDecimal("100.00"), ledger.available(merchant, "test"));
    assertEquals(
        201,
        payout(merchant, "{\"amount\":100,\"method\":\"ewallet1\",\"destination\":" + WALLET + "}")
            .status(),
        "the whole balance can be paid out");
  }

  @Test
  void routesAreByMethodAndCurrencyAndNothingIsHeldWithoutOne() {
    String merchant = merchantWith("1000");
    for (String body :
        List.of(
            "{\"amount\":50,\"method\":\"card\",\"destination\":" + WALLET + "}",
            "{\"amount\":50,\"method\":\"ewallet1\",\"currency\":\"USD\",\"destination\":"
                + WALLET
                + "}")) {
      CommandReply reply = payout(merchant, body);
      assertEquals(400, reply.status(), body);
      assertEquals("no_route", reply.body().at("/error/code").asText());
    }
    assertTrue(ledger.asked().stream().noneMatch(h -> h.merchantId().equals(merchant)));
  }

  @Test
  void bothBankShapesAreAcceptedAndTheCodeMustBeAnActiveRegistryCode() {
    String merchant = merchantWith("10000");
    assertEquals(
        "succeeded",
        payout(
                merchant,
                "{\"amount\":1000,\"method\":\"bank_transfer\",\"destination\":" + BANK + "}")
            .body()
            .get("status")
            .asText());
    assertEquals(
        "succeeded",
        payout(
                merchant,
                "{\"amount\":1000,\"method\":\"bank_transfer\",\"destination\":{\"account_no\":"
                    + "\"1234567890\",\"bankCode\":\"GXCHPHM2XXX\",\"account_name\":\"Ana Reyes\"}}")
            .body()
            .get("status")
            .asText());

    CommandReply unknown =
        payout(
            merchant,
            "{\"amount\":100,\"method\":\"bank_transfer\",\"destination\":{\"account_no\":"
                + "\"1234567890\",\"bank_code\":\"XXXXPHMMXXX\",\"first_name\":\"A\",\"last_name\":\"B\"}}");
    assertEquals(400, unknown.status());
    assertEquals("invalid_request", unknown.body().at("/error/code").asText());
    assertTrue(
        unknown.body().at("/error/issues/destination.bank_code").isTextual(),
        unknown.body().toString());

    CommandReply inactive =
        payout(
            merchant,
            "{\"amount\":100,\"method\":\"bank_transfer_nrt\",\"destination\":{\"account_no\":"
                + "\"1234567890\",\"bankCode\":\"ROBPPHMQXXX\",\"account_name\":\"Ana Reyes\"}}");
    assertEquals(400, inactive.status());
    assertTrue(
        inactive.body().at("/error/issues/destination.bankCode").asText().contains("inactive"),
        inactive.body().toString());
    assertEquals(2, ledger.asked().stream().filter(h -> h.merchantId().equals(merchant)).count());
  }

  @Test
  void theInstantRailHasALimitAndEveryPayoutMustExceedItsFee() {
    String merchant = merchantWith("100000");
    CommandReply overLimit =
        payout(
            merchant,
            "{\"amount\":50000.01,\"method\":\"bank_transfer\",\"destination\":" + BANK + "}");
    assertTrue(overLimit.body().at("/error/issues/amount").asText().contains("50000.00"));
    CommandReply feeOnly =
        payout(
            merchant, "{\"amount\":15,\"method\":\"bank_transfer\",\"destination\":" + BANK + "}");
    assertTrue(feeOnly.body().at("/error/issues/amount").asText().contains("fee"));
    assertEquals(
        "pending",
        payout(
                merchant,
                "{\"amount\":60000,\"method\":\"bank_transfer_nrt\",\"destination\":" + BANK + "}")
            .body()
            .get("status")
            .asText(),
        "the batch rail has no per-transfer limit");
    assertEquals(
        201,
        payout(
                merchant,
                "{\"amount\":15.01,\"method\":\"bank_transfer\",\"destination\":" + BANK + "}")
            .status());
  }

  @Test
  void magicAccountsFailWithTheirCodeAndTheReversedHoldShowsInTheBalance() {
    String merchant = merchantWith("1000");
    Map<String, String> cases =
        Map.of(
            "{\"amount\":400,\"method\":\"bank_transfer\",\"destination\":{\"account_no\":\"0000000001\","
                + "\"bank_code\":\"BOPIPHMMXXX\",\"first_name\":\"A\",\"last_name\":\"B\"}}",
            "account_closed",
            "{\"amount\":300,\"method\":\"ewallet1\",\"destination\":{\"account_no\":\"09000000002\"}}",
            "invalid_account",
            "{\"amount\":200,\"method\":\"bank_transfer\",\"destination\":{\"account_no\":\"0000000003\","
                + "\"bankCode\":\"MBTCPHMMXXX\",\"account_name\":\"A B\"}}",
            "account_name_mismatch",
            "{\"amount\":100,\"method\":\"ewallet1\",\"destination\":{\"account_no\":\"09000000003\"}}",
            "wallet_limit_exceeded");
    List<String> failed = new ArrayList<>();
    cases.forEach(
        (body, code) -> {
          JsonNode payout = payout(merchant, body).body();
          assertEquals("failed", payout.get("status").asText(), body);
          assertEquals(code, payout.at("/failure/code").asText());
          assertFalse(payout.get("failed_at").isNull());
          assertEquals(List.of("payout.failed"), service().eventTypes(payout.get("id").asText()));
          assertEquals(
              payout.get("amount").decimalValue(),
              ledger.holdOf(payout.get("id").asText()).amount(),
              "held before the rail refused it");
          failed.add(payout.get("id").asText());
        });
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> ledger.available(merchant, "test").compareTo(new BigDecimal("1000")) == 0);
    failed.forEach(id -> assertEquals("reversed", ledger.holdOf(id).status()));
  }

  @Test
  void theFailHelperReportsTheReasonAsked() {
    String merchant = merchantWith("500");
    String id =
        payout(
                merchant,
                "{\"amount\":100,\"method\":\"ewallet1\",\"destination\":{\"account_no\":"
                    + "\"09000000009\"}}")
            .body()
            .get("id")
            .asText();
    CommandReply failed =
        service()
            .dispatch(
                ServiceClient.command(
                    "test_helpers.payouts.fail",
                    merchant,
                    "test",
                    id,
                    "{\"code\":\"wallet_limit_exceeded\",\"message\":\"Limit reached.\"}"));
    assertEquals(200, failed.status(), failed.body().toString());
    assertEquals("failed", failed.body().get("status").asText());
    assertEquals("wallet_limit_exceeded", failed.body().at("/failure/code").asText());
    assertEquals("Limit reached.", failed.body().at("/failure/message").asText());
  }

  @Test
  void aStalledPayoutStaysProcessingUntilATestHelperDecides() {
    String merchant = merchantWith("500");
    JsonNode payout =
        payout(
                merchant,
                "{\"amount\":250,\"method\":\"bank_transfer\",\"destination\":{\"account_no\":"
                    + "\"0000000009\",\"bank_code\":\"UBPHPHMMXXX\",\"first_name\":\"A\",\"last_name\":\"B\"}}")
            .body();
    String id = payout.get("id").asText();
    assertEquals("processing", payout.get("status").asText());
    assertEquals(List.of(), service().eventTypes(id), "no event for processing");

    JsonNode failed = helper(merchant, "fail", id).body();
    assertEquals("failed", failed.get("status").asText());
    assertEquals("payout_rejected", failed.at("/failure/code").asText());
    assertEquals(List.of("payout.failed"), service().eventTypes(id));
    CommandReply again = helper(merchant, "succeed", id);
    assertEquals(400, again.status());
    assertEquals("invalid_state", again.body().at("/error/code").asText());
    assertEquals(
        List.of("payout.failed"), service().eventTypes(id), "a refused helper writes nothing");
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> ledger.available(merchant, "test").compareTo(new BigDecimal("500")) == 0);
  }

  @Test
  void batchPayoutsWaitForTheNextCutOff() {
    String merchant = merchantWith("5000");
    try {
      batchPayouts(merchant);
    } finally {
      clock.set(Instant.now());
    }
  }

  private void batchPayouts(String merchant) {
    // Wednesday 2026-11-25, 09:30 in Manila.
    clock.set(Instant.parse("2026-11-25T01:30:00Z"));
    String paid =
        payout(
                merchant,
                "{\"amount\":1000,\"method\":\"bank_transfer_nrt\",\"destination\":" + BANK + "}")
            .body()
            .get("id")
            .asText();
    String refused =
        payout(
                merchant,
                "{\"amount\":700,\"method\":\"bank_transfer_nrt\",\"destination\":{\"account_no\":"
                    + "\"0000000002\",\"bank_code\":\"TLBPPHMMXXX\",\"first_name\":\"A\",\"last_name\":\"B\"}}")
            .body()
            .get("id")
            .asText();
    assertEquals("pending", read(merchant, paid).get("status").asText());
    assertEquals(new BigDecimal("3300.00"), ledger.available(merchant, "test"), "held at creation");
    batches.sendDue();
    assertEquals(
        "pending", read(merchant, paid).get("status").asText(), "before the 10:00 cut-off");
    assertEquals(List.of(), service().eventTypes(paid));

    clock.set(Instant.parse("2026-11-25T02:00:01Z")); // 10:00:01 in Manila
    batches.sendDue();
    assertEquals("succeeded", read(merchant, paid).get("status").asText());
    assertEquals(List.of("payout.succeeded"), service().eventTypes(paid));
    JsonNode failed = read(merchant, refused);
    assertEquals("failed", failed.get("status").asText());
    assertEquals("invalid_account", failed.at("/failure/code").asText());
    assertEquals(List.of("payout.failed"), service().eventTypes(refused));

    // Friday after the last cut-off: the batch is Monday's first.
    clock.set(Instant.parse("2026-11-27T07:30:00Z")); // Friday 15:30
    String weekend =
        payout(
                merchant,
                "{\"amount\":100,\"method\":\"bank_transfer_nrt\",\"destination\":" + BANK + "}")
            .body()
            .get("id")
            .asText();
    clock.set(Instant.parse("2026-11-30T01:59:59Z")); // Monday 09:59:59
    batches.sendDue();
    assertEquals("pending", read(merchant, weekend).get("status").asText());
    clock.set(Instant.parse("2026-11-30T02:00:00Z"));
    batches.sendDue();
    assertEquals("succeeded", read(merchant, weekend).get("status").asText());
  }

  @Test
  void testHelpersSettleABatchPayoutAndOnlyInTestMode() {
    String merchant = merchantWith("300");
    String id =
        payout(
                merchant,
                "{\"amount\":100,\"method\":\"bank_transfer_nrt\",\"destination\":" + BANK + "}")
            .body()
            .get("id")
            .asText();
    JsonNode succeeded = helper(merchant, "succeed", id).body();
    assertEquals("succeeded", succeeded.get("status").asText());
    assertEquals(List.of("payout.succeeded"), service().eventTypes(id));

    ledger.credit(merchant, "live", "300");
    String live =
        service()
            .dispatch(
                ServiceClient.command(
                    "payouts.create",
                    merchant,
                    "live",
                    IdType.PAYOUT.generate(),
                    "{\"amount\":100,\"method\":\"bank_transfer_nrt\",\"destination\":"
                        + BANK
                        + "}"))
            .body()
            .get("id")
            .asText();
    CommandReply liveHelper =
        service()
            .dispatch(
                ServiceClient.command(
                    "test_helpers.payouts.succeed", merchant, "live", live, null));
    assertEquals(404, liveHelper.status());
    assertEquals(401, service().get("/internal/payouts/" + live, merchant, "test").statusCode());
    assertEquals(
        404,
        service()
            .get("/internal/payouts/" + live, IdType.MERCHANT.generate(), "live")
            .statusCode());
  }

  @Test
  void aRetriedPayoutCommandCreatesOnePayoutAndTakesOneHold() {
    String merchant = merchantWith("1000");
    Command command =
        ServiceClient.command(
            "payouts.create",
            merchant,
            "test",
            IdType.PAYOUT.generate(),
            "{\"amount\":400,\"method\":\"ewallet1\",\"destination\":" + WALLET + "}");
    CommandReply first = service().dispatch(command);
    CommandReply second = service().dispatch(command);
    assertEquals(first, second, "the one reply, queued once");
    assertEquals(1, ledger.asked().stream().filter(h -> h.merchantId().equals(merchant)).count());
    assertEquals(new BigDecimal("600.00"), ledger.available(merchant, "test"));
    assertEquals(List.of("payout.succeeded"), service().eventTypes(command.resourceId()));
  }

  @Test
  void anUnreachableLedgerFailsTheCommandAndAnAnswerLostAfterTheHoldIsRetriedSafely() {
    String merchant = merchantWith("1000");
    Command command =
        ServiceClient.command(
            "payouts.create",
            merchant,
            "test",
            IdType.PAYOUT.generate(),
            "{\"amount\":300,\"method\":\"ewallet1\",\"destination\":" + WALLET + "}");
    ledger.unreachable(true);
    try {
      assertThrows(RuntimeException.class, () -> service().dispatch(command));
    } finally {
      ledger.unreachable(false);
    }
    assertNull(service().replyTo(command.commandId()), "no answer: the command will be retried");
    assertEquals(
        404,
        service().get("/internal/payouts/" + command.resourceId(), merchant, "test").statusCode());

    ledger.loseNextAnswer();
    assertThrows(RuntimeException.class, () -> service().dispatch(command));
    assertNotNull(ledger.holdOf(command.resourceId()), "the ledger took the hold");
    assertEquals(
        404,
        service().get("/internal/payouts/" + command.resourceId(), merchant, "test").statusCode());

    CommandReply retried = service().dispatch(command);
    assertEquals(201, retried.status(), retried.body().toString());
    assertEquals(2, ledger.asked().stream().filter(h -> h.merchantId().equals(merchant)).count());
    assertEquals(new BigDecimal("700.00"), ledger.available(merchant, "test"), "held once");
  }

  /**
   * Issue 14, item 8: the hold is taken, then the payout's transaction fails (injected), and the
   * command is never retried successfully. The reconciler leaves the hold alone within the grace
   * period, releases it after (once, with the balance restored), and a retry that comes after the
   * release is refused: it neither creates a payout nor takes a new hold.
   */
  @Test
  void aHoldWhosePayoutNeverCommittedIsReleasedAndALateRetryIsRefused() {
    String merchant = merchantWith("1000");
    Command command =
        ServiceClient.command(
            "payouts.create",
            merchant,
            "test",
            IdType.PAYOUT.generate(),
            "{\"amount\":400,\"method\":\"ewallet1\",\"destination\":" + WALLET + "}");
    String id = command.resourceId();
    moves.failCreations(true);
    try {
      assertThrows(RuntimeException.class, () -> service().dispatch(command));
    } finally {
      moves.failCreations(false);
    }
    assertEquals("held", ledger.holdOf(id).status(), "the hold committed before the failure");
    assertEquals(new BigDecimal("600.00"), ledger.available(merchant, "test"));
    assertEquals(404, service().get("/internal/payouts/" + id, merchant, "test").statusCode());

    reconciler.releaseOrphans();
    assertEquals("held", ledger.holdOf(id).status(), "within the grace period: left alone");

    clock.advance(Duration.ofMinutes(16));
    reconciler.releaseOrphans();
    assertEquals("reversed", ledger.holdOf(id).status());
    assertEquals(new BigDecimal("1000.00"), ledger.available(merchant, "test"), "restored");
    reconciler.releaseOrphans();
    assertEquals(
        1, ledger.released().stream().filter(id::equals).count(), "released once, not again");

    long asked = ledger.asked().stream().filter(h -> h.payoutId().equals(id)).count();
    CommandReply late = service().dispatch(command);
    assertEquals(400, late.status(), late.body().toString());
    assertEquals("invalid_state", late.body().at("/error/code").asText());
    assertEquals(404, service().get("/internal/payouts/" + id, merchant, "test").statusCode());
    assertEquals(
        asked,
        ledger.asked().stream().filter(h -> h.payoutId().equals(id)).count(),
        "no new hold was asked for a released payout");
    assertEquals(new BigDecimal("1000.00"), ledger.available(merchant, "test"));
  }

  /**
   * The reconciler walks every old hold, a page at a time: more orphans than one page (100) are all
   * released in one pass, so long-lived holds of payouts in flight cannot hide the orphans behind
   * them.
   */
  @Test
  void everyOrphanIsFoundWhenThereAreMoreThanAPageOfOldHolds() {
    String merchant = merchantWith("0");
    Instant longAgo = clock.instant().minus(Duration.ofHours(2));
    List<String> orphans = new ArrayList<>();
    for (int i = 0; i < 250; i++) {
      String id = IdType.PAYOUT.generate();
      ledger.heldWithoutPayout(id, merchant, "test", "1.00", longAgo.plusMillis(i / 3));
      orphans.add(id);
    }
    reconciler.releaseOrphans();
    for (String id : orphans) {
      assertEquals("reversed", ledger.holdOf(id).status(), id);
    }
  }

  /**
   * The race of item 8 the other way round: a command still being retried keeps its hold (its asks
   * are recent), and a retry whose transaction holds the hold's row while the reconciler runs wins:
   * the reconciler waits for it, then sees the payout and releases nothing.
   */
  @Test
  void aRetryInFlightKeepsItsHoldAndACommitUnderwayWinsTheRace() throws Exception {
    String merchant = merchantWith("1000");
    Command command =
        ServiceClient.command(
            "payouts.create",
            merchant,
            "test",
            IdType.PAYOUT.generate(),
            "{\"amount\":300,\"method\":\"ewallet1\",\"destination\":" + WALLET + "}");
    String id = command.resourceId();
    moves.failCreations(true);
    try {
      assertThrows(RuntimeException.class, () -> service().dispatch(command));
      clock.advance(Duration.ofMinutes(16));
      assertThrows(RuntimeException.class, () -> service().dispatch(command)); // retried now
    } finally {
      moves.failCreations(false);
    }
    reconciler.releaseOrphans();
    assertEquals("held", ledger.holdOf(id).status(), "a command tried within the grace: kept");

    // The retry asks (prepare) and the grace passes before its transaction runs; the transaction
    // then holds the row lock while the reconciler decides.
    Envelope envelope =
        new Envelope(
            IdType.MESSAGE.generate(),
            "command.payouts.create",
            command.commandId(),
            Instant.now(),
            Json.toBytes(command));
    dispatcher.prepare(envelope);
    clock.advance(Duration.ofMinutes(16));
    CountDownLatch reached = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    moves.pauseNextCreation(reached, proceed);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      Future<?> creating =
          threads.submit(() -> transactions.inTransaction(c -> dispatcher.dispatch(c, envelope)));
      assertTrue(reached.await(30, TimeUnit.SECONDS), "the creation reached its pause");
      Future<Integer> reconciling = threads.submit(() -> reconciler.releaseOrphans());
      Thread.sleep(300); // the reconciler is now waiting for the row lock
      assertFalse(reconciling.isDone(), "the reconciler waits for the creating transaction");
      proceed.countDown();
      creating.get(30, TimeUnit.SECONDS);
      reconciling.get(30, TimeUnit.SECONDS);
    } finally {
      proceed.countDown();
      threads.shutdownNow();
    }
    CommandReply reply = service().replyTo(command.commandId());
    assertEquals(201, reply.status(), reply.body().toString());
    assertFalse(ledger.released().contains(id), "the payout exists: its hold is not released");
    assertNotEquals("reversed", ledger.holdOf(id).status());
    assertEquals(new BigDecimal("700.00"), ledger.available(merchant, "test"), "held once");
  }

  @Test
  void aMerchantTakesAPaymentRefundsPartOfItAndPaysOutTheRest() {
    String merchant = IdType.MERCHANT.generate();
    String payment =
        service()
            .dispatch(
                ServiceClient.command(
                    "payments.create",
                    merchant,
                    "test",
                    IdType.PAYMENT.generate(),
                    "{\"amount\":1000,\"method\":\"card\",\"merchant_name\":\"Sari-Sari\"}"))
            .body()
            .get("id")
            .asText();
    service()
        .dispatch(
            ServiceClient.command(
                "test_helpers.payments.succeed", merchant, "test", payment, null));
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> ledger.available(merchant, "test").compareTo(new BigDecimal("950.00")) == 0);

    CommandReply refund =
        service()
            .dispatch(
                ServiceClient.command(
                    "refunds.create",
                    merchant,
                    "test",
                    IdType.REFUND.generate(),
                    "{\"payment\":\""
                        + payment
                        + "\",\"amount\":200,\"reason\":\"requested_by_customer\"}"));
    assertEquals("succeeded", refund.body().get("status").asText());
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> ledger.available(merchant, "test").compareTo(new BigDecimal("750.00")) == 0);

    JsonNode payout =
        payout(merchant, "{\"amount\":750,\"method\":\"ewallet1\",\"destination\":" + WALLET + "}")
            .body();
    assertEquals("succeeded", payout.get("status").asText());
    assertEquals(new BigDecimal("0.00"), ledger.available(merchant, "test"));

    List<String> expected =
        List.of(
            "payment.processing",
            "payment.succeeded",
            "refund.created",
            "refund.succeeded",
            "payout.succeeded");
    // The log lists only what no transaction still in flight can precede: wait for the horizon.
    await().atMost(Duration.ofSeconds(10)).until(() -> eventTypes(merchant).size() == 5);
    assertEquals(expected, eventTypes(merchant));
  }

  @Test
  void theBankRegistryIsPagedByCode() {
    JsonNode first = service().json("/internal/payout-banks", IdType.MERCHANT.generate(), "test");
    assertEquals(25, first.get("data").size(), "the default page");
    assertTrue(first.get("has_more").asBoolean());
    String last = first.get("data").get(24).get("code").asText();
    JsonNode rest =
        service()
            .json(
                "/internal/payout-banks?limit=100&starting_after=" + last,
                IdType.MERCHANT.generate(),
                "test");
    assertFalse(rest.get("has_more").asBoolean());
    assertTrue(rest.get("data").get(0).get("code").asText().compareTo(last) > 0);
    JsonNode two =
        service().json("/internal/payout-banks?limit=2", IdType.MERCHANT.generate(), "test");
    assertEquals(2, two.get("data").size());
    assertEquals(first.get("data").get(1), two.get("data").get(1));
  }

  @Test
  void theBankRegistryIsLoadedFromItsDataFile() throws Exception {
    JsonNode list =
        service().json("/internal/payout-banks?limit=100", IdType.MERCHANT.generate(), "test");
    assertEquals("list", list.get("object").asText());
    assertFalse(list.get("has_more").asBoolean());
    long rows;
    try (var in = getClass().getClassLoader().getResourceAsStream("db/data/payout_banks.csv")) {
      rows =
          new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                  .lines()
                  .filter(l -> !l.isBlank() && !l.startsWith("#"))
                  .count()
              - 1;
    }
    assertEquals(rows, list.get("data").size());
    List<String> codes = new ArrayList<>();
    Map<String, JsonNode> byCode = new HashMap<>();
    for (JsonNode bank : list.get("data")) {
      codes.add(bank.get("code").asText());
      byCode.put(bank.get("code").asText(), bank);
      List<String> fields = new ArrayList<>();
      bank.fieldNames().forEachRemaining(fields::add);
      assertEquals(List.of("code", "name", "brstn", "status"), fields);
    }
    assertEquals(codes.stream().sorted().toList(), codes);
    assertEquals("BDO Unibank, Inc.", byCode.get("BNORPHMMXXX").get("name").asText());
    assertEquals("010530667", byCode.get("BNORPHMMXXX").get("brstn").asText());
    assertEquals(1, byCode.get("GXCHPHM2XXX").get("status").asInt());
    assertTrue(byCode.get("GXCHPHM2XXX").get("brstn").isNull());
    assertEquals(0, byCode.get("ROBPPHMQXXX").get("status").asInt());
  }

  @Test
  void reloadingTheRegistryKeepsACodeThatLeftTheFileAsInactive() {
    try {
      transactions.inTransaction(
          c -> {
            try (var insert =
                c.prepareStatement(
                    "INSERT INTO payout_banks (code, name, kind, brstn, status, updated_at)"
                        + " VALUES ('ZZZZPHMMXXX', 'Gone Bank', 'bank', NULL, 1, now())")) {
              insert.executeUpdate();
            }
            new db.migration.R__Payout_bank_registry().migrate(flywayContext(c));
            return null;
          });
      Map<String, Integer> status = new HashMap<>();
      service()
          .json("/internal/payout-banks?limit=100", IdType.MERCHANT.generate(), "test")
          .get("data")
          .forEach(b -> status.put(b.get("code").asText(), b.get("status").asInt()));
      assertEquals(0, status.get("ZZZZPHMMXXX"), "kept, never deleted: old payouts name it");
      assertEquals(1, status.get("BNORPHMMXXX"));
      CommandReply refused =
          payout(
              merchantWith("1000"),
              "{\"amount\":100,\"method\":\"bank_transfer\",\"destination\":{\"account_no\":"
                  + "\"1234567890\",\"bank_code\":\"ZZZZPHMMXXX\",\"first_name\":\"A\","
                  + "\"last_name\":\"B\"}}");
      assertEquals(400, refused.status());
    } finally {
      transactions.inTransaction(
          c ->
              c.prepareStatement("DELETE FROM payout_banks WHERE code = 'ZZZZPHMMXXX'")
                  .executeUpdate());
    }
  }

  private static org.flywaydb.core.api.migration.Context flywayContext(java.sql.Connection c) {
    return new org.flywaydb.core.api.migration.Context() {
      @Override
      public org.flywaydb.core.api.configuration.Configuration getConfiguration() {
        return null;
      }

      @Override
      public java.sql.Connection getConnection() {
        return c;
      }
    };
  }

  @Test
  void listsFilterByStatus() {
    String merchant = merchantWith("1000");
    String paid =
        payout(merchant, "{\"amount\":100,\"method\":\"ewallet1\",\"destination\":" + WALLET + "}")
            .body()
            .get("id")
            .asText();
    String pending =
        payout(
                merchant,
                "{\"amount\":100,\"method\":\"bank_transfer_nrt\",\"destination\":" + BANK + "}")
            .body()
            .get("id")
            .asText();
    assertEquals(
        List.of(paid, pending), ids(service().json("/internal/payouts", merchant, "test")));
    assertEquals(
        List.of(pending),
        ids(service().json("/internal/payouts?status=pending", merchant, "test")));
    assertEquals(List.of(paid), ids(service().json("/internal/payouts?limit=1", merchant, "test")));
    assertEquals(
        List.of(pending),
        ids(service().json("/internal/payouts?starting_after=" + paid, merchant, "test")));
    assertEquals(
        400, service().get("/internal/payouts?status=paid", merchant, "test").statusCode());
  }

  private String merchantWith(String balance) {
    String merchant = IdType.MERCHANT.generate();
    ledger.credit(merchant, "test", balance);
    return merchant;
  }

  private CommandReply payout(String merchant, String body) {
    return service()
        .dispatch(
            ServiceClient.command(
                "payouts.create", merchant, "test", IdType.PAYOUT.generate(), body));
  }

  private CommandReply helper(String merchant, String action, String payoutId) {
    return service()
        .dispatch(
            ServiceClient.command(
                "test_helpers.payouts." + action, merchant, "test", payoutId, null));
  }

  private JsonNode read(String merchant, String payoutId) {
    return service().json("/internal/payouts/" + payoutId, merchant, "test");
  }

  private List<String> eventTypes(String merchant) {
    List<String> types = new ArrayList<>();
    service()
        .json("/internal/events?limit=100", merchant, "test")
        .get("data")
        .forEach(e -> types.add(e.get("type").asText()));
    return types;
  }

  private static List<String> ids(JsonNode list) {
    List<String> ids = new ArrayList<>();
    list.get("data").forEach(p -> ids.add(p.get("id").asText()));
    return ids;
  }
}
