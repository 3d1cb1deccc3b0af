package ph.payments.gateway.ratelimit;

import jakarta.inject.Singleton;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import ph.payments.platform.tx.Transactions;

/**
 * Applies the {@link SlidingWindowLog} rule to a key's log in PostgreSQL ({@code rate_limits}),
 * shared by every gateway replica. Each decision runs in one short transaction holding the key's
 * row lock: read the log, decide, and write the log back only when the request is admitted. So the
 * decisions of one key are serialised across replicas, and a refused request writes nothing.
 */
@Singleton
public class RateLimiter {

  private final Transactions transactions;
  private final Clock clock;

  public RateLimiter(Transactions transactions, Clock clock) {
    this.transactions = transactions;
    this.clock = clock;
  }

  /**
   * Counts one request of {@code apiKeyId} against {@code limit} requests per window, or refuses
   * it.
   *
   * @param limit at least 1
   */
  public RateLimitDecision request(String apiKeyId, int limit) {
    return transactions.inTransaction(
        connection -> {
          relaxDurability(connection);
          long[] stored = lockLog(connection, apiKeyId);
          if (stored == null) {
            // The key's first request, or its first after a purge. A concurrent first request
            // makes this insert wait for it and then do nothing; either way the row now exists.
            insertIfMissing(connection, apiKeyId, clock.millis());
            stored = lockLog(connection, apiKeyId);
            if (stored == null) {
              throw new IllegalStateException("rate_limits row vanished under its lock");
            }
          }
          // Read the clock only under the lock, so a key's times are taken in decision order.
          long now = clock.millis();
          SlidingWindowLog log = SlidingWindowLog.of(stored, now);
          RateLimitDecision decision = log.decide(now, limit);
          if (decision instanceof RateLimitDecision.Admitted) {
            store(connection, apiKeyId, log.admit(now), now);
          }
          return decision;
        });
  }

  /**
   * The log's commit does not wait for the WAL flush: a crash of PostgreSQL can forget the last few
   * milliseconds of admissions (letting that many more requests in), never money. It takes one
   * flush off every request.
   */
  private static void relaxDurability(Connection connection) throws SQLException {
    try (Statement set = connection.createStatement()) {
      set.execute("SET LOCAL synchronous_commit = off");
    }
  }

  private static long[] lockLog(Connection connection, String apiKeyId) throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT admitted_at FROM rate_limits WHERE api_key_id = ? FOR UPDATE")) {
      select.setString(1, apiKeyId);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        Array array = rs.getArray(1);
        try {
          Long[] times = (Long[]) array.getArray();
          long[] millis = new long[times.length];
          for (int i = 0; i < times.length; i++) {
            millis[i] = times[i];
          }
          return millis;
        } finally {
          array.free();
        }
      }
    }
  }

  private static void insertIfMissing(Connection connection, String apiKeyId, long nowMillis)
      throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO rate_limits (api_key_id, admitted_at, last_admitted_millis)"
                + " VALUES (?, '{}', ?) ON CONFLICT (api_key_id) DO NOTHING")) {
      insert.setString(1, apiKeyId);
      insert.setLong(2, nowMillis);
      insert.executeUpdate();
    }
  }

  private static void store(
      Connection connection, String apiKeyId, SlidingWindowLog log, long nowMillis)
      throws SQLException {
    long[] millis = log.admittedAtMillis();
    Long[] boxed = new Long[millis.length];
    for (int i = 0; i < millis.length; i++) {
      boxed[i] = millis[i];
    }
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE rate_limits SET admitted_at = ?, last_admitted_millis = ?"
                + " WHERE api_key_id = ?")) {
      update.setArray(1, connection.createArrayOf("bigint", boxed));
      update.setLong(2, nowMillis);
      update.setString(3, apiKeyId);
      update.executeUpdate();
    }
  }
}
