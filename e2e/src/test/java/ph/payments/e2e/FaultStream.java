package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import ph.payments.webhooks.verify.WebhookSignature;
import ph.payments.webhooks.verify.WebhookSignatureException;

/**
 * The fault stream of issue 8 (docs/reliability.md), for a test that injects faults into a {@link
 * SystemUnderTest}: merchants' clients run flows (create a payment, read it back, drive it to
 * success or failure with the sandbox helper, refund part or all of it, pay out from the balance),
 * each request with an {@code Idempotency-Key}, and retry every request whose outcome is unknown
 * (no answer, 5xx, 202 while the command is accepted but unanswered, 409 while the first try still
 * runs, 429) with the same key until it is answered definitively, as SPEC part 4 lets a merchant
 * do. A webhook receiver takes their deliveries.
 *
 * <p>Afterwards ({@link #checkEverythingHappenedOnce}): every accepted payment, refund and payout
 * exists once, in its state; a replay of every request returns the stored answer; each expected
 * event is in the event log once and nothing else is; every event reached the merchant's webhook
 * receiver, under one delivery number of its own; the balance is what the accepted flows add up to,
 * the journal has one transaction per fact, and the operator's ledger audit finds nothing.
 *
 * <p>Used by {@link FaultInjectionE2EIT} (one process per service; kills, a broker restart, a
 * refusing database) and {@link ReplicaFaultsE2EIT} (two replicas of each internal service, one
 * killed at a time).
 */
final class FaultStream implements AutoCloseable {

  /**
   * The lock of the classes that run a fault stream on a system of their own: they run beside the
   * shared system's classes, but one at a time (junit-platform.properties).
   */
  static final String OWN_SYSTEM = "a fault-injection system of its own";

  private static final Duration PAUSE_BETWEEN_FLOWS = Duration.ofMillis(250);
  private static final Duration CALL_DEADLINE = Duration.ofMinutes(3);
  private static final Duration CONVERGENCE_DEADLINE = Duration.ofMinutes(3);
  private static final long CLASS_LOADED = System.nanoTime();

  /** One fault: does it and says what happened ({@link #took}), e.g. "refused 5.0 s". */
  @FunctionalInterface
  interface Fault {
    String inject() throws Exception;
  }

  private final SystemUnderTest system;
  private final Merchant operator;
  private final Receiver receiver;
  private final List<Client> clients = new ArrayList<>();
  private final Map<String, String> recoveries = new LinkedHashMap<>();

  /** Requests sent, by the phase they were sent in and what came back ("answered": definitive). */
  private final Map<String, Map<String, LongAdder>> attempts = new ConcurrentHashMap<>();

  /** What the fault orchestrator is doing now; every request and retry is counted under it. */
  private volatile String phase = "setup";

  private ExecutorService pool;
  private long started;
  private long streamEnded;
  private long converged;

  /** A stream against {@code system}, with its webhook receiver listening; no client yet. */
  FaultStream(SystemUnderTest system) throws IOException {
    this.system = system;
    this.operator = new Merchant(system.gatewayUrl(), system.adminToken);
    this.receiver = Receiver.start();
  }

  /**
   * bin/run started as {@code name} with {@link #environment}{@code (more)}, and its start-up time
   * printed.
   */
  static SystemUnderTest startSystem(String name, Map<String, String> more) throws Exception {
    SystemUnderTest system = SystemUnderTest.start(name, environment(more));
    System.out.println("bin/run was ready after " + system.startUp.toMillis() + " ms");
    return system;
  }

  /**
   * bin/run's environment for a system under faults, then {@code more}: the clients are the load
   * and no key should be throttled; a delivery that failed, or whose attempt died with its process,
   * comes back soon; a JVM restarting on a busy 2-core machine may take longer than bin/run's
   * default 90 s (these tests check what survives a restart, not how fast it is); pools of 5
   * connections, as the shared system's, since it runs beside that one on the same PostgreSQL
   * server (100 connections on a default install).
   */
  private static Map<String, String> environment(Map<String, String> more) {
    Map<String, String> environment = new HashMap<>();
    environment.put("DATABASE_POOL_SIZE", "5");
    environment.put("RATE_LIMIT_PER_MINUTE", "1000000");
    environment.put("WEBHOOK_RETRY_SCHEDULE", "1s,1s,2s,3s,5s,8s");
    environment.put("WEBHOOK_TIMEOUT", "3s");
    environment.put("HEALTH_TIMEOUT_SECONDS", "200");
    environment.putAll(more);
    return environment;
  }

  /**
   * Signs up {@code merchants} merchants, each with a webhook endpoint on the receiver, starts one
   * client each ("warm-up") and waits until each has finished two flows.
   */
  void start(int merchants) throws InterruptedException {
    started = System.nanoTime();
    for (int i = 0; i < merchants; i++) {
      clients.add(signUp(i));
    }
    phase("warm-up");
    pool = Executors.newFixedThreadPool(merchants);
    clients.forEach(pool::execute);
    awaitProgress(2);
  }

  /** Starts a phase, and says so with the time since the class was loaded. */
  void phase(String name) {
    phase = name;
    System.out.printf("%7.1f s  %s%n", (System.nanoTime() - CLASS_LOADED) / 1e9, name);
  }

  /**
   * Injects one fault as phase {@code name} while the clients go on, waits until every client has
   * finished a flow (the whole path works again; recorded for the figures with what {@code fault}
   * said), then one more before the next fault.
   */
  void inject(String name, Fault fault) throws Exception {
    phase(name);
    long began = System.nanoTime();
    String what = fault.inject();
    awaitProgress(1);
    recoveries.put(
        name,
        String.format(
            "%s; every client finished a flow again %.1f s after the fault began",
            what, (System.nanoTime() - began) / 1e9));
    awaitProgress(1);
  }

  /** "what 12.3 s", for {@link Fault#inject}. */
  static String took(String what, Duration duration) {
    return String.format("%s %.1f s", what, duration.toMillis() / 1000.0);
  }

  /** After the faults: two more flows each, then the clients stop; a client's failure fails. */
  void finish() throws InterruptedException {
    phase("after the faults");
    awaitProgress(2);
    clients.forEach(c -> c.stopping = true);
    pool.shutdown();
    assertTrue(pool.awaitTermination(5, TimeUnit.MINUTES), "the clients did not finish");
    for (Client client : clients) {
      if (client.failure != null) {
        throw new AssertionError("client " + client.index + " failed", client.failure);
      }
    }
    streamEnded = System.nanoTime();
  }

  /** Waits until the system has settled, then checks that everything happened exactly once. */
  void checkEverythingHappenedOnce() throws InterruptedException {
    phase("checks");
    awaitConvergence();
    converged = System.nanoTime();
    // Each client's checks read only its own merchant's objects: they run side by side (a few
    // thousand reads and replays in all, most of the checks' time when run one after another).
    List<JsonNode> allEvents = new ArrayList<>();
    ExecutorService checkers = Executors.newFixedThreadPool(clients.size());
    try {
      List<Future<List<JsonNode>>> checked = new ArrayList<>();
      for (Client client : clients) {
        checked.add(
            checkers.submit(
                () -> {
                  everyAcceptedObjectExistsOnceInItsState(client);
                  everyRequestReplaysToItsStoredAnswer(client);
                  List<JsonNode> events = eachExpectedEventIsLoggedOnce(client);
                  theBalanceAndTheJournalMatchTheFlows(client);
                  return events;
                }));
      }
      for (Future<List<JsonNode>> events : checked) {
        try {
          allEvents.addAll(events.get());
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Error error) {
            throw error; // an assertion's own failure, as it would be in this thread
          }
          throw new AssertionError("a client's checks failed", e.getCause());
        }
      }
    } finally {
      checkers.shutdownNow();
    }
    everyEventReachedTheReceiverUnderItsOwnDeliveryNumber(allEvents);
    theLedgerAuditFindsNothing();
  }

  /** How many reads (the clients' GETs) got each answer, over all phases: "200", "503", …. */
  Map<String, Long> readOutcomes() {
    Map<String, Long> reads = new TreeMap<>();
    attempts
        .values()
        .forEach(
            byOutcome ->
                byOutcome.forEach(
                    (outcome, count) -> {
                      if (outcome.startsWith("read ")) {
                        reads.merge(outcome.substring(5), count.sum(), Long::sum);
                      }
                    }));
    return reads;
  }

  /** Flows the clients have finished so far. */
  int flows() {
    return clients.stream().mapToInt(c -> c.flows.get()).sum();
  }

  @Override
  public void close() {
    if (pool != null) {
      clients.forEach(c -> c.stopping = true);
      pool.shutdownNow();
    }
    receiver.server.stop(0);
    receiver.workers.shutdownNow();
  }

  /**
   * SIGTERM to bin/run: it exits 0, and no port of the system and none of its processes (the
   * restarted ones included, by their pid files) outlive it; then its databases are dropped.
   */
  static void stopLeavingNothing(SystemUnderTest system) throws Exception {
    if (system == null) {
      return; // it did not start
    }
    try {
      List<Long> pids = new ArrayList<>();
      pids.add(system.pid(SystemUnderTest.KAFKA));
      for (String unit : system.units()) {
        pids.add(system.pid(unit));
      }
      assertEquals(0, system.stop(), system.outputTail());
      assertFalse(system.anyPortOpen(), "a service is still listening after bin/run stopped");
      for (long pid : pids) {
        assertFalse(
            ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
            "process " + pid + " outlived bin/run");
      }
    } finally {
      system.close();
    }
  }

  /** Waits until every client has finished {@code flows} more flows: the whole path works. */
  void awaitProgress(int flows) throws InterruptedException {
    Map<Client, Integer> target = new HashMap<>();
    clients.forEach(c -> target.put(c, c.flows.get() + flows));
    await(
        Duration.ofMinutes(4),
        () -> {
          for (Client client : clients) {
            if (client.failure != null) {
              throw new AssertionError("client " + client.index + " failed", client.failure);
            }
          }
          return clients.stream().allMatch(c -> c.flows.get() >= target.get(c));
        },
        () -> "the stream did not progress during " + phase);
  }

  // ------------------------------------------------------------------------------ after recovery

  /**
   * Events are listed once no older transaction is in flight, the ledger and webhook-service
   * consume asynchronously, and deliveries whose attempt died with webhook-service wait for their
   * lease: wait until it has all settled, then check exactly.
   */
  private void awaitConvergence() throws InterruptedException {
    await(
        CONVERGENCE_DEADLINE,
        () -> {
          Set<String> logged = new HashSet<>();
          for (Client client : clients) {
            List<JsonNode> events = reconcile(client.api);
            if (events.size() < client.expectedEvents().size()) {
              return false;
            }
            events.forEach(e -> logged.add(e.get("id").asText()));
            if (available(client).compareTo(client.available) != 0) {
              return false;
            }
          }
          return receiver.acknowledgedEventIds().containsAll(logged);
        },
        () -> "the system did not settle");
  }

  private void everyAcceptedObjectExistsOnceInItsState(Client client) {
    Map<String, String> listed = new HashMap<>();
    for (String resource : List.of("payments", "refunds", "payouts")) {
      for (JsonNode object : client.api.listAll("/v1/" + resource)) {
        String previous = listed.put(object.get("id").asText(), object.get("status").asText());
        assertEquals(null, previous, object.get("id").asText() + " is listed twice");
      }
    }
    Map<String, String> accepted = new HashMap<>(client.statuses());
    assertEquals(
        new TreeMap<>(accepted),
        new TreeMap<>(listed),
        "client "
            + client.index
            + ": the lists hold exactly the accepted objects, in the states their answers gave");
    for (Map.Entry<String, String> object : accepted.entrySet()) {
      String id = object.getKey();
      String resource =
          id.startsWith("pay_") ? "payments" : id.startsWith("re_") ? "refunds" : "payouts";
      Merchant.Reply read = client.api.get("/v1/" + resource + "/" + id);
      assertEquals(200, read.status(), read.raw().body());
      assertEquals(id, read.json().get("id").asText());
      assertEquals(object.getValue(), read.json().get("status").asText(), id);
    }
  }

  /** The same key and body again: the stored answer, byte for byte, and nothing new. */
  private void everyRequestReplaysToItsStoredAnswer(Client client) {
    for (Call call : client.calls) {
      Merchant.Reply replay =
          client.api.post(call.path(), call.body(), "Idempotency-Key", call.key());
      assertEquals(call.status(), replay.status(), call.key());
      assertEquals(call.response(), replay.raw().body(), call.key());
      assertEquals(
          "true",
          replay.raw().headers().firstValue("Idempotent-Replayed").orElse(null),
          call.key());
    }
  }

  private List<JsonNode> eachExpectedEventIsLoggedOnce(Client client) {
    List<JsonNode> events = reconcile(client.api);
    Set<String> ids = new HashSet<>();
    Map<String, Integer> logged = new TreeMap<>();
    for (JsonNode event : events) {
      assertTrue(ids.add(event.get("id").asText()), "event listed twice: " + event);
      logged.merge(
          event.get("type").asText() + " " + event.at("/data/object/id").asText(), 1, Integer::sum);
    }
    Map<String, Integer> expected = new TreeMap<>();
    client.expectedEvents().forEach(e -> expected.merge(e, 1, Integer::sum));
    assertEquals(expected, logged, "client " + client.index + ": each event once, no others");
    return events;
  }

  private void theBalanceAndTheJournalMatchTheFlows(Client client) {
    assertEquals(
        client.available.toPlainString(), available(client).toPlainString(), "available balance");
    Merchant.Reply statement =
        operator.get("/admin/v1/merchants/" + client.merchantId + "/statement?environment=test");
    assertEquals(200, statement.status(), statement.raw().body());
    Map<String, Set<String>> transactions = new TreeMap<>();
    String[] lines = statement.raw().body().split("\n");
    for (String line : List.of(lines).subList(1, lines.length)) {
      String[] column = line.split(",");
      // transaction_id per (kind, reference): a doubled fact would show a second transaction.
      transactions
          .computeIfAbsent(column[4] + " " + column[5], k -> new HashSet<>())
          .add(column[3]);
    }
    transactions.forEach(
        (fact, ids) -> assertEquals(1, ids.size(), fact + " is in the journal more than once"));
    assertEquals(
        new TreeSet<>(client.expectedJournal()),
        new TreeSet<>(transactions.keySet()),
        "client " + client.index + ": one journal transaction per fact, and no other");
  }

  private void everyEventReachedTheReceiverUnderItsOwnDeliveryNumber(List<JsonNode> events) {
    Map<String, JsonNode> logged = new HashMap<>();
    events.forEach(e -> logged.put(e.get("id").asText(), e));
    assertEquals(
        new TreeSet<>(logged.keySet()),
        new TreeSet<>(receiver.acknowledgedEventIds()),
        "the receivers acknowledged exactly the logged events");
    Map<String, Set<String>> numbersByEvent = new HashMap<>();
    Map<String, Set<String>> eventsByNumber = new HashMap<>();
    for (Receiver.Delivery delivery : receiver.deliveries) {
      assertTrue(delivery.signatureValid(), "bad signature on delivery " + delivery.number());
      JsonNode event = logged.get(delivery.eventId());
      assertEquals(event, readJson(delivery.body()), "the webhook carries the logged event");
      assertEquals(event.get("type").asText(), delivery.type());
      numbersByEvent
          .computeIfAbsent(delivery.eventId(), k -> new HashSet<>())
          .add(delivery.number());
      eventsByNumber
          .computeIfAbsent(delivery.number(), k -> new HashSet<>())
          .add(delivery.eventId());
    }
    // docs/webhooks.md: at least once, the same number on every attempt of a delivery; one
    // endpoint per merchant means one delivery per event.
    numbersByEvent.forEach(
        (event, numbers) -> assertEquals(1, numbers.size(), event + " came as " + numbers));
    eventsByNumber.forEach(
        (number, ids) -> assertEquals(1, ids.size(), "delivery " + number + " carried " + ids));
  }

  private void theLedgerAuditFindsNothing() {
    Merchant.Reply audit = operator.get("/admin/v1/ledger/audit");
    assertEquals(200, audit.status(), audit.raw().body());
    assertTrue(audit.json().get("consistent").asBoolean(), audit.raw().body());
    assertTrue(audit.json().get("ok").asBoolean(), audit.raw().body());
  }

  /** What the stream did, each fault's recovery, and the time it all took, on standard output. */
  void printFigures() {
    long testStarted = started;
    Map<String, Integer> started = new LinkedHashMap<>();
    Map<String, Long> longest = new HashMap<>();
    int flows = 0;
    int payments = 0;
    int refunds = 0;
    int payouts = 0;
    int insufficient = 0;
    for (Client client : clients) {
      flows += client.flows.get();
      payments += client.payments.size();
      refunds += client.refunds.size();
      payouts += client.payouts.size();
      insufficient += client.insufficientBalance;
      for (Call call : client.calls) {
        started.merge(call.phase(), 1, Integer::sum);
        longest.merge(call.phase(), call.millis(), Math::max);
      }
    }
    StringBuilder out = new StringBuilder("\nFault injection figures\n");
    out.append(
        String.format(
            "flows %d: payments %d, refunds %d, payouts %d (%d refused insufficient_balance)%n",
            flows, payments, refunds, payouts, insufficient));
    out.append(
        String.format(
            "webhook deliveries received %d for %d events (first attempts refused on purpose: %d)%n",
            receiver.deliveries.size(),
            receiver.acknowledgedEventIds().size(),
            receiver.refusedOnPurpose.get()));
    recoveries.forEach((fault, how) -> out.append(fault).append(": ").append(how).append('\n'));
    out.append(
        "phase | requests started | longest of them, s | requests sent in the phase, by outcome\n");
    for (String name : started.keySet()) {
      Map<String, Long> outcomes = new TreeMap<>();
      attempts.getOrDefault(name, Map.of()).forEach((k, v) -> outcomes.put(k, v.sum()));
      out.append(
          String.format(
              "%s | %d | %.1f | %s%n",
              name, started.get(name), longest.get(name) / 1000.0, outcomes));
    }
    out.append(
        String.format(
            "test %.1f s (stream %.1f s, settling %.1f s, checks %.1f s); load average %.1f%n",
            (System.nanoTime() - testStarted) / 1e9,
            (streamEnded - testStarted) / 1e9,
            (converged - streamEnded) / 1e9,
            (System.nanoTime() - converged) / 1e9,
            java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                .getSystemLoadAverage()));
    System.out.println(out);
  }

  /** One answered request: what was sent, what came back, and what it took. */
  private record Call(
      String path,
      String body,
      String key,
      int status,
      String response,
      JsonNode json,
      int attempts,
      String phase,
      long millis) {}

  private Client signUp(int index) {
    Merchant.Reply created =
        operator.post(
            "/admin/v1/merchants",
            "{\"name\":\"Fault Store " + index + "\",\"email\":\"f" + index + "@example.com\"}");
    assertEquals(201, created.status(), created.raw().body());
    Merchant api =
        new Merchant(system.gatewayUrl(), created.json().at("/api_keys/0/secret").asText());
    Merchant.Reply endpoint =
        api.post(
            "/v1/webhooks/endpoints",
            "{\"url\":\"" + receiver.url(index) + "\",\"events\":[\"*\"]}",
            "Idempotency-Key",
            "endpoint-" + index);
    assertEquals(201, endpoint.status(), endpoint.raw().body());
    receiver.secrets.put(index, endpoint.json().get("secret").asText());
    return new Client(index, created.json().get("id").asText(), api);
  }

  /**
   * A merchant's integration: its own merchant, key and webhook endpoint, one flow after another,
   * and its own account of what was accepted.
   */
  private final class Client implements Runnable {
    final int index;
    final String merchantId;
    final Merchant api;
    final AtomicInteger flows = new AtomicInteger();
    final List<Call> calls = new ArrayList<>();
    final Map<String, String> payments = new LinkedHashMap<>();
    final Map<String, String> refunds = new LinkedHashMap<>();
    final Map<String, String> payouts = new LinkedHashMap<>();
    final Random random;
    BigDecimal available = new BigDecimal("0.00");
    int insufficientBalance;
    volatile boolean stopping;
    volatile Throwable failure;

    private Client(int index, String merchantId, Merchant api) {
      this.index = index;
      this.merchantId = merchantId;
      this.api = api;
      this.random = new Random(index);
    }

    @Override
    public void run() {
      try {
        for (int n = 0; !stopping; n++) {
          flow(n);
          flows.incrementAndGet();
          Thread.sleep(PAUSE_BETWEEN_FLOWS.toMillis());
        }
      } catch (Throwable e) {
        failure = e;
      }
    }

    /**
     * A payment by card or e-wallet (both refund at once); every fifth declined, the others
     * captured; every second captured one refunded, alternately in full and in part; every third
     * flow pays out 40 % of the balance, a quarter of those to an account that fails.
     */
    private void flow(int n) throws InterruptedException {
      String key = "c" + index + "-" + n;
      BigDecimal amount = BigDecimal.valueOf(10_000 + random.nextInt(490_000), 2);
      String method = n % 2 == 0 ? "card" : "ewallet1";
      Call created =
          expect(
              201,
              send(
                  "/v1/payments",
                  "{\"amount\":"
                      + amount.toPlainString()
                      + ",\"method\":\""
                      + method
                      + "\",\"description\":\"fault stream "
                      + key
                      + "\"}",
                  key + "-payment"));
      String payment = created.json().get("id").asText();
      Merchant.Reply read = read("/v1/payments/" + payment);
      assertEquals(payment, read.json().get("id").asText(), read.raw().body());
      boolean decline = n % 5 == 4;
      Call moved =
          expect(
              200,
              send(
                  "/v1/test_helpers/payments/" + payment + (decline ? "/fail" : "/succeed"),
                  null,
                  key + "-helper"));
      String status = moved.json().get("status").asText();
      assertEquals(decline ? "failed" : "succeeded", status, moved.response());
      payments.put(payment, status);
      if (decline) {
        return;
      }
      available = available.add(moved.json().get("net_amount").decimalValue());

      if (n % 2 == 0) {
        boolean full = n % 4 == 0;
        BigDecimal refunded =
            full ? amount : amount.divide(BigDecimal.valueOf(3), RoundingMode.DOWN);
        String body =
            "{\"payment\":\""
                + payment
                + "\""
                + (full ? "" : ",\"amount\":" + refunded.setScale(2).toPlainString())
                + ",\"reason\":\"requested_by_customer\"}";
        Call refund = expect(201, send("/v1/refunds", body, key + "-refund"));
        assertEquals("succeeded", refund.json().get("status").asText(), refund.response());
        refunds.put(refund.json().get("id").asText(), "succeeded");
        available = available.subtract(refunded.setScale(2));
        if (full) {
          payments.put(payment, "refunded");
        }
      }

      if (n % 3 == 2) {
        BigDecimal amountOut =
            available.multiply(new BigDecimal("0.4")).setScale(2, RoundingMode.DOWN);
        if (amountOut.compareTo(new BigDecimal("50")) < 0) {
          return;
        }
        String account = n % 4 == 3 ? "09000000001" : "09171234567"; // 0900…01 fails: closed
        Call payout =
            send(
                "/v1/payouts",
                "{\"amount\":"
                    + amountOut.toPlainString()
                    + ",\"method\":\"ewallet1\",\"destination\":{\"account_no\":\""
                    + account
                    + "\"}}",
                key + "-payout");
        if (payout.status() == 400
            && "insufficient_balance".equals(payout.json().at("/error/code").asText())) {
          // The ledger credits payments from events, a moment after the helper's answer (longer
          // while a consumer is down): a definitive refusal, and nothing was created.
          insufficientBalance++;
          return;
        }
        expect(201, payout);
        String payoutStatus = payout.json().get("status").asText();
        payouts.put(payout.json().get("id").asText(), payoutStatus);
        if (payoutStatus.equals("succeeded")) {
          available = available.subtract(amountOut);
        } else {
          assertEquals("failed", payoutStatus, payout.response());
        }
      }
    }

    /**
     * Sends until the answer is definitive, with the same key each time. Unknown outcomes are no
     * answer at all (the connection broke: the request may or may not have been applied), 202 (a
     * creation whose reply is late: the id is known, the result not yet), 5xx, 409 (the first try
     * is still running) and 429.
     */
    private Call send(String path, String body, String key) throws InterruptedException {
      String startPhase = phase;
      long started = System.nanoTime();
      long deadline = started + CALL_DEADLINE.toNanos();
      long pauseMillis = 100;
      for (int attempt = 1; ; attempt++) {
        String cause;
        long retryAfterMillis = 0;
        try {
          Merchant.Reply reply = api.post(path, body, "Idempotency-Key", key);
          int status = reply.status();
          if (status != 202 && status != 409 && status != 429 && status < 500) {
            count("answered");
            Call call =
                new Call(
                    path,
                    body,
                    key,
                    status,
                    reply.raw().body(),
                    reply.json(),
                    attempt,
                    startPhase,
                    (System.nanoTime() - started) / 1_000_000);
            calls.add(call);
            return call;
          }
          cause = Integer.toString(status);
          retryAfterMillis =
              reply.raw().headers().firstValue("Retry-After").map(Long::parseLong).orElse(0L)
                  * 1000;
        } catch (IllegalStateException e) {
          cause = "no answer";
        }
        count(cause);
        if (System.nanoTime() > deadline) {
          throw new AssertionError(
              "no definitive answer to " + key + " within " + CALL_DEADLINE + "; last: " + cause);
        }
        Thread.sleep(Math.max(pauseMillis, Math.min(retryAfterMillis, 1_000)));
        pauseMillis = Math.min(pauseMillis * 2, 1_000);
      }
    }

    /**
     * GETs until 200, as a merchant's integration reads back what it created: no answer, 429 and
     * 5xx are retried (counted as {@code read <status>} under the phase); anything else fails.
     */
    private Merchant.Reply read(String path) throws InterruptedException {
      long deadline = System.nanoTime() + CALL_DEADLINE.toNanos();
      long pauseMillis = 100;
      while (true) {
        String outcome;
        try {
          Merchant.Reply reply = api.get(path);
          outcome = Integer.toString(reply.status());
          if (reply.status() != 429 && reply.status() < 500) {
            count("read " + outcome);
            assertEquals(200, reply.status(), path + ": " + reply.raw().body());
            return reply;
          }
        } catch (IllegalStateException e) {
          outcome = "no answer";
        }
        count("read " + outcome);
        if (System.nanoTime() > deadline) {
          throw new AssertionError("no answer to GET " + path + " within " + CALL_DEADLINE);
        }
        Thread.sleep(pauseMillis);
        pauseMillis = Math.min(pauseMillis * 2, 1_000);
      }
    }

    private void count(String outcome) {
      attempts
          .computeIfAbsent(phase, k -> new ConcurrentHashMap<>())
          .computeIfAbsent(outcome, k -> new LongAdder())
          .increment();
    }

    private Call expect(int status, Call call) {
      assertEquals(status, call.status(), call.key() + ": " + call.response());
      return call;
    }

    /** Every accepted object's id and the state its last answer gave. */
    Map<String, String> statuses() {
      Map<String, String> all = new HashMap<>(payments);
      all.putAll(refunds);
      all.putAll(payouts);
      return all;
    }

    /** "type object-id" of every event SPEC part 6 promises for what was accepted. */
    List<String> expectedEvents() {
      List<String> events = new ArrayList<>();
      payments.forEach(
          (id, status) -> {
            if (status.equals("failed")) {
              events.add("payment.failed " + id);
            } else {
              events.add("payment.processing " + id);
              events.add("payment.succeeded " + id);
            }
          });
      refunds.keySet().forEach(id -> events.add("refund.created " + id));
      refunds.keySet().forEach(id -> events.add("refund.succeeded " + id));
      payouts.forEach((id, status) -> events.add("payout." + status + " " + id));
      return events;
    }

    /** "kind reference" of every journal transaction docs/ledger.md posts for them. */
    List<String> expectedJournal() {
      List<String> facts = new ArrayList<>();
      payments.forEach(
          (id, status) -> {
            if (!status.equals("failed")) {
              facts.add("payment_succeeded " + id);
            }
          });
      refunds.keySet().forEach(id -> facts.add("refund_succeeded " + id));
      payouts.forEach(
          (id, status) -> {
            facts.add("payout_held " + id);
            facts.add((status.equals("succeeded") ? "payout_settled " : "payout_reversed ") + id);
          });
      return facts;
    }
  }

  /**
   * The merchants' webhook receivers ({@code /hooks/<client>}): each request is recorded with its
   * signature checked; the first attempt of every seventh delivery number is answered 500, so some
   * deliveries are retried across the faults.
   */
  private static final class Receiver {
    record Delivery(
        String eventId,
        String type,
        String number,
        String body,
        boolean signatureValid,
        boolean acknowledged) {}

    final HttpServer server;
    final ExecutorService workers = Executors.newFixedThreadPool(4);
    final Map<Integer, String> secrets = new ConcurrentHashMap<>();
    final ConcurrentLinkedQueue<Delivery> deliveries = new ConcurrentLinkedQueue<>();
    final Set<String> refused = ConcurrentHashMap.newKeySet();
    final AtomicInteger refusedOnPurpose = new AtomicInteger();

    private Receiver(HttpServer server) {
      this.server = server;
    }

    static Receiver start() throws IOException {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
      Receiver receiver = new Receiver(server);
      server.createContext(
          "/hooks/",
          exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String path = exchange.getRequestURI().getPath();
            int client = Integer.parseInt(path.substring(path.lastIndexOf('/') + 1));
            String number = exchange.getRequestHeaders().getFirst("X-Service-Delivery");
            boolean valid;
            try {
              WebhookSignature.verify(
                  body,
                  exchange.getRequestHeaders().getFirst("X-Service-Signature"),
                  receiver.secrets.get(client));
              valid = true;
            } catch (WebhookSignatureException | RuntimeException e) {
              valid = false;
            }
            boolean refuse = Long.parseLong(number) % 7 == 0 && receiver.refused.add(number);
            String text = new String(body, StandardCharsets.UTF_8);
            receiver.deliveries.add(
                new Delivery(
                    readJson(text).get("id").asText(),
                    exchange.getRequestHeaders().getFirst("X-Service-Event"),
                    number,
                    text,
                    valid,
                    !refuse));
            if (refuse) {
              receiver.refusedOnPurpose.incrementAndGet();
            }
            exchange.sendResponseHeaders(refuse ? 500 : 200, -1);
            exchange.close();
          });
      server.setExecutor(receiver.workers);
      server.start();
      return receiver;
    }

    String url(int client) {
      return "http://127.0.0.1:" + server.getAddress().getPort() + "/hooks/" + client;
    }

    Set<String> acknowledgedEventIds() {
      return deliveries.stream()
          .filter(Delivery::acknowledged)
          .map(Delivery::eventId)
          .collect(Collectors.toSet());
    }
  }

  // ------------------------------------------------------------------------------ small helpers

  private static BigDecimal available(Client client) {
    Merchant.Reply balance = client.api.get("/v1/balance?currency=PHP");
    assertEquals(200, balance.status(), balance.raw().body());
    return balance.json().get("available").decimalValue();
  }

  /** SPEC part 6's reconciliation: page with starting_after while has_more. */
  private static List<JsonNode> reconcile(Merchant merchant) {
    return merchant.listAll("/v1/events");
  }

  private static JsonNode readJson(String text) {
    try {
      return Merchant.JSON.readTree(text);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Checks {@code done} every half second until it holds; fails with {@code failure} after the
   * deadline.
   */
  static void await(
      Duration deadline, BooleanSupplier done, java.util.function.Supplier<String> failure)
      throws InterruptedException {
    long until = System.nanoTime() + deadline.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new AssertionError(failure.get() + " within " + deadline);
      }
      Thread.sleep(500);
    }
  }
}
