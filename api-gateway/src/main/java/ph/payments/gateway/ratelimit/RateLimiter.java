package ph.payments.gateway.ratelimit;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import ph.payments.platform.outbox.OutboxWriter;
import ph.payments.platform.tx.BatchWriter;
import ph.payments.platform.tx.TransactionFailedException;
import ph.payments.platform.tx.Transactions;

/**
 * Applies the {@link SlidingWindowLog} rule to a key's log in PostgreSQL, shared by every gateway
 * replica. The log is a ring of the key's admission times ({@code rate_limits} holds its head,
 * {@code rate_limit_slots} the times; migration V5), and a decision is one call of {@code
 * rate_limit_admit}: under the key's row lock it drops the times that left the window and admits
 * the request when fewer than the limit remain. So the decisions of one key are serialised across
 * replicas, exactly; a refused request writes nothing; and a request costs a few small rows
 * whatever the key's limit.
 *
 * <p><b>Batches.</b> Requests take turns at the database ({@link BatchWriter}): the one that finds
 * no batch running decides everything queued (up to {@link #MAX_BATCH}), its own among it, in one
 * auto-committed statement, {@code rate_limit_admit_all} (migration V11), at one reading of the
 * clock. The batch is ordered by key, each key's requests in the order they queued, so batches of
 * two gateways lock the keys' rows in the same order. If a batch fails for a reason that may be one
 * request's, each of its requests is decided again on its own ({@code rate_limit_admit}).
 *
 * <p>{@code RateLimiterModelIT} holds the functions to {@link SlidingWindowLog}, the rule in plain
 * Java, over random streams of requests and limit changes, one by one and in batches.
 */
@Singleton
public class RateLimiter {

  /** The most requests decided in one statement. */
  static final int MAX_BATCH = 256;

  /** The SQLSTATE with which {@link #requireAll}'s statement refuses a request (migration V14). */
  static final String REFUSED = "RL429";

  private static final String ADMIT = "SELECT * FROM rate_limit_admit(?, ?, ?, ?)";
  private static final String REQUIRE_ALL =
      "SELECT ord, remaining, reset_millis FROM rate_limit_require_all(?, ?, ?, ?)";
  private static final String ADMIT_ALL =
      "SELECT * FROM rate_limit_admit_all(?, ?, ?, ?) ORDER BY ord";

  private final Transactions transactions;
  private final Clock clock;
  private final BatchWriter<Request, RateLimitDecision> writer;

  public RateLimiter(Transactions transactions, Clock clock, MeterRegistry metrics) {
    this.transactions = transactions;
    this.clock = clock;
    DistributionSummary batchSizes =
        DistributionSummary.builder("gateway.rate_limit.batch")
            .description("Rate-limit decisions taken in one database statement")
            .register(metrics);
    this.writer =
        new BatchWriter<>(
            "rate-limit-writer",
            MAX_BATCH,
            Comparator.comparing(Request::apiKeyId, LOCK_ORDER),
            new BatchWriter.Work<Request, RateLimitDecision>() {
              @Override
              public List<RateLimitDecision> all(List<Request> requests) {
                return transactions.autoCommitted(c -> admitAll(c, requests, clock.millis()));
              }

              @Override
              public RateLimitDecision one(Request request) {
                return transactions.autoCommitted(
                    c -> admit(c, request.apiKeyId(), clock.millis(), request.limit()));
              }
            },
            batchSizes::record);
  }

  /**
   * One key's request to decide.
   *
   * @param limit at least 1
   */
  public record Request(String apiKeyId, int limit) {

    public Request {
      if (limit < 1) {
        throw new IllegalArgumentException("a rate limit is at least 1 request per window");
      }
    }
  }

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

  /**
   * Counts one request of {@code apiKeyId} against {@code limit} requests per window, or refuses
   * it.
   *
   * @param limit at least 1
   * @throws TransactionFailedException when the database could not decide
   */
  public RateLimitDecision request(String apiKeyId, int limit) {
    return request(new Request(apiKeyId, limit));
  }

  /**
   * Counts {@code request} against its limit, or refuses it, in a transaction of its own.
   *
   * @throws TransactionFailedException when the database could not decide
   */
  public RateLimitDecision request(Request request) {
    return writer.submit(request);
  }

  /**
   * A statement that admits all of {@code requests} at {@code now}, to run first in the transaction
   * of what they ask for ({@code OutboxWriter.appendAllAfter}): when it returns, they are counted
   * and their decisions are the result; when it refuses one, it fails with SQLSTATE {@link
   * #REFUSED}, and the transaction must not commit (a statement that fails undoes itself; in a
   * transaction the caller rolls it back). Then decide each on its own ({@link #request(Request)}):
   * which were refused depends on what else is counted meanwhile. The requests are decided in lock
   * order ({@link #inLockOrder}), so that the decisions of two transactions never wait for each
   * other.
   *
   * @return one decision per request, in the order of {@code requests}
   */
  public static OutboxWriter.Lead<List<RateLimitDecision>> requireAll(
      List<Request> requests, long now) {
    // positions[k]: where the k-th request in lock order stands in requests (a stable sort).
    Integer[] positions = new Integer[requests.size()];
    for (int i = 0; i < positions.length; i++) {
      positions[i] = i;
    }
    Arrays.sort(positions, Comparator.comparing(i -> requests.get(i).apiKeyId(), LOCK_ORDER));
    String[] keys = new String[positions.length];
    Integer[] limits = new Integer[positions.length];
    for (int k = 0; k < positions.length; k++) {
      keys[k] = requests.get(positions[k]).apiKeyId();
      limits[k] = requests.get(positions[k]).limit();
    }
    return new OutboxWriter.Lead<>(
        REQUIRE_ALL,
        (statement, first) -> {
          Connection connection = statement.getConnection();
          statement.setArray(first, connection.createArrayOf("text", keys));
          statement.setArray(first + 1, connection.createArrayOf("int4", limits));
          statement.setLong(first + 2, now);
          statement.setLong(first + 3, SlidingWindowLog.WINDOW_MILLIS);
          return first + 4;
        },
        rows -> {
          RateLimitDecision[] decisions = new RateLimitDecision[positions.length];
          int answered = 0;
          while (rows.next()) {
            int k = rows.getInt("ord") - 1;
            decisions[positions[k]] =
                new RateLimitDecision.Admitted(
                    limits[k], rows.getInt("remaining"), rows.getLong("reset_millis"));
            answered++;
          }
          if (answered != positions.length) {
            throw new SQLException(
                "rate_limit_require_all answered " + answered + " of " + positions.length);
          }
          return List.of(decisions);
        });
  }

  /** Whether {@code failure} is {@link #requireAll}'s refusal of a request. */
  public static boolean refusedOne(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof SQLException sql && REFUSED.equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  /** Requests queued and not yet taken by a writer (tests). */
  int queued() {
    return writer.queued();
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
