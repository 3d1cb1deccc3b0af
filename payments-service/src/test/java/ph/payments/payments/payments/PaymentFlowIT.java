package ph.payments.payments.payments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.payments.payments.application.ExpirePayments;
import ph.payments.payments.providers.CallbackSignatures;
import ph.payments.payments.providers.ProviderCallback;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.CountingConnection;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * payments-service on its own: commands applied as the gateway sends them, the sandbox provider's
 * signed callbacks over real HTTP (replayed, forged), the expiry job on a moved clock, internal
 * reads with their environment rules, and pagination over 1,000 payments.
 */
@MicronautTest(transactional = false)
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PaymentFlowIT implements TestPropertyProvider {

  private static final String TOKEN = "internal-token-for-payment-flow-it";
  private static final String CALLBACK_SECRET = "sandbox-secret-for-payment-flow-it";
  private static final String MERCHANT = "mer_" + "0".repeat(25) + "7";
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String BASE_URL = "https://pay.example.test";

  @Inject CommandDispatcher dispatcher;
  @Inject Transactions transactions;
  @Inject EmbeddedServer server;
  @Inject MovableClock clock;
  @Inject ExpirePayments expiry;

  @Override
  public Map<String, String> getProperties() {
    TestDatabase database = TestDatabase.forClass(getClass());
    Map<String, String> properties = new HashMap<>();
    properties.put("spec.name", "PaymentFlowIT");
    // Live mode here is the simulated connector, named explicitly (no_route otherwise).
    properties.put("payments.live-connectors", "simulated");
    properties.put("datasources.default.url", database.jdbcUrl());
    properties.put("datasources.default.username", database.user());
    properties.put("kafka.bootstrap.servers", TestKafka.bootstrapServers());
    properties.put("micronaut.server.port", "-1");
    properties.put("internal.token", TOKEN);
    properties.put("payments.sandbox.callback-secret", CALLBACK_SECRET);
    properties.put("payments.expiry-sweep", "1h"); // the test runs the job itself
    properties.put("payments.public-base-url", BASE_URL);
    return properties;
  }

  @Test
  void aPaymentIsCreatedPendingWithItsFeeAndNoEvent() {
    JsonNode payment = create("test", "{\"amount\":1000,\"method\":\"card\"}").body();
    assertEquals("pending", payment.get("status").asText());
    assertEquals("sandbox_card", payment.get("provider").asText());
    assertEquals("50.00", payment.get("fee_amount").decimalValue().toPlainString());
    assertTrue(payment.get("net_amount").isNull());
    String checkoutUrl = payment.get("checkout_url").asText();
    assertTrue(
        checkoutUrl.matches(".*/checkout/ct_[A-Za-z0-9_-]{32}"),
        "card payments are paid on the hosted checkout page, which the gateway serves: "
            + checkoutUrl);
    assertFalse(checkoutUrl.contains(payment.get("id").asText()), "never the guessable id");
    List<String> fields = new ArrayList<>();
    payment.fieldNames().forEachRemaining(fields::add);
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
            "checkout_url",
            "qr_code",
            "qr_code_url",
            "app_link",
            "return_url",
            "description",
            "customer",
            "metadata",
            "customer_id",
            "payment_link_id",
            "fee_amount",
            "net_amount",
            "idempotency_key",
            "failure",
            "expires_at",
            "succeeded_at",
            "failed_at",
            "created",
            "receipt_url"),
        fields);
    assertEquals(0, timeline(payment.get("id").asText()).size(), "no event at creation");
  }

  @Test
  void aMerchantsOwnFeeReplacesTheDefaultUntilCleared() {
    String merchant = "mer_" + "0".repeat(25) + "a";
    CommandReply set =
        dispatch(feeSet(merchant, "card", new BigDecimal("1.25"), BigDecimal.valueOf(5)));
    assertEquals(200, set.status(), set.body().toString());
    JsonNode own = create(merchant, "test", "{\"amount\":1000,\"method\":\"card\"}").body();
    assertEquals("17.50", own.get("fee_amount").decimalValue().toPlainString());
    JsonNode other = create(merchant, "test", "{\"amount\":1000,\"method\":\"ewallet1\"}").body();
    assertEquals(
        "25.00",
        other.get("fee_amount").decimalValue().toPlainString(),
        "other methods keep the default");

    dispatch(feeSet(merchant, "card", null, null));
    JsonNode restored = create(merchant, "test", "{\"amount\":1000,\"method\":\"card\"}").body();
    assertEquals("50.00", restored.get("fee_amount").decimalValue().toPlainString());
  }

  /**
   * A poll's creations read their fee schedules in the round trip of the poll's inbox statement,
   * one read for the poll where each creation made its own; each still gets its own merchant's fee.
   */
  @Test
  void aPollsCreationsReadTheirFeesWithItsInboxStatement() {
    String merchant = "mer_" + "0".repeat(25) + "b";
    assertEquals(
        200,
        dispatch(feeSet(merchant, "card", new BigDecimal("1.25"), BigDecimal.valueOf(5))).status());
    List<String> statements = new ArrayList<>();

    List<CommandReply> replies =
        dispatchPoll(
            List.of(
                creation(merchant, "test", "{\"amount\":1000,\"method\":\"card\"}"),
                creation(merchant, "test", "{\"amount\":1000,\"method\":\"ewallet1\"}"),
                creation(MERCHANT, "test", "{\"amount\":1000,\"method\":\"card\"}")),
            statements);

    assertEquals(List.of("17.50", "25.00", "50.00"), fees(replies));
    List<String> feeReads = statements.stream().filter(s -> s.contains("merchant_fees")).toList();
    assertEquals(1, feeReads.size(), "one read of the schedules for the poll: " + statements);
    assertTrue(
        feeReads.get(0).startsWith("INSERT INTO inbox"),
        "sent with the inbox statement: " + feeReads.get(0));
  }

  /** A fee set by a command of the same poll is the fee of the creations after it, not before. */
  @Test
  void aFeeSetInAPollIsTheFeeOfItsCreationsAfterIt() {
    String merchant = "mer_" + "0".repeat(25) + "c";
    String card = "{\"amount\":1000,\"method\":\"card\"}";

    List<CommandReply> replies =
        dispatchPoll(
            List.of(
                creation(merchant, "test", card),
                feeSet(merchant, "card", new BigDecimal("1.25"), BigDecimal.valueOf(5)),
                creation(merchant, "test", card)),
            new ArrayList<>());

    assertEquals(200, replies.get(1).status(), replies.get(1).body().toString());
    assertEquals(List.of("50.00", "17.50"), fees(List.of(replies.get(0), replies.get(2))));
  }

  @Test
  void noProviderMeansNoRouteAndQrAmountsHaveACeiling() {
    CommandReply noRoute =
        create("test", "{\"amount\":10,\"method\":\"ewallet1\",\"currency\":\"USD\"}");
    assertEquals(400, noRoute.status());
    assertEquals("no_route", noRoute.body().at("/error/code").asText());
    CommandReply tooLarge = create("test", "{\"amount\":10000000000,\"method\":\"rail1_qr\"}");
    assertEquals(400, tooLarge.status());
    assertTrue(tooLarge.body().at("/error/issues/amount").isTextual());
  }

  @Test
  void aProviderCallbackDeliveredTwiceChangesNothingTheSecondTime() throws Exception {
    JsonNode payment = create("test", "{\"amount\":100,\"method\":\"ewallet1\"}").body();
    byte[] body =
        Json.toBytes(
            new ProviderCallback(
                "cb_replayed_" + System.nanoTime(),
                ProviderCallback.PAID,
                payment.get("provider_ref").asText(),
                null,
                null));
    String signature = CallbackSignatures.sign(CALLBACK_SECRET.getBytes(), body, clock.instant());
    HttpResponse<String> first = callback("sandbox_ewallet1", body, signature);
    HttpResponse<String> second = callback("sandbox_ewallet1", body, signature);
    assertEquals(200, first.statusCode(), first.body());
    assertTrue(first.body().contains("applied"));
    assertEquals(200, second.statusCode());
    assertTrue(second.body().contains("duplicate"));
    assertEquals(List.of("payment.processing"), timeline(payment.get("id").asText()));

    HttpResponse<String> forged = callback("sandbox_ewallet1", body, "t=1,v1=00");
    assertEquals(401, forged.statusCode());
    byte[] tampered = new String(body).replace("order.paid", "order.captured").getBytes();
    assertEquals(401, callback("sandbox_ewallet1", tampered, signature).statusCode());
  }

  @Test
  void aCallbackForNoKnownOrderIsRecordedAndIgnoredOnce() throws Exception {
    byte[] body =
        Json.toBytes(
            new ProviderCallback(
                "cb_stray_" + System.nanoTime(),
                ProviderCallback.CAPTURED,
                "ord_nobody_" + System.nanoTime(),
                null,
                null));
    String signature = CallbackSignatures.sign(CALLBACK_SECRET.getBytes(), body, clock.instant());
    HttpResponse<String> first = callback("sandbox_ewallet1", body, signature);
    assertEquals(200, first.statusCode(), first.body());
    assertTrue(first.body().contains("ignored"), first.body());
    HttpResponse<String> second = callback("sandbox_ewallet1", body, signature);
    assertTrue(second.body().contains("duplicate"), second.body());
  }

  @Test
  void theSandboxMovesAnOrderOnlyFromWhereItMayAndARefusalMovesNothing() {
    // succeed from pending: the provider reports paid, then captured.
    String direct =
        create("test", "{\"amount\":120,\"method\":\"ewallet1\"}").body().get("id").asText();
    assertEquals("succeeded", helper("succeed", direct).body().get("status").asText());
    assertEquals(List.of("payment.processing", "payment.succeeded"), timeline(direct));

    // process twice: the order is paid already, so the second is refused and changes nothing.
    String twice =
        create("test", "{\"amount\":120,\"method\":\"ewallet1\"}").body().get("id").asText();
    assertEquals("processing", helper("process", twice).body().get("status").asText());
    CommandReply refused = helper("process", twice);
    assertEquals(400, refused.status());
    assertEquals("invalid_state", refused.body().at("/error/code").asText());
    assertTrue(
        refused
            .body()
            .at("/error/message")
            .asText()
            .contains("only a new order can be paid (sandbox order is paid)"),
        refused.body().toString());
    assertEquals(List.of("payment.processing"), timeline(twice));
    // Captured from paid: no second paid report.
    assertEquals("succeeded", helper("succeed", twice).body().get("status").asText());
    assertEquals(List.of("payment.processing", "payment.succeeded"), timeline(twice));
  }

  @Test
  void testHelpersMoveThePaymentThroughTheProvidersCallbacks() {
    String id =
        create("test", "{\"amount\":200,\"method\":\"rail1_qr\"}").body().get("id").asText();
    assertEquals("processing", helper("process", id).body().get("status").asText());
    JsonNode succeeded = helper("succeed", id).body();
    assertEquals("succeeded", succeeded.get("status").asText());
    assertEquals("197.00", succeeded.get("net_amount").decimalValue().toPlainString());
    assertEquals(List.of("payment.processing", "payment.succeeded"), timeline(id));

    CommandReply again = helper("fail", id);
    assertEquals(400, again.status());
    assertEquals("invalid_state", again.body().at("/error/code").asText());
    assertEquals(2, timeline(id).size(), "an illegal move writes nothing");

    String failing =
        create("test", "{\"amount\":200,\"method\":\"card\"}").body().get("id").asText();
    JsonNode failed = helper("fail", failing).body();
    assertEquals("failed", failed.get("status").asText());
    assertEquals("payment_declined", failed.at("/failure/code").asText());
    assertFalse(failed.get("failed_at").isNull());

    // fail takes the reason a merchant wants to rehearse; the message defaults when not given.
    String insufficient =
        create("test", "{\"amount\":200,\"method\":\"card\"}").body().get("id").asText();
    JsonNode declined =
        dispatch(
                new Command(
                    IdType.COMMAND.generate(),
                    "test_helpers.payments.fail",
                    MERCHANT,
                    "test",
                    insufficient,
                    Json.tree("{\"code\":\"insufficient_funds\"}"),
                    Instant.now()))
            .body();
    assertEquals("failed", declined.get("status").asText());
    assertEquals("insufficient_funds", declined.at("/failure/code").asText());
    assertTrue(declined.at("/failure/message").asText().contains("declined"));
  }

  @Test
  void theExpiryJobExpiresOnlyUnpaidPaymentsWhoseWindowClosed() {
    String unpaid =
        create("test", "{\"amount\":50,\"method\":\"ewallet1\"}").body().get("id").asText();
    String settling =
        create("test", "{\"amount\":50,\"method\":\"ewallet1\"}").body().get("id").asText();
    helper("process", settling);
    expiry.expireDue();
    assertEquals("pending", read(unpaid).get("status").asText(), "window still open");

    clock.advance(Duration.ofMinutes(31));
    expiry.expireDue();
    assertEquals("expired", read(unpaid).get("status").asText());
    assertEquals("processing", read(settling).get("status").asText());
    assertEquals(List.of("payment.expired"), timeline(unpaid));
    expiry.expireDue();
    assertEquals(List.of("payment.expired"), timeline(unpaid), "expired once");
  }

  @Test
  void readsTellNotFoundFromTheOtherEnvironment() throws Exception {
    String id =
        create("live", "{\"amount\":75,\"method\":\"bank_transfer\"}").body().get("id").asText();
    assertEquals(200, internal("/internal/payments/" + id, MERCHANT, "live").statusCode());
    HttpResponse<String> otherEnvironment = internal("/internal/payments/" + id, MERCHANT, "test");
    assertEquals(401, otherEnvironment.statusCode());
    assertTrue(otherEnvironment.body().contains("unauthenticated"));
    HttpResponse<String> otherMerchant =
        internal("/internal/payments/" + id, "mer_" + "0".repeat(25) + "8", "live");
    assertEquals(404, otherMerchant.statusCode());
    assertEquals(401, internal("/internal/payments/" + id, null, null, "wrong-token").statusCode());
  }

  @Test
  void aThousandPaymentsPageInOrderWithoutGapsOrRepeats() throws Exception {
    String merchant = "mer_" + "0".repeat(25) + "9";
    List<String> created = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      created.add(
          create(merchant, "test", "{\"amount\":1,\"method\":\"bank_transfer\"}")
              .body()
              .get("id")
              .asText());
    }
    List<String> listed = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    boolean hasMore = true;
    while (hasMore) {
      HttpResponse<String> page =
          internal(
              "/internal/payments?limit=100" + (cursor == null ? "" : "&starting_after=" + cursor),
              merchant,
              "test");
      JsonNode list = Json.tree(page.body());
      for (JsonNode payment : list.get("data")) {
        listed.add(payment.get("id").asText());
        cursor = payment.get("id").asText();
      }
      hasMore = list.get("has_more").asBoolean();
      pages++;
    }
    assertEquals(created, listed);
    assertEquals(10, pages);
    JsonNode pendingOnly =
        Json.tree(internal("/internal/payments?status=succeeded", merchant, "test").body());
    assertEquals(0, pendingOnly.get("data").size());
  }

  @Test
  void thePublicCheckoutViewIsFoundByItsTokenOnly() throws Exception {
    JsonNode first = create("test", "{\"amount\":120,\"method\":\"rail1_qr\"}").body();
    JsonNode second = create("test", "{\"amount\":120,\"method\":\"rail1_qr\"}").body();
    String token = tokenOf(first.get("checkout_url").asText());
    assertEquals(token, tokenOf(first.get("qr_code_url").asText().replace(".png", "")));
    assertNotEquals(token, tokenOf(second.get("checkout_url").asText()));

    HttpResponse<String> view = internal("/internal/public/checkouts/" + token, null, null);
    assertEquals(200, view.statusCode(), view.body());
    JsonNode json = Json.tree(view.body());
    assertEquals(first.get("qr_code").asText(), json.get("qr_code").asText());
    assertFalse(json.has("id"), "the customer's view does not name the payment id");

    // Neither the payment id nor a near miss of the token resolves anything.
    String id = first.get("id").asText();
    assertEquals(404, internal("/internal/public/checkouts/" + id, null, null).statusCode());
    assertEquals(404, internal("/internal/public/payments/" + id, null, null).statusCode());
    String nearMiss = token.substring(0, token.length() - 1) + (token.endsWith("A") ? "B" : "A");
    assertEquals(404, internal("/internal/public/checkouts/" + nearMiss, null, null).statusCode());
  }

  @Test
  void theCheckoutPagesSandboxCardFormDrivesTheProviderThroughItsCallbacks() throws Exception {
    String paid = create("test", "{\"amount\":1500,\"method\":\"card\"}").body().get("id").asText();
    JsonNode succeeded = sandboxAction(paid, "test", card("succeeds", "4242")).body();
    assertEquals("succeeded", succeeded.get("status").asText());
    assertEquals(List.of("payment.processing", "payment.succeeded"), timeline(paid));
    String token = tokenOf(succeeded.get("checkout_url").asText());
    assertEquals(BASE_URL + "/receipts/" + token, succeeded.get("receipt_url").asText());

    String declined =
        create("test", "{\"amount\":10,\"method\":\"card\"}").body().get("id").asText();
    JsonNode failed = sandboxAction(declined, "test", card("card_declined", "0002")).body();
    assertEquals("failed", failed.get("status").asText());
    assertEquals("card_declined", failed.get("failure").get("code").asText());
    assertEquals(
        "The card ending 0002 was declined by its bank.",
        failed.get("failure").get("message").asText());
    assertTrue(failed.get("receipt_url").isNull());

    String poor = create("test", "{\"amount\":10,\"method\":\"card\"}").body().get("id").asText();
    assertEquals(
        "insufficient_funds",
        sandboxAction(poor, "test", card("insufficient_funds", "9995"))
            .body()
            .get("failure")
            .get("code")
            .asText());
  }

  @Test
  void aThreeDSecureChallengeWaitsUntilTheCardholderPassesOrFailsIt() throws Exception {
    JsonNode created = create("test", "{\"amount\":99.5,\"method\":\"card\"}").body();
    String id = created.get("id").asText();
    String token = tokenOf(created.get("checkout_url").asText());
    assertTrue(publicView(token).get("next_action").isNull());
    CommandReply early = sandboxAction(id, "test", action("3ds_complete"));
    assertEquals(400, early.status());
    assertEquals("invalid_state", early.body().get("error").get("code").asText());

    JsonNode challenged = sandboxAction(id, "test", card("challenge", "3220")).body();
    assertEquals("pending", challenged.get("status").asText(), "no callback yet");
    assertEquals("3ds_challenge", publicView(token).get("next_action").asText());
    assertEquals(
        400, sandboxAction(id, "test", card("succeeds", "4242")).status(), "one card at a time");
    assertEquals(
        "succeeded",
        sandboxAction(id, "test", action("3ds_complete")).body().get("status").asText());
    assertTrue(publicView(token).get("next_action").isNull());

    String failing = create("test", "{\"amount\":5,\"method\":\"card\"}").body().get("id").asText();
    sandboxAction(failing, "test", card("challenge", "3220"));
    JsonNode failed = sandboxAction(failing, "test", action("3ds_fail")).body();
    assertEquals("failed", failed.get("status").asText());
    assertEquals("authentication_failed", failed.get("failure").get("code").asText());
  }

  @Test
  void sandboxActionsFitTheMethodAndNeverTouchALivePayment() throws Exception {
    String qr =
        create("test", "{\"amount\":120,\"method\":\"rail1_qr\"}").body().get("id").asText();
    CommandReply wrong = sandboxAction(qr, "test", card("succeeds", "4242"));
    assertEquals(400, wrong.status());
    assertEquals("invalid_request", wrong.body().get("error").get("code").asText());
    assertEquals(400, sandboxAction(qr, "test", action("approve")).status());
    assertEquals(
        "succeeded", sandboxAction(qr, "test", action("pay")).body().get("status").asText());

    String wallet =
        create("test", "{\"amount\":120,\"method\":\"ewallet1\"}").body().get("id").asText();
    assertEquals(400, sandboxAction(wallet, "test", action("pay")).status());
    JsonNode declined = sandboxAction(wallet, "test", action("decline")).body();
    assertEquals("failed", declined.get("status").asText());

    String bank =
        create("test", "{\"amount\":120,\"method\":\"bank_transfer\"}").body().get("id").asText();
    assertEquals(
        "succeeded", sandboxAction(bank, "test", action("pay")).body().get("status").asText());

    // A live payment: no sandbox action exists for it, whatever the command claims.
    String live = create("live", "{\"amount\":120,\"method\":\"card\"}").body().get("id").asText();
    CommandReply refused = sandboxAction(live, "live", card("succeeds", "4242"));
    assertEquals(404, refused.status());
    assertEquals("pending", read(live, "live").get("status").asText());
    // Naming the live payment from the test environment is refused as any cross-environment use.
    assertEquals(401, sandboxAction(live, "test", card("succeeds", "4242")).status());
    assertEquals("pending", read(live, "live").get("status").asText());
  }

  @Test
  void thePublicViewCarriesWhatTheReceiptShowsAndNothingPrivate() throws Exception {
    JsonNode created =
        create(
                "test",
                "{\"amount\":1500,\"method\":\"card\",\"metadata\":{\"order\":\"secret\"},"
                    + "\"customer\":{\"email\":\"c@example.com\",\"name\":\"Juan\"}}")
            .body();
    String id = created.get("id").asText();
    String token = tokenOf(created.get("checkout_url").asText());
    JsonNode pending = publicView(token);
    assertEquals(id, pending.get("reference").asText());
    assertEquals(MERCHANT, pending.get("merchant_id").asText());
    assertTrue(pending.get("receipt_url").isNull());
    assertEquals(0, pending.get("refunds").size());
    String text = pending.toString();
    for (String hidden :
        List.of("secret", "c@example.com", "fee_amount", "sandbox_card", "metadata")) {
      assertFalse(text.contains(hidden), hidden + " in " + text);
    }
    sandboxAction(id, "test", card("succeeds", "4242"));
    CommandReply refund =
        dispatch(
            new Command(
                IdType.COMMAND.generate(),
                "refunds.create",
                MERCHANT,
                "test",
                IdType.REFUND.generate(),
                Json.tree("{\"payment\":\"" + id + "\",\"amount\":500}"),
                Instant.now()));
    assertEquals(201, refund.status(), refund.body().toString());
    JsonNode receipt = publicView(token);
    assertEquals("succeeded", receipt.get("status").asText());
    assertEquals(BASE_URL + "/receipts/" + token, receipt.get("receipt_url").asText());
    assertEquals(1, receipt.get("refunds").size());
    assertEquals(
        "500.00", receipt.get("refunds").get(0).get("amount").decimalValue().toPlainString());
    assertFalse(receipt.get("refunds").get(0).get("succeeded_at").isNull());
    assertEquals("500.00", receipt.get("amount_refunded").decimalValue().toPlainString());
    assertFalse(receipt.get("succeeded_at").isNull());
  }

  private JsonNode publicView(String token) throws Exception {
    HttpResponse<String> view = internal("/internal/public/checkouts/" + token, null, null);
    assertEquals(200, view.statusCode(), view.body());
    return Json.tree(view.body());
  }

  private static String card(String scenario, String last4) {
    return "{\"action\":\"card\",\"scenario\":\""
        + scenario
        + "\",\"card_last4\":\""
        + last4
        + "\"}";
  }

  private static String action(String action) {
    return "{\"action\":\"" + action + "\"}";
  }

  private CommandReply sandboxAction(String paymentId, String environment, String body) {
    return dispatch(
        new Command(
            IdType.COMMAND.generate(),
            "checkout.sandbox_action",
            MERCHANT,
            environment,
            paymentId,
            Json.tree(body),
            Instant.now()));
  }

  private JsonNode read(String id, String environment) throws Exception {
    return Json.tree(internal("/internal/payments/" + id, MERCHANT, environment).body());
  }

  private static String tokenOf(String url) {
    return url.substring(url.lastIndexOf('/') + 1);
  }

  private CommandReply create(String environment, String body) {
    return create(MERCHANT, environment, body);
  }

  private CommandReply create(String merchant, String environment, String body) {
    return dispatch(creation(merchant, environment, body));
  }

  private CommandReply helper(String action, String paymentId) {
    return dispatch(
        new Command(
            IdType.COMMAND.generate(),
            "test_helpers.payments." + action,
            MERCHANT,
            "test",
            paymentId,
            Json.mapper().createObjectNode(),
            Instant.now()));
  }

  private static Command creation(String merchant, String environment, String body) {
    ObjectNode json = (ObjectNode) Json.tree(body);
    json.put("merchant_name", "Flow Test Store");
    return new Command(
        IdType.COMMAND.generate(),
        "payments.create",
        merchant,
        environment,
        IdType.PAYMENT.generate(),
        json,
        Instant.now());
  }

  /**
   * {@code merchant_fees.set}: the merchant's own fee for the method, or none when percent is null.
   */
  private static Command feeSet(
      String merchant, String method, BigDecimal percent, BigDecimal fixedAmount) {
    ObjectNode body =
        Json.mapper().createObjectNode().put("merchant_id", merchant).put("method", method);
    body.put("percent", percent);
    if (fixedAmount != null) {
      body.put("fixed_amount", fixedAmount);
    }
    return new Command(
        IdType.COMMAND.generate(), "merchant_fees.set", null, null, null, body, Instant.now());
  }

  private static List<String> fees(List<CommandReply> replies) {
    return replies.stream()
        .map(r -> r.body().get("fee_amount").decimalValue().toPlainString())
        .toList();
  }

  /**
   * The commands as one poll's records, dispatched in one transaction on a connection that records
   * the SQL of its statements in {@code statements}; the replies in the commands' order.
   */
  private List<CommandReply> dispatchPoll(List<Command> commands, List<String> statements) {
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    for (Command command : commands) {
      ProducerRecord<String, byte[]> produced =
          KafkaEnvelopes.toRecord(
              "payments.commands",
              new Envelope(
                  IdType.MESSAGE.generate(),
                  "command." + command.type(),
                  command.commandId(),
                  Instant.now(),
                  Json.toBytes(command)));
      ConsumerRecord<String, byte[]> record =
          new ConsumerRecord<>(
              "payments.commands", 0, records.size(), produced.key(), produced.value());
      produced.headers().forEach(header -> record.headers().add(header));
      records.add(record);
    }
    int applied =
        transactions.inTransaction(
            connection ->
                dispatcher.dispatchAll(
                    CountingConnection.recording(connection, statements), records));
    assertEquals(commands.size(), applied);
    return commands.stream().map(command -> reply(command.commandId())).toList();
  }

  private CommandReply reply(String commandId) {
    return transactions.inTransaction(
        connection -> {
          try (var select =
              connection.prepareStatement(
                  "SELECT payload FROM outbox WHERE message_key = ? AND message_type = 'command.reply'")) {
            select.setString(1, commandId);
            try (var rs = select.executeQuery()) {
              assertTrue(rs.next(), "a reply to " + commandId);
              return Json.fromBytes(rs.getBytes(1), CommandReply.class);
            }
          }
        });
  }

  /** Applies a command as the command listener would, and returns the reply it queued. */
  private CommandReply dispatch(Command command) {
    Envelope envelope =
        new Envelope(
            IdType.MESSAGE.generate(),
            "command." + command.type(),
            command.commandId(),
            Instant.now(),
            Json.toBytes(command));
    transactions.inTransaction(
        connection -> {
          dispatcher.dispatch(connection, envelope);
          return null;
        });
    return reply(command.commandId());
  }

  private JsonNode read(String id) {
    try {
      return Json.tree(internal("/internal/payments/" + id, MERCHANT, "test").body());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private List<String> timeline(String paymentId) {
    List<String> types = new ArrayList<>();
    try {
      HttpResponse<String> response =
          internal("/internal/payments/" + paymentId + "?expand=events", MERCHANT, null);
      JsonNode payment = Json.tree(response.body());
      if (payment.has("events")) {
        payment.get("events").forEach(e -> types.add(e.get("type").asText()));
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return types;
  }

  private HttpResponse<String> internal(String path, String merchant, String environment)
      throws Exception {
    return internal(path, merchant, environment, TOKEN);
  }

  private HttpResponse<String> internal(
      String path, String merchant, String environment, String token) throws Exception {
    String env = environment;
    if (env == null && merchant != null) {
      // The timeline helper does not know the environment: find it from the payment's id.
      env = "test";
    }
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.getURL() + path)).GET();
    request.header("X-Internal-Token", token);
    if (merchant != null) {
      request.header("X-Merchant-Id", merchant).header("X-Environment", env);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> callback(String provider, byte[] body, String signature)
      throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create(server.getURL() + "/internal/providers/" + provider + "/callbacks"))
            .header("X-Internal-Token", TOKEN)
            .header("Content-Type", "application/json")
            .header("X-Provider-Signature", signature)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
