package ph.payments.payments.refunds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * {@code refunds.settle_manual}, the operator's settlement of a live {@code pending_manual} (QR Ph)
 * refund: it moves the refund and the payment's refunded amount once, writes one {@code
 * refund.succeeded} or {@code refund.failed} event (what the ledger posts from), answers a retried
 * settlement with the same outcome and reference as it is, and refuses a contradicting or
 * concurrent second settlement, a test-mode refund and a refund in any other state.
 */
@MicronautTest(transactional = false)
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ManualRefundSettlementIT implements TestPropertyProvider {

  private static final String TOKEN = "internal-token-for-manual-refund-it";
  private static final String CALLBACK_SECRET = "sandbox-secret-for-manual-refund-it";

  @Inject CommandDispatcher dispatcher;
  @Inject Transactions transactions;
  @Inject EmbeddedServer server;
  @Inject MovableClock clock;

  private ServiceClient service;

  @Override
  public Map<String, String> getProperties() {
    TestDatabase database = TestDatabase.forClass(getClass());
    Map<String, String> properties = new HashMap<>();
    properties.put("spec.name", "RefundFlowIT"); // the MovableClock of the refund tests
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
  void aSucceededSettlementMovesTheMoneyOnceAndARetryAnswersTheSame() {
    String merchant = IdType.MERCHANT.generate();
    String payment = succeededLivePayment(merchant, "500");
    String refund = liveManualRefund(merchant, payment, "200");

    CommandReply settled = settle(refund, "succeeded", "QRPH-OPS-1001");
    assertEquals(200, settled.status(), settled.body().toString());
    assertEquals("succeeded", settled.body().get("status").asText());
    assertEquals("QRPH-OPS-1001", settled.body().at("/manual_settlement/reference").asText());
    assertEquals(merchant, settled.body().get("merchant").asText());
    assertEquals(List.of("refund.created", "refund.succeeded"), service().eventTypes(refund));
    assertEquals("200.00", refundedAmount(payment));

    CommandReply retried = settle(refund, "succeeded", "QRPH-OPS-1001");
    assertEquals(200, retried.status(), "the same settlement again is answered, not applied");
    assertEquals("succeeded", retried.body().get("status").asText());
    CommandReply contradicting = settle(refund, "failed", "QRPH-OPS-1001");
    assertEquals(400, contradicting.status());
    assertEquals("invalid_state", contradicting.body().at("/error/code").asText());
    CommandReply otherReference = settle(refund, "succeeded", "QRPH-OPS-9999");
    assertEquals(400, otherReference.status());
    assertEquals(List.of("refund.created", "refund.succeeded"), service().eventTypes(refund));
    assertEquals("200.00", refundedAmount(payment), "refunded once");
    // The merchant's own view of the refund does not show the operator's reference.
    JsonNode merchantView = service().json("/internal/refunds/" + refund, merchant, "live");
    assertEquals("succeeded", merchantView.get("status").asText());
    assertTrue(merchantView.get("manual_settlement") == null);
  }

  @Test
  void aFailedSettlementFreesTheAmountAndMovesNoMoney() {
    String merchant = IdType.MERCHANT.generate();
    String payment = succeededLivePayment(merchant, "300");
    String refund = liveManualRefund(merchant, payment, "300");
    CommandReply failed =
        settle(
            refund,
            "{\"outcome\":\"failed\",\"reference\":\"T-77\","
                + "\"failure_code\":\"account_closed\",\"failure_message\":\"Wallet closed.\"}");
    assertEquals(200, failed.status(), failed.body().toString());
    assertEquals("failed", failed.body().get("status").asText());
    assertEquals("account_closed", failed.body().at("/failure/code").asText());
    assertEquals(List.of("refund.created", "refund.failed"), service().eventTypes(refund));
    assertEquals("0.00", refundedAmount(payment));
    // The whole amount is refundable again.
    String again = liveManualRefund(merchant, payment, "300");
    assertEquals(200, settle(again, "succeeded", "T-78").status());
    assertEquals("300.00", refundedAmount(payment));
  }

  @Test
  void twoConcurrentSettlementsApplyOnce() throws Exception {
    String merchant = IdType.MERCHANT.generate();
    String payment = succeededLivePayment(merchant, "100");
    String refund = liveManualRefund(merchant, payment, "100");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<CommandReply>> futures = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        String reference = "R-" + i;
        String outcome = i % 2 == 0 ? "succeeded" : "failed";
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return settle(refund, outcome, reference);
                }));
      }
      start.countDown();
      int applied = 0;
      for (Future<CommandReply> future : futures) {
        CommandReply reply = future.get();
        if (reply.status() == 200) {
          applied++;
        } else {
          assertEquals("invalid_state", reply.body().at("/error/code").asText());
        }
      }
      assertEquals(1, applied);
    } finally {
      pool.shutdownNow();
    }
    List<String> types = service().eventTypes(refund);
    assertEquals(2, types.size(), types.toString());
    String expected = types.get(1).equals("refund.succeeded") ? "100.00" : "0.00";
    assertEquals(expected, refundedAmount(payment));
  }

  @Test
  void testModeAndOtherStatesAndBadRequestsAreRefused() {
    String merchant = IdType.MERCHANT.generate();
    // A test-mode QR Ph refund is pending_manual too, but only the test helpers decide it.
    String testPayment = created(merchant, "test", "rail1_qr", "100");
    service()
        .dispatch(
            ServiceClient.command(
                "test_helpers.payments.succeed", merchant, "test", testPayment, null));
    CommandReply testRefund =
        service()
            .dispatch(
                ServiceClient.command(
                    "refunds.create",
                    merchant,
                    "test",
                    IdType.REFUND.generate(),
                    "{\"payment\":\"" + testPayment + "\"}"));
    String testRefundId = testRefund.body().get("id").asText();
    assertEquals("pending_manual", testRefund.body().get("status").asText());
    CommandReply refused = settle(testRefundId, "succeeded", "X-1");
    assertEquals(400, refused.status());
    assertEquals("invalid_state", refused.body().at("/error/code").asText());
    assertTrue(refused.body().at("/error/message").asText().contains("test-mode"));
    assertEquals(List.of("refund.created"), service().eventTypes(testRefundId));
    assertEquals("0.00", refundedAmount(testPayment));

    // A live card refund succeeds at once: nothing to settle.
    String card = created(merchant, "live", "card", "100");
    paid(card, CallbackPayment.CARD);
    CommandReply cardRefund =
        service()
            .dispatch(
                ServiceClient.command(
                    "refunds.create",
                    merchant,
                    "live",
                    IdType.REFUND.generate(),
                    "{\"payment\":\"" + card + "\",\"amount\":10}"));
    String cardRefundId = cardRefund.body().get("id").asText();
    if (!"pending_manual".equals(cardRefund.body().get("status").asText())) {
      CommandReply notManual = settle(cardRefundId, "failed", "X-2");
      assertEquals(400, notManual.status());
      assertEquals("invalid_state", notManual.body().at("/error/code").asText());
    }

    String payment = succeededLivePayment(merchant, "50");
    String refund = liveManualRefund(merchant, payment, "50");
    CommandReply noReference = settle(refund, "{\"outcome\":\"succeeded\"}");
    assertEquals(400, noReference.status());
    assertEquals("invalid_request", noReference.body().at("/error/code").asText());
    CommandReply badOutcome = settle(refund, "{\"outcome\":\"refunded\",\"reference\":\"Y\"}");
    assertEquals(400, badOutcome.status());
    assertEquals(404, settle(IdType.REFUND.generate(), "succeeded", "Z").status());
    assertEquals(List.of("refund.created"), service().eventTypes(refund));
  }

  private enum CallbackPayment {
    QR,
    CARD
  }

  private CommandReply settle(String refund, String outcome, String reference) {
    return settle(refund, "{\"outcome\":\"" + outcome + "\",\"reference\":\"" + reference + "\"}");
  }

  private CommandReply settle(String refund, String body) {
    Command command = ServiceClient.command("refunds.settle_manual", null, null, refund, body);
    return service().dispatch(command);
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

  /** A live QR Ph payment, paid through the (simulated) provider's signed callback. */
  private String succeededLivePayment(String merchant, String amount) {
    String id = created(merchant, "live", "rail1_qr", amount);
    paid(id, CallbackPayment.QR);
    return id;
  }

  /** The provider reports the order paid, then captured, each in a signed callback. */
  private void paid(String paymentId, CallbackPayment kind) {
    JsonNode payment = paymentRow(paymentId);
    String provider = payment.get("provider").asText();
    for (String type : List.of(ProviderCallback.PAID, ProviderCallback.CAPTURED)) {
      byte[] body =
          Json.toBytes(
              new ProviderCallback(
                  "cb_" + kind + System.nanoTime(),
                  type,
                  payment.get("provider_ref").asText(),
                  null,
                  null));
      String signature = CallbackSignatures.sign(CALLBACK_SECRET.getBytes(), body, clock.instant());
      var answer = service().callback(provider, body, signature);
      assertEquals(200, answer.statusCode(), answer.body());
    }
    assertEquals("succeeded", paymentRow(paymentId).get("status").asText());
  }

  private String liveManualRefund(String merchant, String payment, String amount) {
    CommandReply reply =
        service()
            .dispatch(
                ServiceClient.command(
                    "refunds.create",
                    merchant,
                    "live",
                    IdType.REFUND.generate(),
                    "{\"payment\":\"" + payment + "\",\"amount\":" + amount + "}"));
    assertEquals(201, reply.status(), reply.body().toString());
    assertEquals("pending_manual", reply.body().get("status").asText());
    return reply.body().get("id").asText();
  }

  private JsonNode paymentRow(String id) {
    return transactions.inTransaction(
        c -> {
          try (var select =
              c.prepareStatement(
                  "SELECT status, provider, provider_ref FROM payments WHERE id = ?")) {
            select.setString(1, id);
            try (var rs = select.executeQuery()) {
              rs.next();
              var json = Json.mapper().createObjectNode();
              json.put("status", rs.getString(1));
              json.put("provider", rs.getString(2));
              json.put("provider_ref", rs.getString(3));
              return json;
            }
          }
        });
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
}
