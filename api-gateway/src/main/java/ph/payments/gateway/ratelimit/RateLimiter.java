package ph.payments.gateway.ratelimit;

import io.micronaut.data.connection.ConnectionOperations;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import ph.payments.platform.tx.TransactionFailedException;

/**
 * Applies the {@link SlidingWindowLog} rule to a key's log in PostgreSQL, shared by every gateway
 * replica. The log is a ring of the key's admission times ({@code rate_limits} holds its head,
 * {@code rate_limit_slots} the times; migration V5), and the decision is one call of {@code
 * rate_limit_admit} in its own auto-committed statement: under the key's row lock it drops the
 * times that left the window and admits the request when fewer than the limit remain. So the
 * decisions of one key are serialised across replicas, exactly; a refused request writes nothing;
 * and a request costs one round trip and a few small rows whatever the key's limit.
 *
 * <p>{@code RateLimiterModelIT} holds the function to {@link SlidingWindowLog}, the rule in plain
 * Java, over random streams of requests and limit changes.
 */
@Singleton
public class RateLimiter {

  private static final String ADMIT = "SELECT * FROM rate_limit_admit(?, ?, ?, ?)";

  private final ConnectionOperations<Connection> connections;
  private final Clock clock;

  public RateLimiter(ConnectionOperations<Connection> connections, Clock clock) {
    this.connections = connections;
    this.clock = clock;
  }

  /**
   * Counts one request of {@code apiKeyId} against {@code limit} requests per window, or refuses
   * it.
   *
   * @param limit at least 1
   */
  public RateLimitDecision request(String apiKeyId, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("a rate limit is at least 1 request per window");
    }
    long now = clock.millis();
    return connections.executeWrite(
        status -> {
          try {
            return admit(status.getConnection(), apiKeyId, now, limit);
          } catch (SQLException e) {
            throw new TransactionFailedException(e);
          }
        });
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
        long resetAtMillis = rs.getLong("reset_millis");
        return rs.getBoolean("admitted")
            ? new RateLimitDecision.Admitted(limit, rs.getInt("remaining"), resetAtMillis)
            : new RateLimitDecision.Refused(limit, resetAtMillis, rs.getLong("retry_after_millis"));
      }
    }
  }
}
