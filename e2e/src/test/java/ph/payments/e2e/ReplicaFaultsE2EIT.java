package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static ph.payments.e2e.FaultStream.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Issue 20: two replicas of each internal service (bin/run {@code *_REPLICAS=2}) share their
 * database and Kafka consumer groups, and the system survives one of them dying at a time.
 *
 * <p>Merchants' clients run the {@link FaultStream} (payment flows with an {@code Idempotency-Key}
 * on every request, each payment read back through the gateway, retried until answered
 * definitively) while, one at a time, a replica is killed with SIGKILL and bin/run starts it again:
 * payments-service's outbox relay leader, a ledger-service replica (the first in {@code
 * LEDGER_SERVICE_URL}, where payout holds go), webhook-service's relay leader. While each is dead,
 * reads of its service through the gateway answer 200: the gateway's turn falls on the dead replica
 * and the read goes to the other. After a leader's death the other replica must take over the
 * relay's advisory lock (its {@code outbox_relay_leader} reports 1, and PostgreSQL shows one lock
 * holder) before the killed one is back, and keep it after. Afterwards every payment, posting and
 * delivery happened exactly once ({@link FaultStream#checkEverythingHappenedOnce}), and every read
 * of the clients was answered 200 at the first try.
 */
@Execution(ExecutionMode.CONCURRENT) // beside the shared system's classes
@ResourceLock(FaultStream.OWN_SYSTEM)
class ReplicaFaultsE2EIT {

  /** Two replicas of each internal service; seven service JVMs share PostgreSQL with others'. */
  private static final Map<String, String> TWO_OF_EACH =
      Map.of(
          "PAYMENTS_REPLICAS", "2",
          "LEDGER_REPLICAS", "2",
          "WEBHOOK_REPLICAS", "2",
          "DATABASE_POOL_SIZE", "4");

  private static final int CLIENTS = 3;

  /** Consecutive reads: round-robin over two replicas gives the dead one its turn at least once. */
  private static final int READS_WHILE_DEAD = 4;

  private static final Duration TAKE_OVER_DEADLINE = Duration.ofSeconds(60);
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private static SystemUnderTest system;

  @BeforeAll
  static void start() throws Exception {
    system = FaultStream.startSystem("replicas", TWO_OF_EACH);
  }

  /** Stopping bin/run stops every process, the replicas and the restarted ones too. */
  @AfterAll
  static void stop() throws Exception {
    FaultStream.stopLeavingNothing(system);
  }

  @Test
  void everyPaymentPostingAndDeliveryHappensOnceWhileReplicasDieOneAtATime() throws Exception {
    try (FaultStream stream = new FaultStream(system)) {
      Merchant reader = reader();
      stream.start(CLIENTS);
      String paymentsLeader = theOnlyLeader("payments-service", "payments");
      stream.inject(
          "kill -9 " + paymentsLeader + " (relay leader)",
          () -> kill(paymentsLeader, reader, "/v1/payments?limit=1", "payments"));
      stream.inject(
          "kill -9 ledger-service",
          () -> kill("ledger-service", reader, "/v1/balance?currency=PHP", null));
      String webhookLeader = theOnlyLeader("webhook-service", "webhooks");
      stream.inject(
          "kill -9 " + webhookLeader + " (relay leader)",
          () -> kill(webhookLeader, reader, "/v1/webhooks/endpoints", "webhooks"));
      stream.finish();

      stream.checkEverythingHappenedOnce();
      Map<String, Long> reads = stream.readOutcomes();
      assertEquals(
          Set.of("200"), reads.keySet(), "the clients' reads while replicas died: " + reads);

      stream.printFigures();
    }
  }

  /**
   * Kills {@code unit} and, while it is dead, reads {@code readPath} through the gateway a few
   * times: every read is 200, though the gateway's turn falls on the dead replica. For a relay
   * leader ({@code database} not null) it then waits until the service's other replica leads,
   * before the killed one is back; then until the killed one is restarted and healthy, and checks
   * that the lead stayed where it moved.
   */
  private static String kill(String unit, Merchant reader, String readPath, String database)
      throws Exception {
    String service = unit.replaceAll("-[0-9]+$", "");
    String other =
        replicasOf(service).stream().filter(u -> !u.equals(unit)).findFirst().orElseThrow();
    long killedAt = System.nanoTime();
    long killed = system.kill(unit);
    for (int i = 0; i < READS_WHILE_DEAD; i++) {
      Merchant.Reply read = reader.get(readPath);
      assertEquals(200, read.status(), "GET " + readPath + " while " + unit + " is dead: " + read);
    }
    assertFalse(system.healthy(unit), unit + " was back before the reads were done");
    String what = READS_WHILE_DEAD + " reads through the gateway while it was dead, all 200";
    if (database != null) {
      AtomicReference<Duration> movedAfter = new AtomicReference<>();
      await(
          TAKE_OVER_DEADLINE,
          () -> {
            if (system.healthy(unit)) {
              throw new AssertionError(unit + " was back before " + other + " took the lead");
            }
            if (leads(other) == 1) {
              movedAfter.set(Duration.ofNanos(System.nanoTime() - killedAt));
              return true;
            }
            return false;
          },
          () -> other + " did not take the outbox relay's lead after " + unit + " died");
      what += "; " + FaultStream.took("lead moved to " + other + " after", movedAfter.get());
    }
    Duration back = system.awaitRestart(unit, killed, killedAt);
    assertNotEquals(killed, system.pid(unit));
    if (database != null) {
      assertEquals(other, theOnlyLeader(service, database), "the lead stays where it moved");
      assertEquals(0, leads(unit), unit + " is back as a follower");
    }
    return what + "; " + FaultStream.took("restarted and healthy", back);
  }

  /** A merchant of its own that only reads. */
  private static Merchant reader() {
    JsonNode signedUp =
        new Merchant(system.gatewayUrl(), system.adminToken)
            .post(
                "/admin/v1/merchants",
                Merchant.json("name", "Replica Reader", "email", "reader@example.ph"))
            .created();
    return new Merchant(system.gatewayUrl(), signedUp.at("/api_keys/0/secret").asText());
  }

  /**
   * The one replica of {@code service} whose relay leads, once exactly one reports {@code
   * outbox_relay_leader 1} and PostgreSQL shows one session of the service's relays holding an
   * advisory lock in its database.
   */
  private static String theOnlyLeader(String service, String database) throws Exception {
    AtomicReference<String> leader = new AtomicReference<>();
    AtomicReference<String> seen = new AtomicReference<>();
    await(
        TAKE_OVER_DEADLINE,
        () -> {
          Set<String> leaders = new TreeSet<>();
          for (String unit : replicasOf(service)) {
            if (leads(unit) == 1) {
              leaders.add(unit);
            }
          }
          long locks = relayLocks(service, database);
          seen.set(leaders + " by their metrics, " + locks + " relay lock(s) in " + database);
          if (leaders.size() == 1 && locks == 1) {
            leader.set(leaders.iterator().next());
            return true;
          }
          return false;
        },
        () -> "not one leader of " + service + "'s relay: " + seen.get());
    return leader.get();
  }

  private static List<String> replicasOf(String service) {
    return system.units().stream()
        .filter(unit -> unit.equals(service) || unit.startsWith(service + "-"))
        .toList();
  }

  /** The unit's {@code outbox_relay_leader} (1 leads, 0 follows); -1 when it does not answer. */
  private static int leads(String unit) {
    try {
      HttpResponse<String> scrape =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(system.url(unit) + "/prometheus"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (scrape.statusCode() != 200) {
        return -1;
      }
      for (String line : scrape.body().split("\n")) {
        if (line.startsWith("outbox_relay_leader{")) {
          return (int) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
      throw new AssertionError(unit + " has no outbox_relay_leader series");
    } catch (IOException notUp) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** Advisory locks granted to sessions of the service's outbox relays (docs/runbook.md). */
  private static long relayLocks(String service, String database) {
    try (Connection connection = system.database(database);
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                    + " WHERE l.locktype = 'advisory' AND l.granted"
                    + " AND a.datname = current_database() AND a.application_name = ?")) {
      statement.setString(1, service + "-outbox-relay");
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
