package ph.payments.payments.payouts.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import ph.payments.payments.payouts.application.LedgerHolds;
import ph.payments.platform.json.Json;
import ph.payments.platform.money.Money;
import ph.payments.testkit.FailingReplica;

/**
 * Issue 20: payments-service takes a payout's hold from ledger-service even while one ledger
 * replica is dead ({@code payments.ledger-url} a comma list). The replicas share one store of
 * holds, as real ledger replicas share their database, and answer a repeated payout id with the
 * hold as it stands (the contract, docs/ledger.md), so a hold the dying replica took before it
 * could answer is answered by the next replica as that same hold, not taken twice.
 */
class HttpLedgerHoldsReplicasTest {

  private static final String TOKEN = "internal-token-of-the-holds-test";

  /** payout id → amount: the ledger database the replicas share. */
  private final Map<String, String> holds = new ConcurrentHashMap<>();

  private final ConcurrentLinkedQueue<String> liveSaw = new ConcurrentLinkedQueue<>();
  private HttpServer live;

  @BeforeEach
  void startTheLiveReplica() throws IOException {
    live = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    live.createContext("/internal/holds", this::ledger);
    live.start();
  }

  @AfterEach
  void stop() {
    live.stop(0);
  }

  @Test
  void aHoldIsTakenAtTheNextReplicaWhenTheFirstRefusesTheConnection() {
    HttpLedgerHolds ledger = holdsAt(dead() + "," + liveUrl());

    assertInstanceOf(LedgerHolds.Held.class, ledger.hold(request("po_1", "100.00")));

    assertEquals(Map.of("po_1", "100.00"), holds);
    assertEquals(List.of("POST /internal/holds po_1 -> 201"), List.copyOf(liveSaw));
  }

  @Test
  void aHoldTheFirstReplicaTookBeforeDyingIsAnsweredByTheNextAsTheSameHold() {
    try (FailingReplica dying =
        FailingReplica.dropping(request -> take(Json.tree(new String(request.body()))))) {
      HttpLedgerHolds ledger = holdsAt(dying.url() + "," + liveUrl());

      assertInstanceOf(LedgerHolds.Held.class, ledger.hold(request("po_2", "250.00")));

      assertEquals(1, dying.received().size());
      assertEquals(Map.of("po_2", "250.00"), holds, "one hold, taken once");
      assertEquals(
          List.of("POST /internal/holds po_2 -> 200"),
          List.copyOf(liveSaw),
          "the next replica answered the repeat with the hold as it stands");
    }
  }

  @Test
  void aReplicaThatDoesNotAnswerInTheLedgerTimeoutIsFollowedByTheNext() {
    try (FailingReplica hung = FailingReplica.silent()) {
      HttpLedgerHolds ledger = holdsAt(hung.url() + "," + liveUrl());

      assertInstanceOf(LedgerHolds.Held.class, ledger.hold(request("po_3", "10.00")));

      assertEquals(1, hung.received().size());
      assertEquals(List.of("POST /internal/holds po_3 -> 201"), List.copyOf(liveSaw));
    }
  }

  @Test
  void releasingAndListingGoToTheNextReplicaToo() {
    holds.put("po_4", "40.00");
    HttpLedgerHolds ledger = holdsAt(dead() + "," + liveUrl());

    ledger.release("po_4");
    List<LedgerHolds.OpenHold> open = ledger.heldBefore(Instant.now(), null, 10);

    assertEquals(List.of(), open);
    assertEquals(
        List.of("POST /internal/holds/po_4/release -> 200", "GET /internal/holds -> 200"),
        List.copyOf(liveSaw));
  }

  @Test
  void anAnswerEndsTheCallEvenAnErrorOne() {
    holds.put("po_5", "1.00"); // the first replica answers 409: another amount for this payout
    HttpLedgerHolds ledger = holdsAt(liveUrl() + "," + dead());

    LedgerHolds.Outcome outcome = ledger.hold(request("po_5", "2.00"));

    assertInstanceOf(LedgerHolds.Refused.class, outcome);
    assertEquals(List.of("POST /internal/holds po_5 -> 409"), List.copyOf(liveSaw));
  }

  @Test
  void noReplicaReachedIsUnavailableSoTheCommandIsRetried() {
    try (FailingReplica dying = FailingReplica.dropping()) {
      HttpLedgerHolds ledger = holdsAt(dead() + "," + dying.url());

      assertThrows(LedgerHolds.Unavailable.class, () -> ledger.hold(request("po_6", "6.00")));

      assertEquals(Map.of(), holds);
    }
  }

  private static HttpLedgerHolds holdsAt(String urls) {
    return new HttpLedgerHolds(urls, TOKEN, Duration.ofMillis(500));
  }

  private static String dead() {
    return "http://127.0.0.1:" + FailingReplica.refusingPort();
  }

  private String liveUrl() {
    return "http://127.0.0.1:" + live.getAddress().getPort();
  }

  private static LedgerHolds.HoldRequest request(String payoutId, String amount) {
    return new LedgerHolds.HoldRequest(payoutId, "mer_1", "test", Money.of(amount, "PHP"));
  }

  /** 201 when the hold is new, 200 when the payout id holds the same amount, 409 otherwise. */
  private int take(JsonNode hold) {
    String payoutId = hold.get("payout_id").asText();
    String amount = hold.get("amount").decimalValue().setScale(2).toPlainString();
    String before = holds.putIfAbsent(payoutId, amount);
    return before == null ? 201 : before.equals(amount) ? 200 : 409;
  }

  /** The live replica: the hold contract of docs/ledger.md over the shared store. */
  private void ledger(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    String method = exchange.getRequestMethod();
    String seen = method + " " + path;
    int status = 200;
    String body = "{\"object\":\"list\",\"data\":[]}";
    if (!TOKEN.equals(exchange.getRequestHeaders().getFirst("X-Internal-Token"))) {
      status = 401;
      body = "{}";
    } else if (method.equals("POST") && path.equals("/internal/holds")) {
      JsonNode hold = Json.tree(new String(exchange.getRequestBody().readAllBytes()));
      seen += " " + hold.get("payout_id").asText();
      status = take(hold);
      body =
          status == 409
              ? "{\"error\":{\"code\":\"conflict\",\"message\":\"another amount\"}}"
              : "{\"object\":\"payout_hold\",\"status\":\"held\"}";
    } else if (method.equals("POST") && path.endsWith("/release")) {
      body = "{\"object\":\"payout_hold\",\"status\":\"released\"}";
    }
    liveSaw.add(seen + " -> " + status);
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }
}
