package ph.payments.webhooks;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.stripe.net.Webhook;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.json.Json;
import ph.payments.webhooks.support.Events;
import ph.payments.webhooks.support.Receiver;
import ph.payments.webhooks.support.WebhookServiceTest;
import ph.payments.webhooks.verify.WebhookSignature;

/**
 * Webhook delivery end to end inside webhook-service: events produced onto a real Kafka topic,
 * endpoints managed through the command handlers, and real HTTP receivers on loopback. Signatures
 * are checked with two verifiers that share no code with the service: stripe-java and the
 * merchants' {@code webhook-verifier}. The retry schedule is shortened to 1.2 s steps (±5 %, so two
 * attempts are never in the same second) and the timeout to 1 s.
 */
@MicronautTest(transactional = false)
class WebhookDeliveryIT extends WebhookServiceTest {

  private static final Duration PATIENCE = Duration.ofSeconds(15);

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of(
        "spec.name", "WebhookDeliveryIT",
        // The receivers are on loopback: only a deployment with the flag (local development)
        // reaches them. TargetSafetyIT holds what the flag off and on refuse.
        "webhooks.allow-private-targets", "true",
        "webhooks.retry-schedule", "1200ms,1200ms,1200ms,1200ms,1200ms,1200ms",
        "webhooks.retry-jitter", "0.05",
        "webhooks.timeout", "1s",
        "webhooks.delivery.concurrency", "8",
        "webhooks.delivery.per-endpoint", "2",
        "webhooks.delivery.poll-interval", "250ms");
  }

  @Test
  void aDeliveryIsTheStoredEventSignedWithTheSpecsHeaders() throws Exception {
    try (Receiver receiver = Receiver.answering(200)) {
      String merchant = merchant();
      JsonNode endpoint = createEndpoint(merchant, "test", receiver.url());
      String secret = endpoint.get("secret").asText();

      long sent = System.nanoTime();
      Events.Event event = events().send(merchant, Events.payment("payment.succeeded", "test"));
      await().atMost(PATIENCE).until(() -> receiver.count() == 1);
      Receiver.Received got = receiver.received().get(0);
      long latencyMillis = (got.nanos() - sent) / 1_000_000;

      assertArrayEquals(event.body(), got.body(), "the bytes of the event log, unchanged");
      String signature = got.header("X-Service-Signature");
      assertTrue(signature.matches("t=\\d+,v1=[0-9a-f]{64}"), signature);
      assertTrue(Webhook.Signature.verifyHeader(got.bodyText(), signature, secret, 300));
      assertDoesNotThrow(() -> WebhookSignature.verify(got.body(), signature, secret));
      long t = Long.parseLong(signature.substring(2, signature.indexOf(',')));
      assertTrue(Math.abs(Instant.now().getEpochSecond() - t) <= 2, "signed at sending time");

      assertEquals("payment.succeeded", got.header("X-Service-Event"));
      assertTrue(got.header("X-Service-Delivery").matches("[1-9][0-9]*"));
      assertEquals("Service-Webhooks/1.0", got.header("User-Agent"));
      assertTrue(got.header("Content-Type").startsWith("application/json"));
      assertTrue(latencyMillis < 1000, "event to receiver in " + latencyMillis + " ms");
      System.out.printf("event → receiver latency: %d ms%n", latencyMillis);

      JsonNode delivery = awaitDelivery(merchant, "test", got.deliveryId(), "succeeded");
      assertEquals(endpoint.get("id").asText(), delivery.get("endpoint").asText());
      assertEquals(event.id(), delivery.get("event").asText());
      assertEquals(1, delivery.get("attempt_count").asInt());
    }
  }

  @Test
  void onlyEnabledEndpointsOfTheMerchantEnvironmentThatReceiveTheTypeGetTheEvent() {
    try (Receiver defaults = Receiver.answering(200);
        Receiver everything = Receiver.answering(200);
        Receiver expiredOnly = Receiver.answering(200);
        Receiver disabled = Receiver.answering(200);
        Receiver otherMerchant = Receiver.answering(200);
        Receiver live = Receiver.answering(200)) {
      String merchant = merchant();
      JsonNode defaultEndpoint = createEndpoint(merchant, "test", defaults.url());
      assertEquals(
          List.of("payment.succeeded", "payment.failed"),
          strings(defaultEndpoint.get("events")),
          "the spec's default");
      createEndpoint(merchant, "test", everything.url(), "*");
      createEndpoint(merchant, "test", expiredOnly.url(), "payment.expired");
      String off = createEndpoint(merchant, "test", disabled.url(), "*").get("id").asText();
      assertEquals(200, update(merchant, "test", off, Map.of("enabled", false)).status());
      createEndpoint(merchant(), "test", otherMerchant.url(), "*");
      createEndpoint(merchant, "live", "http://93.184.216.34/hooks", "*");

      events().send(merchant, Events.payment("payment.processing", "test"));
      events().send(merchant, Events.payment("payment.succeeded", "test"));
      events().send(merchant, Events.payment("payment.expired", "test"));
      await().atMost(PATIENCE).until(() -> everything.count() == 3);
      await().atMost(PATIENCE).until(() -> defaults.count() == 1 && expiredOnly.count() == 1);

      assertEquals(List.of("payment.succeeded"), types(defaults));
      assertEquals(
          Set.of("payment.processing", "payment.succeeded", "payment.expired"),
          new HashSet<>(types(everything)));
      assertEquals(List.of("payment.expired"), types(expiredOnly));
      assertEquals(0, disabled.count(), "disabled");
      assertEquals(0, otherMerchant.count(), "another merchant's endpoint");
      assertEquals(0, live.count(), "the live endpoint of a test event");
    }
  }

  @Test
  void aFailedAttemptIsRetriedWithTheSameDeliveryIdAndAFreshSignature() throws Exception {
    try (Receiver receiver =
        Receiver.start((i, r) -> Receiver.Response.status(i < 2 ? (i == 0 ? 500 : 404) : 200))) {
      String merchant = merchant();
      String secret = createEndpoint(merchant, "test", receiver.url()).get("secret").asText();
      events().send(merchant, Events.payment("payment.failed", "test"));
      await().atMost(PATIENCE).until(() -> receiver.count() == 3);

      List<Receiver.Received> got = receiver.received();
      Set<String> deliveryIds = new HashSet<>();
      List<Long> timestamps = new ArrayList<>();
      for (Receiver.Received attempt : got) {
        deliveryIds.add(attempt.header("X-Service-Delivery"));
        String signature = attempt.header("X-Service-Signature");
        assertTrue(Webhook.Signature.verifyHeader(attempt.bodyText(), signature, secret, 300));
        timestamps.add(Long.parseLong(signature.substring(2, signature.indexOf(','))));
        assertArrayEquals(got.get(0).body(), attempt.body(), "the same bytes every time");
      }
      assertEquals(1, deliveryIds.size(), "one delivery id for every attempt");
      assertTrue(
          timestamps.get(0) < timestamps.get(1) && timestamps.get(1) < timestamps.get(2),
          "each attempt signed at its own time: " + timestamps);
      assertNotEquals(
          got.get(0).header("X-Service-Signature"), got.get(1).header("X-Service-Signature"));
      long waited = (got.get(1).nanos() - got.get(0).nanos()) / 1_000_000;
      assertTrue(
          waited >= 1100 && waited < 2500, "retried after the first step: " + waited + " ms");

      long id = got.get(0).deliveryId();
      awaitDelivery(merchant, "test", id, "succeeded");
      JsonNode attempts =
          get("/internal/webhook_deliveries/" + id + "/attempts", merchant, "test").json();
      assertEquals(List.of(500, 404, 200), statusCodes(attempts));
      JsonNode first = attempts.get("data").get(0);
      assertEquals("HTTP 500", first.get("error").asText());
      // The receiver answered a body, but from loopback: replies of non-public addresses are never
      // kept (WebhookSenderTargetsTest holds that public ones are).
      assertTrue(first.get("response_snippet").isNull(), first.toString());
      assertTrue(first.get("latency_ms").asLong() >= 0);
      assertEquals(1, first.get("attempt").asInt());
      assertTrue(attempts.get("data").get(2).get("error").isNull());
    }
  }

  @Test
  void afterTheSixthRetryFailsTheDeliveryIsFailedAndAReplayDeliversIt() {
    try (Receiver receiver = Receiver.answering(503)) {
      String merchant = merchant();
      createEndpoint(merchant, "test", receiver.url());
      events().send(merchant, Events.payment("payment.succeeded", "test"));
      await().atMost(Duration.ofSeconds(30)).until(() -> receiver.count() == 7);
      long id = receiver.received().get(0).deliveryId();
      JsonNode failed = awaitDelivery(merchant, "test", id, "failed");
      assertEquals(7, failed.get("attempt_count").asInt(), "the first attempt and six retries");
      assertEquals(503, failed.get("last_status_code").asInt());
      assertTrue(failed.get("next_attempt_at").isNull());
      sleep(Duration.ofMillis(2000));
      assertEquals(7, receiver.count(), "nothing after the sixth retry");

      receiver.respondWith((i, r) -> Receiver.Response.status(200));
      CommandReply replayed =
          command(WebhookCommands.DELIVERY_REPLAY, merchant, "test", "whd_" + id, null);
      assertEquals(200, replayed.status(), replayed.body().toString());
      assertEquals("pending", replayed.body().get("status").asText());
      await().atMost(PATIENCE).until(() -> receiver.count() == 8);
      assertEquals(id, receiver.received().get(7).deliveryId(), "the same delivery id");
      JsonNode delivered = awaitDelivery(merchant, "test", id, "succeeded");
      assertEquals(8, delivered.get("attempt_count").asInt());

      CommandReply again =
          command(WebhookCommands.DELIVERY_REPLAY, merchant, "test", "" + id, null);
      assertEquals(400, again.status());
      assertEquals("invalid_state", again.body().at("/error/code").asText());
      CommandReply otherEnvironment =
          command(WebhookCommands.DELIVERY_REPLAY, merchant, "live", "" + id, null);
      assertEquals(401, otherEnvironment.status());
      CommandReply otherMerchant =
          command(WebhookCommands.DELIVERY_REPLAY, merchant(), "test", "" + id, null);
      assertEquals(404, otherMerchant.status());
    }
  }

  @Test
  void aReceiverThatHangsPastTheTimeoutIsCutOffAndRetried() {
    try (Receiver receiver =
        Receiver.start(
            (i, r) ->
                i == 0
                    ? Receiver.Response.hang(Duration.ofMillis(3000))
                    : Receiver.Response.status(200))) {
      String merchant = merchant();
      createEndpoint(merchant, "test", receiver.url());
      events().send(merchant, Events.payment("payment.succeeded", "test"));
      await().atMost(PATIENCE).until(() -> receiver.count() == 2);
      long id = receiver.received().get(0).deliveryId();
      awaitDelivery(merchant, "test", id, "succeeded");
      JsonNode attempts =
          get("/internal/webhook_deliveries/whd_" + id + "/attempts", merchant, "test").json();
      JsonNode cutOff = attempts.get("data").get(0);
      assertTrue(cutOff.get("status_code").isNull(), cutOff.toString());
      assertTrue(cutOff.get("error").asText().startsWith("timed out"), cutOff.toString());
      long latency = cutOff.get("latency_ms").asLong();
      assertTrue(latency >= 950 && latency < 2000, "cut off at the timeout: " + latency + " ms");
      assertEquals(200, attempts.get("data").get(1).get("status_code").asInt());
    }
  }

  @Test
  void oneDeadEndpointDoesNotSlowAnotherEndpoint() {
    try (Receiver dead = Receiver.start((i, r) -> Receiver.Response.hang(Duration.ofSeconds(5)));
        Receiver healthy = Receiver.answering(200)) {
      String merchant = merchant();
      String deadId = createEndpoint(merchant, "test", dead.url(), "*").get("id").asText();
      createEndpoint(merchant, "test", healthy.url(), "*");
      // Warm both paths first, so the measurement is not of a first connection.
      events().send(merchant, Events.payment("payment.succeeded", "test"));
      await().atMost(PATIENCE).until(() -> healthy.count() == 1 && dead.count() == 1);

      int count = 20;
      List<Events.Event> burst = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        burst.add(Events.payment("payment.succeeded", "test"));
      }
      long sent = System.nanoTime();
      events().sendAll(merchant, burst);
      await().atMost(PATIENCE).until(() -> healthy.count() == count + 1);
      long allMillis = (healthy.received().get(count).nanos() - sent) / 1_000_000;
      int deadReached = dead.count() - 1;
      System.out.printf(
          "healthy endpoint: a burst of %d events delivered within %d ms beside a dead endpoint,"
              + " which was reached %d times meanwhile%n",
          count, allMillis, deadReached);
      // Were the dead endpoint to take the shared workers, its deliveries (first in every event)
      // would fill all eight for a full timeout (1 s) each: the burst would need over 2.5 s.
      assertTrue(allMillis < 2000, "all delivered within " + allMillis + " ms");
      assertTrue(deadReached <= 4, "the dead endpoint holds its own two slots only");
      JsonNode deadDeliveries =
          get(
                  "/internal/webhook_endpoints/" + deadId + "/deliveries?status=pending&limit=100",
                  merchant,
                  "test")
              .json();
      assertTrue(deadDeliveries.get("data").size() >= count - 4, "still queued for the dead one");
      assertEquals(
          200, command(WebhookCommands.ENDPOINT_DELETE, merchant, "test", deadId, null).status());
    }
  }

  @Test
  void aPaymentsWebhookUrlGetsTheEventSignedWithTheAccountSecret() throws Exception {
    try (Receiver override = Receiver.answering(200);
        Receiver endpoint = Receiver.answering(200)) {
      String merchant = merchant();
      Read account = post("/internal/account_secrets/" + merchant + "/test");
      assertEquals(200, account.status(), account.toString());
      String accountSecret = account.json().get("secret").asText();
      assertTrue(accountSecret.startsWith("whsec_"));
      assertEquals(
          accountSecret,
          post("/internal/account_secrets/" + merchant + "/test").json().get("secret").asText(),
          "create-or-get");
      String endpointSecret =
          createEndpoint(merchant, "test", endpoint.url()).get("secret").asText();

      Events.Event event =
          events().send(merchant, Events.payment("payment.succeeded", "test"), override.url());
      await().atMost(PATIENCE).until(() -> override.count() == 1 && endpoint.count() == 1);
      Receiver.Received got = override.received().get(0);
      assertArrayEquals(event.body(), got.body());
      assertTrue(
          Webhook.Signature.verifyHeader(
              got.bodyText(), got.header("X-Service-Signature"), accountSecret, 300));
      assertTrue(
          Webhook.Signature.verifyHeader(
              endpoint.received().get(0).bodyText(),
              endpoint.received().get(0).header("X-Service-Signature"),
              endpointSecret,
              300));
      assertNotEquals(got.deliveryId(), endpoint.received().get(0).deliveryId());
      JsonNode delivery = awaitDelivery(merchant, "test", got.deliveryId(), "succeeded");
      assertTrue(delivery.get("endpoint").isNull());
      assertEquals(override.url(), delivery.get("url").asText());

      // The operator rotates it: both sign for a day.
      Read rotated = post("/internal/account_secrets/" + merchant + "/test/rotate");
      String fresh = rotated.json().get("secret").asText();
      assertNotEquals(accountSecret, fresh);
      events().send(merchant, Events.payment("payment.failed", "test"), override.url());
      await().atMost(PATIENCE).until(() -> override.count() == 2);
      String header = override.received().get(1).header("X-Service-Signature");
      assertEquals(2, header.split("v1=").length - 1, header);
      for (String secret : List.of(accountSecret, fresh)) {
        assertTrue(
            Webhook.Signature.verifyHeader(
                override.received().get(1).bodyText(), header, secret, 300));
      }
    }
  }

  @Test
  void duringARotationDeliveriesCarryBothSignaturesAndTheNewSecretIsShownOnce() throws Exception {
    try (Receiver receiver = Receiver.answering(200)) {
      String merchant = merchant();
      JsonNode endpoint = createEndpoint(merchant, "test", receiver.url(), "*");
      String id = endpoint.get("id").asText();
      String old = endpoint.get("secret").asText();
      CommandReply rotated =
          command(WebhookCommands.ENDPOINT_ROTATE_SECRET, merchant, "test", id, null);
      assertEquals(200, rotated.status());
      String fresh = opened(rotated).get("secret").asText();
      assertNotEquals(old, fresh);

      events().send(merchant, Events.payment("payment.succeeded", "test"));
      await().atMost(PATIENCE).until(() -> receiver.count() == 1);
      Receiver.Received got = receiver.received().get(0);
      String header = got.header("X-Service-Signature");
      assertTrue(header.matches("t=\\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}"), header);
      for (String secret : List.of(old, fresh)) {
        assertTrue(Webhook.Signature.verifyHeader(got.bodyText(), header, secret, 300));
        assertDoesNotThrow(() -> WebhookSignature.verify(got.body(), header, secret));
      }
      assertFalse(get("/internal/webhook_endpoints/" + id, merchant, "test").json().has("secret"));
    }
  }

  @Test
  void theSameEventTwiceIsDeliveredOnce() {
    try (Receiver receiver = Receiver.answering(200)) {
      String merchant = merchant();
      createEndpoint(merchant, "test", receiver.url());
      Events.Event event = Events.payment("payment.succeeded", "test");
      events().send(merchant, event);
      events().send(merchant, event);
      events().send(merchant, Events.payment("payment.failed", "test"));
      await().atMost(PATIENCE).until(() -> receiver.count() >= 2);
      sleep(Duration.ofMillis(1500));
      assertEquals(List.of("payment.succeeded", "payment.failed"), types(receiver));
    }
  }

  @Test
  void redirectsAreNotFollowed() {
    try (Receiver elsewhere = Receiver.answering(200);
        Receiver redirecting =
            Receiver.start(
                (i, r) ->
                    new Receiver.Response(
                        i == 0 ? 302 : 200,
                        "",
                        Duration.ZERO,
                        Map.of("Location", elsewhere.url())))) {
      String merchant = merchant();
      createEndpoint(merchant, "test", redirecting.url());
      events().send(merchant, Events.payment("payment.succeeded", "test"));
      await().atMost(PATIENCE).until(() -> redirecting.count() == 2);
      assertEquals(0, elsewhere.count());
      JsonNode attempts = awaitAttempts(merchant, "test", 2);
      assertEquals(List.of(302, 200), statusCodes(attempts));
      assertTrue(attempts.at("/data/0/error").asText().contains("redirects are not followed"));
    }
  }

  @Test
  void readsListEndpointsWithoutSecretsAndDeliveriesPageInOrder() {
    try (Receiver receiver = Receiver.answering(200)) {
      String merchant = merchant();
      JsonNode first = createEndpoint(merchant, "test", receiver.url(), "*");
      createEndpoint(merchant, "test", "https://hooks.example.ph/second");
      Read list = get("/internal/webhook_endpoints", merchant, "test");
      assertEquals(200, list.status());
      assertEquals(List.of("object", "data"), fieldNames(list.json()), "object and data only");
      assertEquals(2, list.json().get("data").size());
      for (JsonNode endpoint : list.json().get("data")) {
        assertEquals(
            List.of("id", "object", "url", "events", "description", "enabled", "created"),
            fieldNames(endpoint));
      }
      assertEquals(
          List.of("id", "object", "url", "events", "secret", "description", "enabled", "created"),
          fieldNames(first));
      assertEquals(
          0, get("/internal/webhook_endpoints", merchant, "live").json().get("data").size());

      String id = first.get("id").asText();
      assertEquals(401, get("/internal/webhook_endpoints/" + id, merchant, "live").status());
      assertEquals(404, get("/internal/webhook_endpoints/" + id, merchant(), "test").status());
      assertEquals(404, get("/internal/webhook_endpoints/whe_nope", merchant, "test").status());

      for (int i = 0; i < 5; i++) {
        events().send(merchant, Events.payment("payment.succeeded", "test"));
      }
      await().atMost(PATIENCE).until(() -> receiver.count() == 5);
      String path = "/internal/webhook_endpoints/" + id + "/deliveries?limit=2";
      List<String> seen = new ArrayList<>();
      String cursor = null;
      boolean more = true;
      while (more) {
        JsonNode page =
            get(path + (cursor == null ? "" : "&starting_after=" + cursor), merchant, "test")
                .json();
        for (JsonNode delivery : page.get("data")) {
          seen.add(delivery.get("id").asText());
          cursor = delivery.get("id").asText();
        }
        more = page.get("has_more").asBoolean();
      }
      assertEquals(5, seen.size());
      List<String> sorted = new ArrayList<>(seen);
      sorted.sort(
          (a, b) -> Long.compare(Long.parseLong(a.substring(4)), Long.parseLong(b.substring(4))));
      assertEquals(sorted, seen, "ascending");
      assertEquals(400, get(path + "&starting_after=evt_x", merchant, "test").status());
      assertEquals(400, get(path + "&status=lost", merchant, "test").status());
      assertEquals(
          5,
          get(
                  "/internal/webhook_endpoints/" + id + "/deliveries?status=succeeded",
                  merchant,
                  "test")
              .json()
              .get("data")
              .size());
      assertEquals(
          401, get("/internal/webhook_deliveries/" + seen.get(0), merchant, "live").status());
      assertEquals(
          404,
          get("/internal/webhook_deliveries/" + seen.get(0) + "/attempts", merchant(), "test")
              .status());
    }
  }

  @Test
  void deletingAnEndpointEndsItsPendingDeliveriesAndHidesIt() {
    try (Receiver receiver = Receiver.answering(500)) {
      String merchant = merchant();
      String id = createEndpoint(merchant, "test", receiver.url()).get("id").asText();
      events().send(merchant, Events.payment("payment.succeeded", "test"));
      await().atMost(PATIENCE).until(() -> receiver.count() == 1);
      long delivery = receiver.received().get(0).deliveryId();
      awaitDelivery(merchant, "test", delivery, "pending");

      CommandReply deleted = command(WebhookCommands.ENDPOINT_DELETE, merchant, "test", id, null);
      assertEquals(200, deleted.status());
      assertTrue(deleted.body().get("deleted").asBoolean());
      JsonNode ended = awaitDelivery(merchant, "test", delivery, "failed");
      assertEquals("endpoint deleted", ended.get("last_error").asText());
      assertEquals(404, get("/internal/webhook_endpoints/" + id, merchant, "test").status());
      assertEquals(
          0, get("/internal/webhook_endpoints", merchant, "test").json().get("data").size());
      assertEquals(
          404, command(WebhookCommands.ENDPOINT_DELETE, merchant, "test", id, null).status());
      CommandReply replay =
          command(WebhookCommands.DELIVERY_REPLAY, merchant, "test", "" + delivery, null);
      assertEquals(400, replay.status());
      sleep(Duration.ofMillis(1500));
      assertEquals(1, receiver.count(), "no more attempts");
    }
  }

  @Test
  void updatesAreValidatedAndApplied() {
    String merchant = merchant();
    String id = createEndpoint(merchant, "test", "https://hooks.example.ph/a").get("id").asText();
    CommandReply updated =
        update(
            merchant,
            "test",
            id,
            Map.of(
                "url", "https://hooks.example.ph/b", "events", List.of("*"), "description", "all"));
    assertEquals(200, updated.status(), updated.body().toString());
    assertEquals("https://hooks.example.ph/b", updated.body().get("url").asText());
    assertEquals(List.of("*"), strings(updated.body().get("events")));
    assertEquals("all", updated.body().get("description").asText());
    assertFalse(updated.body().has("secret"));

    CommandReply unknownType =
        update(merchant, "test", id, Map.of("events", List.of("payment.pending")));
    assertEquals(400, unknownType.status());
    assertTrue(unknownType.body().at("/error/issues/events").isTextual());
    assertEquals(401, update(merchant, "live", id, Map.of("enabled", false)).status());
    assertEquals(404, update(merchant(), "test", id, Map.of("enabled", false)).status());
  }

  // ------------------------------------------------------------------ helpers

  private CommandReply update(String merchant, String environment, String id, Map<String, ?> body) {
    return command(
        WebhookCommands.ENDPOINT_UPDATE,
        merchant,
        environment,
        id,
        Json.mapper().valueToTree(body));
  }

  private JsonNode awaitDelivery(String merchant, String environment, long id, String status) {
    AtomicReference<JsonNode> last = new AtomicReference<>();
    await()
        .atMost(PATIENCE)
        .until(
            () -> {
              Read read = get("/internal/webhook_deliveries/" + id, merchant, environment);
              last.set(read.json());
              return read.status() == 200 && status.equals(read.json().get("status").asText());
            });
    return last.get();
  }

  /** The attempts of the merchant environment's only delivery, once there are {@code count}. */
  private JsonNode awaitAttempts(String merchant, String environment, int count) {
    AtomicReference<JsonNode> attempts = new AtomicReference<>();
    await()
        .atMost(PATIENCE)
        .until(
            () -> {
              JsonNode endpoints = get("/internal/webhook_endpoints", merchant, environment).json();
              String endpoint = endpoints.get("data").get(0).get("id").asText();
              JsonNode deliveries =
                  get(
                          "/internal/webhook_endpoints/" + endpoint + "/deliveries",
                          merchant,
                          environment)
                      .json();
              if (deliveries.get("data").isEmpty()) {
                return false;
              }
              String delivery = deliveries.get("data").get(0).get("id").asText();
              attempts.set(
                  get(
                          "/internal/webhook_deliveries/" + delivery + "/attempts",
                          merchant,
                          environment)
                      .json());
              return attempts.get().get("data").size() >= count;
            });
    return attempts.get();
  }

  private static List<String> types(Receiver receiver) {
    return receiver.received().stream().map(r -> r.header("X-Service-Event")).toList();
  }

  private static List<Integer> statusCodes(JsonNode attempts) {
    List<Integer> codes = new ArrayList<>();
    attempts
        .get("data")
        .forEach(
            a -> codes.add(a.get("status_code").isNull() ? null : a.get("status_code").asInt()));
    return codes;
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(v -> values.add(v.asText()));
    return values;
  }

  private static List<String> fieldNames(JsonNode object) {
    List<String> names = new ArrayList<>();
    object.fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
