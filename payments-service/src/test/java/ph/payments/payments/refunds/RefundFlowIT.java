package ph.payments.payments.refunds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.payments.payments.MovableClock;
import ph.payments.payments.providers.CallbackSignatures;
import ph.payments.payments.providers.ProviderCallback;
import ph.payments.payments.support.ServiceClient;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * Refunds in payments-service: the payment's state and what remains refundable (also when refunds
 * race for the last centavo), the move to {@code refunded} without a payment event, each sandbox
 * method's behaviour, test helpers and replayed or forged provider callbacks, retried commands, the
 * events each transition writes (and nothing else), and reads.
 */
@MicronautTest(transactional = false)
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RefundFlowIT implements TestPropertyProvider {

  private static final String TOKEN = "internal-token-for-refund-flow-it";
  private static final String CALLBACK_SECRET = "sandbox-secret-for-refund-flow-it";

  @Inject CommandDispatcher dispatcher;
  @Inject Transactions transactions;
  @Inject EmbeddedServer server;
  @Inject MovableClock clock;

  private ServiceClient service;

  @Override
  public Map<String, String> getProperties() {
    TestDatabase database = TestDatabase.forClass(getClass());
    Map<String, String> properties = new HashMap<>();
    properties.put("spec.name", "RefundFlowIT");
    // Live mode here is the simulated connector, named explicitly (no_route otherwise).
    properties.put("payments.live-connectors", "simulated");
    properties.put("datasources.default.url", database.jdbcUrl());
    properties.put("datasources.default.username", database.user());
    properties.put("kafka.bootstrap.servers", TestKafka.bootstrapServers());
    properties.put("micronaut.server.port", "-1");
    properties.put("internal.token", TOKEN);
    properties.put("payments.sandbox.callback-secret", CALLBACK_SECRET);
    properties.put("payments.expiry-sweep", "1h");
    properties.put("payments.sandbox.batch-sweep", "1h");
    return properties;
  }

  private ServiceClient service() {
    if (service == null) {
      service = new ServiceClient(dispatcher, transactions, server.getURL().toString(), TOKEN);
    }
    return service;
  }

  @Test
  void cardAndWalletRefundsSucceedAtOnceAndThePaymentStaysSucceeded() {
    String merchant = IdType.MERCHANT.generate();
    for (String method : List.of("card", "ewallet1", "ewallet1_qr")) {
      String payment = succeededPayment(merchant, method, "1000");
      CommandReply reply =
          refund(
              merchant,
              "{\"payment\":\"" + payment + "\",\"amount\":300,\"reason\":\"duplicate\"}");
      assertEquals(201, reply.status(), reply.body().toString());
      JsonNode refund = reply.body();
      assertEquals("succeeded", refund.get("status").asText(), method);
      assertEquals(payment, refund.get("payment").asText());
      assertEquals("300.00", refund.get("amount").decimalValue().toPlainString());
      assertEquals("PHP", refund.get("currency").asText());
      assertEquals("duplicate", refund.get("reason").asText());
      assertFalse(refund.get("succeeded_at").isNull());
      assertTrue(refund.get("provider_ref").asText().startsWith("sbr_"));
      List<String> fields = new ArrayList<>();
      refund.fieldNames().forEachRemaining(fields::add);
      assertEquals(
          List.of(
              "id",
              "object",
              "environment",
              "payment",
              "amount",
              "currency",
              "status",
              "reason",
              "provider_ref",
              "failure",
              "succeeded_at",
              "failed_at",
              "created"),
          fields);

      String id = refund.get("id").asText();
      List<JsonNode> events = service().events(id);
      assertEquals(List.of("refund.created", "refund.succeeded"), service().eventTypes(id));
      assertEquals("pending", events.get(0).at("/data/object/status").asText(), "as handed over");
      assertEquals(refund, events.get(1).at("/data/object"));
      assertEquals(List.of(payment, payment), service().eventKeys(id), "keyed by the payment");
      assertEquals("succeeded", payment(merchant, payment).get("status").asText());
      assertEquals(
          List.of("payment.processing", "payment.succeeded"), service().eventTypes(payment));
      assertEquals(refund, service().json("/internal/refunds/" + id, merchant, "test"));
    }
  }

  @Test
  void theRefundThatCompletesTheAmountMovesThePaymentToRefundedWithoutAPaymentEvent() {
    String merchant = IdType.MERCHANT.generate();
    String payment = succeededPayment(merchant, "card", "250.50");
    refund(merchant, "{\"payment\":\"" + payment + "\",\"amount\":50.25}");
    JsonNode rest = refund(merchant, "{\"payment\":\"" + payment + "\"}").body();
    assertEquals(
        "200.25", rest.get("amount").decimalValue().toPlainString(), "omitted: what remains");
    assertEquals("succeeded", rest.get("status").asText());
    JsonNode refunded = payment(merchant, payment);
    assertEquals("refunded", refunded.get("status").asText());
    assertFalse(refunded.get("receipt_url").isNull());
    assertEquals(
        List.of("payment.processing", "payment.succeeded"),
        service().eventTypes(payment),
        "no payment.refunded: refund.succeeded announces it");
    assertEquals(
        "250.50", refundedAmount(payment), "refunded_amount is the sum of succeeded refunds");

    CommandReply again = refund(merchant, "{\"payment\":\"" + payment + "\",\"amount\":0.01}");
    assertEquals(400, again.status());
    assertEquals("invalid_state", again.body().at("/error/code").asText());
  }

  @Test
  void onlyASucceededPaymentOfTheMerchantsEnvironmentCanBeRefunded() {
    String merchant = IdType.MERCHANT.generate();
    String pending = created(merchant, "test", "card", "100");
    String failed = created(merchant, "test", "card", "100");
    service()
        .dispatch(
            ServiceClient.command("test_helpers.payments.fail", merchant, "test", failed, null));
    for (String payment : List.of(pending, failed)) {
      CommandReply reply = refund(merchant, "{\"payment\":\"" + payment + "\"}");
      assertEquals(400, reply.status());
      assertEquals("invalid_state", reply.body().at("/error/code").asText());
    }
    assertEquals(
        404, refund(merchant, "{\"payment\":\"" + IdType.PAYMENT.generate() + "\"}").status());
    String theirs = succeededPayment(IdType.MERCHANT.generate(), "card", "100");
    assertEquals(404, refund(merchant, "{\"payment\":\"" + theirs + "\"}").status());
    String live = created(merchant, "live", "card", "100");
    CommandReply otherEnvironment = refund(merchant, "{\"payment\":\"" + live + "\"}");
    assertEquals(401, otherEnvironment.status());
    assertEquals("unauthenticated", otherEnvironment.body().at("/error/code").asText());
    assertEquals(0, service().json("/internal/refunds", merchant, "test").get("data").size());
  }

  @Test
  void anAmountAboveWhatRemainsIsRefusedAndAFailedRefundFreesItsAmount() {
    String merchant = IdType.MERCHANT.generate();
    String payment = succeededPayment(merchant, "bank_transfer", "100");
    JsonNode first = refund(merchant, "{\"payment\":\"" + payment + "\",\"amount\":60}").body();
    assertEquals("processing", first.get("status").asText());

    CommandReply tooMuch = refund(merchant, "{\"payment\":\"" + payment + "\",\"amount\":40.01}");
    assertEquals(400, tooMuch.status());
    assertEquals("invalid_request", tooMuch.body().at("/error/code").asText());
    assertTrue(tooMuch.body().at("/error/issues/amount").asText().contains("40.00"));

    JsonNode failed = helper(merchant, "fail", first.get("id").asText()).body();
    assertEquals("failed", failed.get("status").asText());
    assertEquals("refund_declined", failed.at("/failure/code").asText());
    assertFalse(failed.get("failed_at").isNull());
    assertEquals("succeeded", payment(merchant, payment).get("status").asText());

    JsonNode whole = refund(merchant, "{\"payment\":\"" + payment + "\"}").body();
    assertEquals(
        "100.00", whole.get("amount").decimalValue().toPlainString(), "the failed 60 is free");
    CommandReply nothingLeft = refund(merchant, "{\"payment\":\"" + payment + "\"}");
    assertEquals(400, nothingLeft.status());
    assertTrue(nothingLeft.body().at("/error/issues/amount").isTextual());
  }

  @Test
  void magicAmountsMakeASandboxRefundFailOrWaitAndFailTakesTheReasonAsked() {
    String merchant = IdType.MERCHANT.generate();
    String payment = succeededPayment(merchant, "card", "500");
    JsonNode declined =
        refund(merchant, "{\"payment\":\"" + payment + "\",\"amount\":91.91}").body();
    String declinedId = declined.get("id").asText();
    assertEquals("failed", declined.get("status").asText());
    assertEquals("refund_declined", declined.at("/failure/code").asText());
    assertEquals(List.of("refund.created", "refund.failed"), service().eventTypes(declinedId));

    JsonNode waiting =
        refund(merchant, "{\"payment\":\"" + payment + "\",\"amount\":92.92}").body();
    String waitingId = waiting.get("id").asText();
    assertEquals("processing", waiting.get("status").asText(), "a card refund would succeed");
    CommandReply failed =
        service()
            .dispatch(
                ServiceClient.command(
                    "test_helpers.refunds.fail",
                    merchant,
                    "test",
                    waitingId,
                    "{\"code\":\"account_closed\",\"message\":\"The card account is closed.\"}"));
    assertEquals(200, failed.status(), failed.body().toString());
    assertEquals("failed", failed.body().get("status").asText());
    assertEquals("account_closed", failed.body().at("/failure/code").asText());
    assertEquals("The card account is closed.", failed.body().at("/failure/message").asText());
    assertEquals(
        "500.00",
        refund(merchant, "{\"payment\":\"" + payment + "\"}")
            .body()
            .get("amount")
            .decimalValue()
            .toPlainString(),
        "both failed refunds left the amount refundable");
  }

  @Test
  void concurrentRefundsRacingForTheLastCentavosNeverPassTheAmount() throws Exception {
    String merchant = IdType.MERCHANT.generate();
    String payment = succeededPayment(merchant, "bank_transfer", "100");
    refund(merchant, "{\"payment\":\"" + payment + "\",\"amount\":99.95}");

    List<CommandReply> replies =
        race(10, () -> refund(merchant, "{\"payment\":\"" + payment + "\",\"amount\":0.01}"));
    assertEquals(5, replies.stream().filter(r -> r.status() == 201).count(), replies.toString());
    assertEquals(
        5,
        replies.stream()
            .filter(
                r ->
                    r.status() == 400
                        && r.body().at("/error/code").asText().equals("invalid_request"))
            .count());

    // Settle all six: the last one moves the payment to refunded, exactly at the amount.
    for (JsonNode refund :
        service()
            .json("/internal/refunds?payment=" + payment + "&limit=100", merchant, "test")
            .get("data")) {
      assertEquals(
          "succeeded",
          helper(merchant, "succeed", refund.get("id").asText()).body().get("status").asText());
    }
    assertEquals("refunded", payment(merchant, payment).get("status").asText());
    assertEquals("100.00", refundedAmount(payment));
  }

  @Test
  void concurrentInstantRefundsMoveThePaymentToRefundedOnce() throws Exception {
    String merchant = IdType.MERCHANT.generate();
    String payment = succeededPayment(merchant, "ewallet1", "1.00");
    List<CommandReply> replies =
        race(10, () -> refund(merchant, "{\"payment\":\"" + payment + "\",\"amount\":0.25}"));
    assertEquals(4, replies.stream().filter(r -> r.status() == 201).count(), replies.toString());
    assertTrue(replies.stream().filter(r -> r.status() != 201).allMatch(r -> r.status() == 400));
    assertEquals("refunded", payment(merchant, payment).get("status").asText());
    assertEquals("1.00", refundedAmount(payment));
  }

  @Test
  void bankTransferRefundsWaitAndQrPhRefundsAreQueuedForOperators() {
    String merchant = IdType.MERCHANT.generate();
    String bank = succeededPayment(merchant, "bank_transfer", "500");
    JsonNode processing = refund(merchant, "{\"payment\":\"" + bank + "\",\"amount\":100}").body();
    String processingId = processing.get("id").asText();
    assertEquals("processing", processing.get("status").asText());
    assertEquals(List.of("refund.created"), service().eventTypes(processingId));
    assertEquals(
        "processing", service().events(processingId).get(0).at("/data/object/status").asText());
    JsonNode succeeded = helper(merchant, "succeed", processingId).body();
    assertEquals("succeeded", succeeded.get("status").asText());
    assertEquals(List.of("refund.created", "refund.succeeded"), service().eventTypes(processingId));

    String qr = succeededPayment(merchant, "rail1_qr", "500");
    JsonNode manual = refund(merchant, "{\"payment\":\"" + qr + "\",\"reason\":\"other\"}").body();
    String manualId = manual.get("id").asText();
    assertEquals("pending_manual", manual.get("status").asText());
    assertEquals(List.of("refund.created"), service().eventTypes(manualId));
    assertEquals("succeeded", payment(merchant, qr).get("status").asText(), "not refunded yet");
    assertEquals("failed", helper(merchant, "fail", manualId).body().get("status").asText());
    assertEquals(List.of("refund.created", "refund.failed"), service().eventTypes(manualId));

    CommandReply decided = helper(merchant, "succeed", manualId);
    assertEquals(400, decided.status());
    assertEquals("invalid_state", decided.body().at("/error/code").asText());
    assertEquals(List.of("refund.created", "refund.failed"), service().eventTypes(manualId));
    assertEquals("succeeded", payment(merchant, qr).get("status").asText());
    assertEquals(
        404,
        service()
            .dispatch(
                ServiceClient.command(
                    "test_helpers.refunds.succeed", merchant, "live", manualId, null))
            .status(),
        "test helpers do not exist for live keys");
  }

  @Test
  void aRetriedCommandCreatesOneRefund() {
    String merchant = IdType.MERCHANT.generate();
    String payment = succeededPayment(merchant, "card", "100");
    Command command =
        ServiceClient.command(
            "refunds.create",
            merchant,
            "test",
            IdType.REFUND.generate(),
            "{\"payment\":\"" + payment + "\",\"amount\":10}");
    CommandReply first = service().dispatch(command);
    CommandReply second = service().dispatch(command);
    assertEquals(first, second);
    assertEquals(
        1,
        service()
            .json("/internal/refunds?payment=" + payment, merchant, "test")
            .get("data")
            .size());
    assertEquals(
        List.of("refund.created", "refund.succeeded"), service().eventTypes(command.resourceId()));
    assertEquals("10.00", refundedAmount(payment));
  }

  @Test
  void aProviderRefundCallbackIsAppliedOnceAndAForgedOneIsRefused() {
    String merchant = IdType.MERCHANT.generate();
    String payment = succeededPayment(merchant, "bank_transfer", "100");
    JsonNode refund = refund(merchant, "{\"payment\":\"" + payment + "\",\"amount\":100}").body();
    byte[] body =
        Json.toBytes(
            new ProviderCallback(
                "cb_refund_" + System.nanoTime(),
                ProviderCallback.REFUND_SUCCEEDED,
                refund.get("provider_ref").asText(),
                null,
                null));
    String signature = CallbackSignatures.sign(CALLBACK_SECRET.getBytes(), body, clock.instant());
    HttpResponse<String> forged = service().callback("sandbox_bank", body, "t=1,v1=00");
    assertEquals(401, forged.statusCode());
    HttpResponse<String> first = service().callback("sandbox_bank", body, signature);
    HttpResponse<String> second = service().callback("sandbox_bank", body, signature);
    assertTrue(first.body().contains("applied"), first.body());
    assertTrue(second.body().contains("duplicate"), second.body());
    assertEquals(
        List.of("refund.created", "refund.succeeded"),
        service().eventTypes(refund.get("id").asText()));
    assertEquals("refunded", payment(merchant, payment).get("status").asText());
  }

  @Test
  void listsFilterByStatusAndPaymentAndReadsKnowTheOtherEnvironment() {
    String merchant = IdType.MERCHANT.generate();
    String a = succeededPayment(merchant, "card", "100");
    String b = succeededPayment(merchant, "bank_transfer", "100");
    String ra =
        refund(merchant, "{\"payment\":\"" + a + "\",\"amount\":1}").body().get("id").asText();
    String rb =
        refund(merchant, "{\"payment\":\"" + b + "\",\"amount\":1}").body().get("id").asText();
    assertEquals(List.of(ra, rb), ids("/internal/refunds", merchant));
    assertEquals(List.of(rb), ids("/internal/refunds?payment=" + b, merchant));
    assertEquals(List.of(ra), ids("/internal/refunds?status=succeeded", merchant));
    assertEquals(List.of(rb), ids("/internal/refunds?status=processing&payment=" + b, merchant));
    assertEquals(List.of(rb), ids("/internal/refunds?starting_after=" + ra, merchant));
    assertEquals(
        400, service().get("/internal/refunds?status=done", merchant, "test").statusCode());
    assertEquals(400, service().get("/internal/refunds?payment=x", merchant, "test").statusCode());
    assertEquals(401, service().get("/internal/refunds/" + ra, merchant, "live").statusCode());
    assertEquals(
        404,
        service().get("/internal/refunds/" + ra, IdType.MERCHANT.generate(), "test").statusCode());
    assertEquals(0, service().json("/internal/refunds", merchant, "live").get("data").size());
  }

  private List<CommandReply> race(int n, Callable<CommandReply> task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<CommandReply>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return task.call();
                }));
      }
      start.countDown();
      List<CommandReply> replies = new ArrayList<>();
      for (Future<CommandReply> future : futures) {
        replies.add(future.get());
      }
      return replies;
    } finally {
      pool.shutdownNow();
    }
  }

  private String created(String merchant, String environment, String method, String amount) {
    CommandReply reply =
        service()
            .dispatch(
                ServiceClient.command(
                    "payments.create",
                    merchant,
                    environment,
                    IdType.PAYMENT.generate(),
                    "{\"amount\":"
                        + amount
                        + ",\"method\":\""
                        + method
                        + "\",\"merchant_name\":\"Shop\"}"));
    assertEquals(201, reply.status(), reply.body().toString());
    return reply.body().get("id").asText();
  }

  private String succeededPayment(String merchant, String method, String amount) {
    String id = created(merchant, "test", method, amount);
    CommandReply succeeded =
        service()
            .dispatch(
                ServiceClient.command("test_helpers.payments.succeed", merchant, "test", id, null));
    assertEquals("succeeded", succeeded.body().get("status").asText());
    return id;
  }

  private CommandReply refund(String merchant, String body) {
    return service()
        .dispatch(
            ServiceClient.command(
                "refunds.create", merchant, "test", IdType.REFUND.generate(), body));
  }

  private CommandReply helper(String merchant, String action, String refundId) {
    return service()
        .dispatch(
            ServiceClient.command(
                "test_helpers.refunds." + action, merchant, "test", refundId, null));
  }

  private JsonNode payment(String merchant, String id) {
    return service().json("/internal/payments/" + id, merchant, "test");
  }

  private String refundedAmount(String paymentId) {
    return transactions.inTransaction(
        c -> {
          try (var select =
              c.prepareStatement("SELECT refunded_amount FROM payments WHERE id = ?")) {
            select.setString(1, paymentId);
            try (var rs = select.executeQuery()) {
              rs.next();
              return rs.getBigDecimal(1).toPlainString();
            }
          }
        });
  }

  private List<String> ids(String path, String merchant) {
    List<String> ids = new ArrayList<>();
    service().json(path, merchant, "test").get("data").forEach(r -> ids.add(r.get("id").asText()));
    return ids;
  }
}
