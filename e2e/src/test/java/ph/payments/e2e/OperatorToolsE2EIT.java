package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator tools of issue 19 on the whole system (bin/run: real processes, Kafka, PostgreSQL):
 * a live QR Ph refund waits in {@code pending_manual}; the operator settles it through {@code POST
 * /admin/v1/refunds/{id}/settle} and the merchant's live balance drops by its amount in the ledger,
 * once (a second settlement is refused, a retry of the same answers the same, a test-mode refund
 * cannot be settled this way); each step is in {@code /admin/v1/audit}. An event the ledger cannot
 * post is listed under {@code /admin/v1/ledger/anomalies} and resolved; the outbox of every service
 * and a merchant's command log are readable.
 */
@ExtendWith(SharedSystem.class)
class OperatorToolsE2EIT {

  private static final String CALLBACK_SECRET = SharedSystem.SANDBOX_CALLBACK_SECRET;

  /** Message ids of the one event this test forges (the topic contract test skips it). */
  static final String FORGED_PREFIX = "msg_forgedbyoperatortoolse2e";

  private static SystemUnderTest system;
  private static Merchant operator;

  @BeforeAll
  static void start(SystemUnderTest shared) throws Exception {
    system = shared; // its sandbox provider signs callbacks with CALLBACK_SECRET
    operator = new Merchant(system.gatewayUrl(), system.adminToken);
  }

  @Test
  void aLivePendingManualRefundIsSettledOnceAndTheLedgerDebitsIt() throws Exception {
    JsonNode signedUp =
        operator
            .post("/admin/v1/merchants", "{\"name\":\"QR Kiosk\",\"email\":\"k@example.com\"}")
            .created();
    String merchantId = signedUp.get("id").asText();
    Merchant test = new Merchant(system.gatewayUrl(), signedUp.at("/api_keys/0/secret").asText());
    JsonNode activated = operator.post("/admin/v1/merchants/" + merchantId + "/activate", "").ok();
    String liveSecret = null;
    for (JsonNode key : activated.get("api_keys")) {
      if ("live".equals(key.get("environment").asText()) && key.hasNonNull("secret")) {
        liveSecret = key.get("secret").asText();
      }
    }
    assertNotNull(liveSecret, activated.toString());
    Merchant live = new Merchant(system.gatewayUrl(), liveSecret);

    // A live QR Ph payment, paid as the (simulated) provider reports it: signed callbacks.
    JsonNode payment =
        live.post("/v1/payments", "{\"amount\":500,\"method\":\"rail1_qr\"}").created();
    String paymentId = payment.get("id").asText();
    for (String type : List.of("order.paid", "order.captured")) {
      providerCallback(
          payment.get("provider").asText(), type, payment.get("provider_ref").asText());
    }
    assertEquals("succeeded", awaitStatus(live, "/v1/payments/" + paymentId, "succeeded"));
    String afterPayment = awaitAvailableChange(live, null);

    JsonNode refund =
        live.post("/v1/refunds", "{\"payment\":\"" + paymentId + "\",\"amount\":120}").created();
    String refundId = refund.get("id").asText();
    assertEquals("pending_manual", refund.get("status").asText());

    String settle = "{\"outcome\":\"succeeded\",\"reference\":\"QRPH-2026-0042\"}";
    Merchant.Reply settled =
        operator.post(
            "/admin/v1/refunds/" + refundId + "/settle", settle, "X-Operator", "ops.maria");
    assertEquals(200, settled.status(), settled.raw().body());
    assertEquals("succeeded", settled.json().get("status").asText());
    assertEquals("QRPH-2026-0042", settled.json().at("/manual_settlement/reference").asText());
    String afterRefund = awaitAvailableChange(live, afterPayment);
    assertEquals(
        new BigDecimal(afterPayment).subtract(new BigDecimal("120.00")),
        new BigDecimal(afterRefund),
        "the ledger debits the refunded amount");

    // Again: the same settlement answers the same; another is refused; the money moved once.
    assertEquals(200, operator.post("/admin/v1/refunds/" + refundId + "/settle", settle).status());
    Merchant.Reply contradicting =
        operator.post(
            "/admin/v1/refunds/" + refundId + "/settle",
            "{\"outcome\":\"failed\",\"reference\":\"QRPH-2026-0042\"}");
    assertEquals(400, contradicting.status());
    assertEquals("invalid_state", contradicting.code());
    Thread.sleep(500);
    assertEquals(afterRefund, available(live));
    assertEquals(
        1,
        count("ledger", "SELECT count(*) FROM journal_transactions WHERE reference = ?", refundId),
        "one journal transaction for the refund");

    // A test-mode QR Ph refund is for the test helpers, not for operators.
    JsonNode testPayment =
        test.post("/v1/payments", "{\"amount\":80,\"method\":\"rail1_qr\"}").created();
    test.post("/v1/test_helpers/payments/" + testPayment.get("id").asText() + "/succeed", null)
        .ok();
    JsonNode testRefund =
        test.post("/v1/refunds", "{\"payment\":\"" + testPayment.get("id").asText() + "\"}")
            .created();
    Merchant.Reply testSettle =
        operator.post(
            "/admin/v1/refunds/" + testRefund.get("id").asText() + "/settle",
            "{\"outcome\":\"succeeded\",\"reference\":\"T-1\"}");
    assertEquals(400, testSettle.status());
    assertEquals("invalid_state", testSettle.code());
    assertEquals(
        "pending_manual",
        test.get("/v1/refunds/" + testRefund.get("id").asText()).json().get("status").asText());

    // The audit has each settlement, with its outcome, and never the token.
    Merchant.Reply audit = operator.get("/admin/v1/audit?target=" + refundId);
    assertEquals(200, audit.status());
    List<JsonNode> rows = new ArrayList<>();
    audit.json().get("data").forEach(rows::add);
    assertEquals(3, rows.size(), rows.toString());
    assertEquals("ops.maria", rows.get(0).at("/operator/name").asText());
    assertEquals("/admin/v1/refunds/{id}/settle", rows.get(0).get("route").asText());
    assertEquals("QRPH-2026-0042", rows.get(0).at("/request/reference").asText());
    assertEquals(200, rows.get(0).at("/outcome/status").asInt());
    assertEquals("invalid_state", rows.get(2).at("/outcome/error_code").asText());
    assertFalse(audit.raw().body().contains(system.adminToken));

    // The merchant's command log: every command answered, its outbox row published or purged.
    Merchant.Reply commands = operator.get("/admin/v1/merchants/" + merchantId + "/commands");
    assertEquals(200, commands.status(), commands.raw().body());
    List<String> types = new ArrayList<>();
    for (JsonNode command : commands.json().get("data")) {
      types.add(command.get("type").asText());
      assertFalse(command.at("/reply/status").isNull(), command.toString());
      assertTrue(
          List.of("published", "purged").contains(command.at("/outbox/state").asText()),
          command.toString());
    }
    assertTrue(
        types.contains("payments.create") && types.contains("refunds.create"), types.toString());
  }

  @Test
  void anomaliesAreListedAndResolvedAndEveryOutboxIsReadable() throws Exception {
    Merchant.Reply outbox = operator.get("/admin/v1/outbox");
    assertEquals(200, outbox.status(), outbox.raw().body());
    List<String> services = new ArrayList<>();
    outbox.json().get("data").forEach(s -> services.add(s.get("service").asText()));
    assertEquals(
        List.of("api-gateway", "payments-service", "ledger-service", "webhook-service"), services);

    // An event the ledger cannot post (it names no merchant), parked by the real consumer.
    String messageId = FORGED_PREFIX + System.nanoTime();
    Properties config = new Properties();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, system.kafkaBootstrapServers());
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer())) {
      ProducerRecord<String, byte[]> record =
          new ProducerRecord<>(
              "payments.events",
              "pay_e2eanomaly",
              ("{\"id\":\"evt_x\",\"object\":\"event\",\"type\":\"payment.succeeded\","
                      + "\"environment\":\"test\",\"created\":1,\"data\":{\"object\":"
                      + "{\"id\":\"pay_e2eanomaly\",\"amount\":1.00,\"net_amount\":1.00,"
                      + "\"fee_amount\":0,\"currency\":\"PHP\"}}}")
                  .getBytes(StandardCharsets.UTF_8));
      record.headers().add("message-id", messageId.getBytes(StandardCharsets.UTF_8));
      record.headers().add("message-type", "payment.succeeded".getBytes(StandardCharsets.UTF_8));
      record
          .headers()
          .add("message-time", Instant.now().toString().getBytes(StandardCharsets.UTF_8));
      producer.send(record).get();
    }
    // The system is shared: other anomalies may be open, so this one is looked for on every page
    // and its resolution is judged by what it changes.
    JsonNode anomaly = null;
    for (int i = 0; i < 100 && anomaly == null; i++) {
      anomaly = anomaly("open", messageId);
      Thread.sleep(100);
    }
    assertNotNull(anomaly, "parked by the ledger");
    String id = anomaly.get("id").asText();
    long openBefore = operator.get("/admin/v1/ledger/anomalies").json().get("open").asLong();
    Merchant.Reply resolved =
        operator.post(
            "/admin/v1/ledger/anomalies/" + id + "/resolve",
            "{\"resolution\":\"forged test event, nothing to post\"}");
    assertEquals(200, resolved.status(), resolved.raw().body());
    assertFalse(resolved.json().get("resolved_at").isNull());
    assertEquals(
        openBefore - 1,
        operator.get("/admin/v1/ledger/anomalies").json().get("open").asLong(),
        "one fewer open");
    assertNull(anomaly("open", messageId), "no longer listed as open");
    assertEquals(
        "forged test event, nothing to post",
        anomaly("resolved", messageId).get("resolution").asText());
    assertEquals(
        1,
        operator.get("/admin/v1/audit?target=" + id).json().get("data").size(),
        "the resolution is audited");
    assertEquals(
        400, operator.post("/admin/v1/ledger/anomalies/" + id + "/resolve", "{}").status());
  }

  /** The anomaly of the message among those of {@code status}, on any page; null if none. */
  private static JsonNode anomaly(String status, String messageId) {
    for (JsonNode row : operator.listAll("/admin/v1/ledger/anomalies?status=" + status)) {
      if (messageId.equals(row.get("message_id").asText())) {
        return row;
      }
    }
    return null;
  }

  private static void providerCallback(String provider, String type, String providerRef)
      throws Exception {
    byte[] body =
        Merchant.json("id", "cb_" + System.nanoTime(), "type", type, "provider_ref", providerRef)
            .getBytes(StandardCharsets.UTF_8);
    long t = Instant.now().getEpochSecond();
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(CALLBACK_SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    mac.update((t + ".").getBytes(StandardCharsets.UTF_8));
    String signature = "t=" + t + ",v1=" + HexFormat.of().formatHex(mac.doFinal(body));
    Merchant anyone = new Merchant(system.gatewayUrl(), null);
    Merchant.Reply answer =
        anyone.post(
            "/callbacks/providers/" + provider,
            new String(body, StandardCharsets.UTF_8),
            "X-Provider-Signature",
            signature);
    assertEquals(200, answer.status(), answer.raw().body());
  }

  private static String awaitStatus(Merchant live, String path, String expected)
      throws InterruptedException {
    String status = null;
    for (int i = 0; i < 100 && !expected.equals(status); i++) {
      status = live.get(path).json().get("status").asText();
      Thread.sleep(50);
    }
    return status;
  }

  private static String available(Merchant merchant) {
    return merchant
        .get("/v1/balance?currency=PHP")
        .json()
        .get("available")
        .decimalValue()
        .toPlainString();
  }

  /** Waits until the available balance differs from {@code before} (null: is not zero). */
  private static String awaitAvailableChange(Merchant merchant, String before)
      throws InterruptedException {
    String now = available(merchant);
    for (int i = 0; i < 100; i++) {
      now = available(merchant);
      boolean changed =
          before == null
              ? new BigDecimal(now).signum() != 0
              : new BigDecimal(now).compareTo(new BigDecimal(before)) != 0;
      if (changed) {
        return now;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("the balance stayed at " + now);
  }

  private static long count(String database, String sql, String parameter) throws Exception {
    try (Connection connection = system.database(database);
        PreparedStatement select = connection.prepareStatement(sql)) {
      select.setString(1, parameter);
      try (ResultSet rs = select.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
