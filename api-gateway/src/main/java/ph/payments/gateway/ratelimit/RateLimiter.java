package ph.payments.gateway.ratelimit;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.data.connection.ConnectionOperations;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.tx.TransactionFailedException;

/**
 * Applies the {@link SlidingWindowLog} rule to a key's log in PostgreSQL, shared by every gateway
 * replica. The log is a ring of the key's admission times ({@code rate_limits} holds its head,
 * {@code rate_limit_slots} the times; migration V5), and a decision is one call of {@code
 * rate_limit_admit}: under the key's row lock it drops the times that left the window and admits
 * the request when fewer than the limit remain. So the decisions of one key are serialised across
 * replicas, exactly; a refused request writes nothing; and a request costs a few small rows
 * whatever the key's limit.
 *
 * <p><b>Batches.</b> Requests do not call the database themselves: they queue, and one writer
 * thread takes everything queued (up to {@link #MAX_BATCH}) and decides it in one auto-committed
 * statement, {@code rate_limit_admit_all} (migration V11), at one reading of the clock. Under load
 * a decision then shares its round trip and commit with the requests that arrived while the
 * previous batch ran; alone it waits for nobody. The batch is ordered by key, each key's requests
 * in the order they queued, so batches of two gateways lock the keys' rows in the same order. If a
 * batch fails for a reason that may be one request's, each of its requests is decided again on its
 * own, so one request's failure is not its neighbours'; when the database itself fails, they all
 * fail at once, as they would have one by one.
 *
 * <p>{@code RateLimiterModelIT} holds the functions to {@link SlidingWindowLog}, the rule in plain
 * Java, over random streams of requests and limit changes, one by one and in batches.
 */
@Singleton
public class RateLimiter {

  /** The most requests decided in one statement. */
  static final int MAX_BATCH = 256;

  private static final Logger log = LoggerFactory.getLogger(RateLimiter.class);

  private static final String ADMIT = "SELECT * FROM rate_limit_admit(?, ?, ?, ?)";
  private static final String ADMIT_ALL =
      "SELECT * FROM rate_limit_admit_all(?, ?, ?, ?) ORDER BY ord";

  private final ConnectionOperations<Connection> connections;
  private final Clock clock;
  private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private final DistributionSummary batchSizes;
  private final Thread writer;
  private volatile boolean stopping;

  public RateLimiter(
      ConnectionOperations<Connection> connections, Clock clock, MeterRegistry metrics) {
    this.connections = connections;
    this.clock = clock;
    this.batchSizes =
        DistributionSummary.builder("gateway.rate_limit.batch")
            .description("Rate-limit decisions taken in one database statement")
            .register(metrics);
    this.writer = new Thread(this::run, "rate-limit-writer");
    writer.setDaemon(true);
    writer.start();
  }

  /** One key's request to decide. */
  record Request(String apiKeyId, int limit) {}

  /**
   * The order in which a batch locks its keys' rows, the same in every gateway: by key. The sort is
   * stable, so one key's requests keep the order in which they queued.
   */
  private static final Comparator<String> LOCK_ORDER = Comparator.naturalOrder();

  /** {@code requests} in lock order. */
  static List<Request> inLockOrder(List<Request> requests) {
    List<Request> ordered = new ArrayList<>(requests);
    ordered.sort(Comparator.comparing(Request::apiKeyId, LOCK_ORDER));
    return ordered;
  }

  private record Pending(Request request, CompletableFuture<RateLimitDecision> decision) {}

  /**
   * Counts one request of {@code apiKeyId} against {@code limit} requests per window, or refuses
   * it.
   *
   * @param limit at least 1
   * @throws TransactionFailedException when the database could not decide
   */
  public RateLimitDecision request(String apiKeyId, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("a rate limit is at least 1 request per window");
    }
    CompletableFuture<RateLimitDecision> decision = new CompletableFuture<>();
    queue.add(new Pending(new Request(apiKeyId, limit), decision));
    if (stopping) {
      refuseQueued(); // the writer may have left already
    }
    try {
      return decision.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException failure) {
        throw failure;
      }
      throw new IllegalStateException("rate-limit decision failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a rate-limit decision", e);
    }
  }

  /** Requests queued and not yet taken by the writer (tests). */
  int queued() {
    return queue.size();
  }

  private void run() {
    List<Pending> batch = new ArrayList<>(MAX_BATCH);
    while (!stopping) {
      try {
        Pending first = queue.poll(1, TimeUnit.SECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, MAX_BATCH - 1);
        decide(batch);
      } catch (InterruptedException e) {
        break;
      } catch (Throwable unexpected) {
        log.error("rate-limit writer: a batch of {} failed unexpectedly", batch.size(), unexpected);
        batch.forEach(pending -> pending.decision().completeExceptionally(unexpected));
      } finally {
        batch.clear();
      }
    }
    refuseQueued();
  }

  private void refuseQueued() {
    Pending left;
    while ((left = queue.poll()) != null) {
      left.decision().completeExceptionally(new IllegalStateException("the rate limiter stopped"));
    }
  }

  /** Decides {@code batch} in one statement, or each request alone when that fails. */
  private void decide(List<Pending> batch) {
    batch.sort(Comparator.comparing(pending -> pending.request().apiKeyId(), LOCK_ORDER));
    batchSizes.record(batch.size());
    List<Request> requests = batch.stream().map(Pending::request).toList();
    try {
      List<RateLimitDecision> decisions = inConnection(c -> admitAll(c, requests, clock.millis()));
      for (int i = 0; i < batch.size(); i++) {
        batch.get(i).decision().complete(decisions.get(i));
      }
      return;
    } catch (TransactionFailedException e) {
      if (batch.size() == 1 || !aboutTheRequests(e.sqlState())) {
        // The database itself failed (or there was one request): deciding each alone would only
        // fail them one after another, each after its own wait.
        batch.forEach(pending -> pending.decision().completeExceptionally(e));
        return;
      }
      log.warn(
          "rate-limit batch of {} failed ({}); deciding each alone", batch.size(), e.sqlState());
    }
    for (Pending pending : batch) {
      Request request = pending.request();
      try {
        pending
            .decision()
            .complete(
                inConnection(c -> admit(c, request.apiKeyId(), clock.millis(), request.limit())));
      } catch (RuntimeException e) {
        pending.decision().completeExceptionally(e);
      }
    }
  }

  /**
   * Whether a failure with this SQLSTATE may be one request's (bad data, a deadlock, an error the
   * function raised) rather than the database's: not a connection failure (class 08), missing
   * resources (53), an operator's intervention such as a shutdown (57) or a system error (58).
   */
  static boolean aboutTheRequests(String sqlState) {
    return sqlState != null && !sqlState.matches("08...|5[378]...");
  }

  @FunctionalInterface
  private interface SqlWork<T> {
    T apply(Connection connection) throws SQLException;
  }

  private <T> T inConnection(SqlWork<T> work) {
    return connections.executeWrite(
        status -> {
          try {
            return work.apply(status.getConnection());
          } catch (SQLException e) {
            throw new TransactionFailedException(e);
          }
        });
  }

  @PreDestroy
  void stop() {
    stopping = true;
    writer.interrupt();
  }

  /**
   * The decisions on {@code requests} at {@code now}, taken in list order in one statement on a
   * connection in auto-commit mode.
   */
  static List<RateLimitDecision> admitAll(Connection connection, List<Request> requests, long now)
      throws SQLException {
    String[] keys = new String[requests.size()];
    Integer[] limits = new Integer[requests.size()];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = requests.get(i).apiKeyId();
      limits[i] = requests.get(i).limit();
    }
    try (PreparedStatement call = connection.prepareStatement(ADMIT_ALL)) {
      Array keyArray = connection.createArrayOf("text", keys);
      Array limitArray = connection.createArrayOf("int4", limits);
      call.setArray(1, keyArray);
      call.setArray(2, limitArray);
      call.setLong(3, now);
      call.setLong(4, SlidingWindowLog.WINDOW_MILLIS);
      List<RateLimitDecision> decisions = new ArrayList<>(keys.length);
      try (ResultSet rs = call.executeQuery()) {
        while (rs.next()) {
          decisions.add(decision(rs, limits[rs.getInt("ord") - 1]));
        }
      }
      if (decisions.size() != keys.length) {
        throw new SQLException(
            "rate_limit_admit_all answered " + decisions.size() + " of " + keys.length);
      }
      return decisions;
    }
  }

  /** The decision on a request at {@code now}, on a connection in auto-commit mode. */
  static RateLimitDecision admit(Connection connection, String apiKeyId, long now, int limit)
      throws SQLException {
    try (PreparedStatement call = connection.prepareStatement(ADMIT)) {
      call.setString(1, apiKeyId);
      call.setLong(2, now);
      call.setInt(3, limit);
      call.setLong(4, SlidingWindowLog.WINDOW_MILLIS);
      try (ResultSet rs = call.executeQuery()) {
        rs.next();
        return decision(rs, limit);
      }
    }
  }

  private static RateLimitDecision decision(ResultSet rs, int limit) throws SQLException {
    long resetAtMillis = rs.getLong("reset_millis");
    return rs.getBoolean("admitted")
        ? new RateLimitDecision.Admitted(limit, rs.getInt("remaining"), resetAtMillis)
        : new RateLimitDecision.Refused(limit, resetAtMillis, rs.getLong("retry_after_millis"));
  }
}
