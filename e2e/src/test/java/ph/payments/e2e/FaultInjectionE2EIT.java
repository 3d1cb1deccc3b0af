package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static ph.payments.e2e.FaultStream.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Issue 8: nothing accepted is lost or doubled while processes die and the database goes away.
 *
 * <p>Merchants' clients run the {@link FaultStream}: payment flows with an {@code Idempotency-Key}
 * on every request, retried until answered definitively. Meanwhile, in turn: each service is killed
 * with SIGKILL and bin/run starts it again, the Kafka broker is killed and started again,
 * PostgreSQL refuses connections to all four databases, then to the payments database alone.
 * Afterwards everything accepted happened exactly once ({@link
 * FaultStream#checkEverythingHappenedOnce}). See docs/reliability.md.
 */
@Execution(ExecutionMode.CONCURRENT) // beside the shared system's classes
@ResourceLock(FaultStream.OWN_SYSTEM)
class FaultInjectionE2EIT {

  private static final int CLIENTS = 4;
  private static final Duration REFUSAL = Duration.ofSeconds(5);
  private static final List<String> DATABASES =
      List.of("gateway", "payments", "ledger", "webhooks");

  private static SystemUnderTest system;
  private static Merchant operator;

  @BeforeAll
  static void start() throws Exception {
    system =
        FaultStream.startSystem(
            "faults",
            // Kafka's default session: a gateway that dies as a dynamic member would hold its
            // reply partitions this long, longer than a retry waits (see
            // aRetryFindsTheOutcomeAsSoonAsTheKilledGatewayIsBack).
            Map.of("GATEWAY_KAFKA_SESSION_TIMEOUT_MS", "45000"));
    operator = new Merchant(system.gatewayUrl(), system.adminToken);
  }

  /** Stopping bin/run stops every process, also the ones it restarted. */
  @AfterAll
  static void stop() throws Exception {
    FaultStream.stopLeavingNothing(system);
  }

  /**
   * Issue 19: the gateway holding a request dies before the owner replies, and the owner replies
   * while no gateway (or only the restarting one) listens. A retry with the same key, sent as soon
   * as bin/run has the gateway back, gets the payment: the restarted gateway, a static member of
   * the reply recorder's group under the same {@code GATEWAY_INSTANCE_ID}, takes its partitions
   * back at once and records the reply. As a dynamic member (GATEWAY_INSTANCE_ID empty) it waited
   * for the dead member's session (45 s here), and the retry got 202 or 409 instead.
   */
  @Test
  void aRetryFindsTheOutcomeAsSoonAsTheKilledGatewayIsBack() throws Exception {
    JsonNode signedUp =
        operator
            .post(
                "/admin/v1/merchants",
                Merchant.json("name", "Killed Mid-Request", "email", "kill@example.ph"))
            .created();
    String merchantId = signedUp.get("id").asText();
    Merchant shop = new Merchant(system.gatewayUrl(), signedUp.at("/api_keys/0/secret").asText());
    String key = "gateway-killed-" + System.nanoTime();
    String body = Merchant.json("amount", 321, "method", "card");

    long owner = system.pid("payments-service");
    long gateway = system.pid("api-gateway");
    java.util.concurrent.CompletableFuture<Merchant.Reply> first;
    signal("STOP", owner); // the owner cannot reply while the gateway holds the request
    try {
      first =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> shop.post("/v1/payments", body, "Idempotency-Key", key));
      await(
          Duration.ofSeconds(30),
          () ->
              count("gateway", "SELECT count(*) FROM commands WHERE merchant_id = ?", merchantId)
                  == 1,
          () -> "the gateway did not accept the command");
      ProcessHandle.of(gateway).orElseThrow().destroyForcibly();
      await(
          Duration.ofSeconds(30),
          () -> ProcessHandle.of(gateway).map(p -> !p.isAlive()).orElse(true),
          () -> "the gateway did not die");
    } finally {
      signal("CONT", owner);
    }
    // The owner applies the command and publishes its reply; no gateway waits for it any more.
    await(
        Duration.ofSeconds(60),
        () ->
            count("payments", "SELECT count(*) FROM payments WHERE merchant_id = ?", merchantId)
                == 1,
        () -> "payments-service did not apply the command");
    await(
        Duration.ofSeconds(200),
        () -> currentPid("api-gateway") != gateway && system.healthy("api-gateway"),
        () -> "bin/run did not start the gateway again");

    Merchant.Reply retry = shop.post("/v1/payments", body, "Idempotency-Key", key);

    assertEquals(201, retry.status(), retry.raw().body());
    assertEquals(
        onlyPaymentOf(merchantId),
        retry.json().get("id").asText(),
        "the retry answers the payment the first try created");
    assertEquals(321, retry.json().get("amount").intValue());
    assertTrue(
        first.handle((reply, failure) -> failure != null).join(), "the first try's gateway died");
    assertEquals(
        1,
        count("payments", "SELECT count(*) FROM payments WHERE merchant_id = ?", merchantId),
        "one payment for one key");
  }

  private static long currentPid(String component) {
    try {
      return system.pid(component);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** {@code kill -SIG pid}. */
  private static void signal(String signal, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
    assertEquals(0, kill.waitFor(), "kill -" + signal + " " + pid);
  }

  /** A count from one of the run's databases ({@code gateway}, {@code payments}, …). */
  private static long count(String database, String sql, String merchantId) {
    try (java.sql.Connection connection = system.database(database);
        java.sql.PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, merchantId);
      try (java.sql.ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String onlyPaymentOf(String merchantId) throws Exception {
    try (java.sql.Connection connection = system.database("payments");
        java.sql.PreparedStatement statement =
            connection.prepareStatement("SELECT id FROM payments WHERE merchant_id = ?")) {
      statement.setString(1, merchantId);
      try (java.sql.ResultSet rows = statement.executeQuery()) {
        assertTrue(rows.next(), "no payment");
        return rows.getString(1);
      }
    }
  }

  @Test
  void acceptedRequestsSurviveKilledProcessesABrokerRestartAndARefusingDatabase() throws Exception {
    try (FaultStream stream = new FaultStream(system)) {
      stream.start(CLIENTS);
      for (String component : faultOrder()) {
        stream.inject(
            "kill -9 " + component,
            () -> FaultStream.took("restarted and healthy", system.killAndAwaitRestart(component)));
      }
      for (List<String> databases : List.of(DATABASES, List.of("payments"))) {
        stream.inject(
            "PostgreSQL refuses " + String.join(", ", databases),
            () -> {
              try (AutoCloseable outage = system.refuseConnections(databases)) {
                Thread.sleep(REFUSAL.toMillis());
              }
              return FaultStream.took("refused", REFUSAL);
            });
      }
      stream.finish();

      stream.checkEverythingHappenedOnce();

      stream.printFigures();
    }
  }

  /** The order of the kills: each service, then the broker. */
  private static List<String> faultOrder() {
    List<String> order = new ArrayList<>(SystemUnderTest.SERVICES);
    order.add(SystemUnderTest.KAFKA);
    return order;
  }
}
