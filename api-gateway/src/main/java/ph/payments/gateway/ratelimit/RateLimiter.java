package ph.payments.gateway.ratelimit;

import jakarta.inject.Singleton;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import ph.payments.platform.tx.Transactions;

/**
 * Applies the {@link SlidingWindowLog} rule to a key's log in PostgreSQL ({@code rate_limits}),
 * shared by every gateway replica. An admission is one statement: an upsert that, under the key's
 * row lock, counts the times still in the window and appends this request's only when fewer than
 * the limit count. So the decisions of one key are serialised across replicas, exactly, and a
 * refused request writes nothing; only a refusal reads the log again, to say when a slot frees.
 */
@Singleton
public class RateLimiter {

  /**
   * {@code set_config(…, true)} lasts to the end of the transaction: the log's commit does not wait
   * for the WAL flush. A crash of PostgreSQL can forget the last few milliseconds of admissions
   * (letting that many more requests in), never money.
   */
  private static final String ADMIT =
      "INSERT INTO rate_limits AS r (api_key_id, admitted_at, last_admitted_millis)"
          + " SELECT ?, ARRAY[?::bigint], ?"
          + " FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed"
          + " ON CONFLICT (api_key_id) DO UPDATE"
          + " SET admitted_at = ARRAY(SELECT t FROM unnest(r.admitted_at || excluded.admitted_at) t"
          + "   WHERE excluded.last_admitted_millis - t < ? ORDER BY t),"
          + " last_admitted_millis = excluded.last_admitted_millis"
          + " WHERE (SELECT count(*) FROM unnest(r.admitted_at) t"
          + "   WHERE excluded.last_admitted_millis - t < ?) < ?"
          + " RETURNING r.admitted_at";

  private static final String READ = "SELECT admitted_at FROM rate_limits WHERE api_key_id = ?";

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
    if (limit < 1) {
      throw new IllegalArgumentException("a rate limit is at least 1 request per window");
    }
    // A refusal read from a log that has moved on since (a slot freed in between) is asked again;
    // a key at its limit under a steady stream settles within a try or two.
    for (int attempt = 0; ; attempt++) {
      long now = clock.millis();
      long[] admitted = transactions.inTransaction(c -> admit(c, apiKeyId, now, limit));
      if (admitted != null) {
        SlidingWindowLog log = SlidingWindowLog.of(admitted, now);
        long oldest = log.size() == 0 ? now : Math.min(log.admittedAtMillis()[0], now);
        return new RateLimitDecision.Admitted(
            limit, Math.max(0, limit - log.size()), oldest + SlidingWindowLog.WINDOW_MILLIS);
      }
      long[] stored = transactions.inTransaction(c -> read(c, apiKeyId));
      RateLimitDecision decision = SlidingWindowLog.of(stored, now).decide(now, limit);
      if (decision instanceof RateLimitDecision.Refused) {
        return decision;
      }
      if (attempt >= 2) {
        return new RateLimitDecision.Refused(limit, now + SlidingWindowLog.WINDOW_MILLIS, 1);
      }
    }
  }

  /** The log after admitting a request at {@code now}, or null when the key is at its limit. */
  private static long[] admit(Connection connection, String apiKeyId, long now, int limit)
      throws SQLException {
    try (PreparedStatement upsert = connection.prepareStatement(ADMIT)) {
      upsert.setString(1, apiKeyId);
      upsert.setLong(2, now);
      upsert.setLong(3, now);
      upsert.setLong(4, SlidingWindowLog.WINDOW_MILLIS);
      upsert.setLong(5, SlidingWindowLog.WINDOW_MILLIS);
      upsert.setLong(6, limit);
      try (ResultSet rs = upsert.executeQuery()) {
        return rs.next() ? millis(rs.getArray(1)) : null;
      }
    }
  }

  private static long[] read(Connection connection, String apiKeyId) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(READ)) {
      select.setString(1, apiKeyId);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? millis(rs.getArray(1)) : new long[0];
      }
    }
  }

  private static long[] millis(Array array) throws SQLException {
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
