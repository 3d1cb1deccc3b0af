package ph.payments.gateway.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static ph.payments.gateway.support.Waits.awaitTrue;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.platform.tx.TransactionFailedException;

/**
 * The rate limiter's batches, in a running gateway: requests that queue while a batch runs are
 * decided together in the next one, and a batch that fails is decided again request by request.
 * Each test holds one key's row lock from a connection of its own, so the writer waits in the
 * database while the other requests queue behind it.
 */
@MicronautTest
class RateLimitBatchesIT extends GatewayTest {

  @Inject RateLimiter limiter;
  @Inject DataSource dataSource;
  @Inject MeterRegistry metrics;

  @Test
  void theRequestsQueuedWhileABatchRanAreDecidedInOneStatement() throws Exception {
    int others = 20;
    List<Future<RateLimitDecision>> decisions = new ArrayList<>();
    ExecutorService clients = Executors.newFixedThreadPool(others + 1);
    DistributionSummary batches = metrics.get("gateway.rate_limit.batch").summary();
    long batchesBefore;
    double decidedBefore;
    try (Connection blocker = lockedKey("key_blocked_1")) {
      decisions.add(clients.submit(() -> limiter.request("key_blocked_1", 10)));
      awaitTrue(this::aStatementWaitsForALock, "the writer waits for the blocked key's row");
      batchesBefore = batches.count();
      decidedBefore = batches.totalAmount();
      for (int i = 0; i < others; i++) {
        String key = "key_queued_" + i;
        decisions.add(clients.submit(() -> limiter.request(key, 10)));
      }
      awaitTrue(() -> limiter.queued() == others, "the others queue behind the waiting batch");
      blocker.rollback();
    }
    try {
      for (Future<RateLimitDecision> decision : decisions) {
        assertInstanceOf(RateLimitDecision.Admitted.class, decision.get());
      }
    } finally {
      clients.shutdownNow();
    }
    assertEquals(1, batches.count() - batchesBefore, "one batch after the blocked one");
    assertEquals(others, batches.totalAmount() - decidedBefore, 0.0, "holding all the others");
  }

  @Test
  void aFailedBatchIsDecidedAgainRequestByRequest() throws Exception {
    List<Future<RateLimitDecision>> good = new ArrayList<>();
    ExecutorService clients = Executors.newFixedThreadPool(8);
    Future<RateLimitDecision> bad;
    try (Connection blocker = lockedKey("key_blocked_2")) {
      Future<RateLimitDecision> first = clients.submit(() -> limiter.request("key_blocked_2", 10));
      awaitTrue(this::aStatementWaitsForALock, "the writer waits for the blocked key's row");
      for (int i = 0; i < 5; i++) {
        String key = "key_neighbour_" + i;
        good.add(clients.submit(() -> limiter.request(key, 10)));
      }
      // PostgreSQL refuses text with a NUL character: this request fails the whole statement.
      bad = clients.submit(() -> limiter.request("key_\u0000_unstorable", 10));
      awaitTrue(() -> limiter.queued() == 6, "all six queue behind the waiting batch");
      blocker.rollback();
      assertInstanceOf(RateLimitDecision.Admitted.class, first.get());
    }
    try {
      for (Future<RateLimitDecision> decision : good) {
        assertInstanceOf(RateLimitDecision.Admitted.class, decision.get());
      }
      ExecutionException failed = assertThrows(ExecutionException.class, bad::get);
      assertInstanceOf(TransactionFailedException.class, failed.getCause());
    } finally {
      clients.shutdownNow();
    }
  }

  /**
   * A connection, in a transaction, that holds the row lock of {@code apiKeyId}'s rate-limit head
   * (the key's first request creates the row); closing it rolls back and releases the lock.
   */
  private Connection lockedKey(String apiKeyId) throws SQLException {
    assertInstanceOf(RateLimitDecision.Admitted.class, limiter.request(apiKeyId, 10));
    Connection connection = dataSource.getConnection();
    connection.setAutoCommit(false);
    try (PreparedStatement lock =
        connection.prepareStatement("SELECT 1 FROM rate_limits WHERE api_key_id = ? FOR UPDATE")) {
      lock.setString(1, apiKeyId);
      try (ResultSet rs = lock.executeQuery()) {
        assertEquals(true, rs.next());
      }
    }
    return connection;
  }

  private boolean aStatementWaitsForALock() {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement waiting =
            connection.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND wait_event_type = 'Lock'");
        ResultSet rs = waiting.executeQuery()) {
      rs.next();
      return rs.getInt(1) > 0;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
