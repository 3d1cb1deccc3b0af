package ph.payments.gateway.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import ph.payments.platform.outbox.OutboxWriter;
import ph.payments.testkit.TestDatabase;

/**
 * {@code rate_limit_admit} (the ring of migration V5) against {@link SlidingWindowLog}, the rule in
 * plain Java: the same stream of requests gets the same decisions and the same header values from
 * both, whatever the timing and however the key's limit changes on the way.
 */
class RateLimiterModelIT {

  private static final long W = SlidingWindowLog.WINDOW_MILLIS;

  private TestDatabase database;

  @BeforeEach
  void createDatabase() {
    database = TestDatabase.create("RateLimiterModelIT");
  }

  @AfterEach
  void dropDatabase() {
    database.close();
  }

  private void migrate(String target) {
    Flyway.configure()
        .dataSource(database.dataSource())
        .locations("classpath:db/platform", "classpath:db/migration")
        .target(target)
        .load()
        .migrate();
  }

  @Test
  void randomStreamsOfRequestsAndLimitChangesAreDecidedAsTheModelDecides() throws SQLException {
    migrate("latest");
    SplittableRandom random = new SplittableRandom(20261124L);
    Map<String, SlidingWindowLog> model = new HashMap<>();
    Map<String, Integer> limits = new HashMap<>();
    List<String> keys = List.of("key_a", "key_b", "key_c");
    long now = 1_800_000_000_000L;
    int admitted = 0;
    int refused = 0;
    try (Connection connection = database.dataSource().getConnection()) {
      for (int step = 0; step < 6_000; step++) {
        now += advance(random);
        String key = keys.get(random.nextInt(keys.size()));
        int limit = limits.computeIfAbsent(key, k -> 1 + random.nextInt(30));
        if (random.nextInt(100) == 0) {
          limit = 1 + random.nextInt(30); // the operator raises or lowers it
          limits.put(key, limit);
        }
        SlidingWindowLog log =
            SlidingWindowLog.of(
                model.getOrDefault(key, SlidingWindowLog.empty()).admittedAtMillis(), now);
        RateLimitDecision expected = log.decide(now, limit);
        RateLimitDecision actual = RateLimiter.admit(connection, key, now, limit);
        assertEquals(expected, actual, "step " + step + ", " + key + " at " + now);
        if (expected instanceof RateLimitDecision.Admitted) {
          model.put(key, log.admit(now));
          admitted++;
        } else {
          refused++;
        }
      }
    }
    // The stream must have exercised both answers plenty, or the comparison proves little.
    assertEquals(true, admitted > 1_000 && refused > 1_000, admitted + " / " + refused);
  }

  @Test
  void batchesAreDecidedAsTheModelDecidesTheirRequestsOneByOne() throws SQLException {
    migrate("latest");
    SplittableRandom random = new SplittableRandom(20261128L);
    Map<String, SlidingWindowLog> model = new HashMap<>();
    Map<String, Integer> limits = new HashMap<>();
    List<String> keys = List.of("key_a", "key_b", "key_c", "key_d");
    long now = 1_800_000_000_000L;
    int admitted = 0;
    int refused = 0;
    try (Connection connection = database.dataSource().getConnection()) {
      for (int step = 0; step < 600; step++) {
        now += advance(random);
        // A batch shares one reading of the clock; one key may come several times in it.
        List<RateLimiter.Request> batch = new ArrayList<>();
        int size = 1 + random.nextInt(random.nextInt(10) == 0 ? 200 : 12);
        for (int i = 0; i < size; i++) {
          String key = keys.get(random.nextInt(keys.size()));
          int limit = limits.computeIfAbsent(key, k -> 1 + random.nextInt(30));
          if (random.nextInt(100) == 0) {
            limit = 1 + random.nextInt(30);
            limits.put(key, limit);
          }
          batch.add(new RateLimiter.Request(key, limit));
        }
        List<RateLimitDecision> actual = RateLimiter.admitAll(connection, batch, now);
        assertEquals(batch.size(), actual.size());
        for (int i = 0; i < batch.size(); i++) {
          RateLimiter.Request request = batch.get(i);
          SlidingWindowLog log =
              SlidingWindowLog.of(
                  model
                      .getOrDefault(request.apiKeyId(), SlidingWindowLog.empty())
                      .admittedAtMillis(),
                  now);
          RateLimitDecision expected = log.decide(now, request.limit());
          assertEquals(expected, actual.get(i), "step " + step + ", request " + i + " " + request);
          if (expected instanceof RateLimitDecision.Admitted) {
            model.put(request.apiKeyId(), log.admit(now));
            admitted++;
          } else {
            refused++;
          }
        }
      }
    }
    assertEquals(true, admitted > 1_000 && refused > 1_000, admitted + " / " + refused);
  }

  /**
   * {@code rate_limit_require_all} (migration V14, the decisions taken with the commands): a batch
   * the model admits whole gets the model's decisions; a batch with one request the model refuses
   * fails with {@link RateLimiter#REFUSED} and counts nothing, so the next statement finds the key
   * as the model left it.
   */
  @Test
  void requiredBatchesAreAdmittedWholeAsTheModelDecidesOrCountNothing() throws SQLException {
    migrate("latest");
    SplittableRandom random = new SplittableRandom(20261207L);
    Map<String, SlidingWindowLog> model = new HashMap<>();
    List<String> keys = List.of("key_a", "key_b", "key_c");
    long now = 1_800_000_000_000L;
    int whole = 0;
    int refusedBatches = 0;
    try (Connection connection = database.dataSource().getConnection()) {
      for (int step = 0; step < 800; step++) {
        now += advance(random);
        List<RateLimiter.Request> queued = new ArrayList<>();
        int size = 1 + random.nextInt(6);
        for (int i = 0; i < size; i++) {
          String key = keys.get(random.nextInt(keys.size()));
          queued.add(new RateLimiter.Request(key, 8 + (key.charAt(4) - 'a')));
        }
        List<RateLimiter.Request> batch = RateLimiter.inLockOrder(queued);
        // The model decides the batch one by one, on a copy of its logs.
        Map<String, SlidingWindowLog> after = new HashMap<>(model);
        List<RateLimitDecision> expected = new ArrayList<>();
        for (RateLimiter.Request request : batch) {
          SlidingWindowLog log =
              SlidingWindowLog.of(
                  after
                      .getOrDefault(request.apiKeyId(), SlidingWindowLog.empty())
                      .admittedAtMillis(),
                  now);
          RateLimitDecision decision = log.decide(now, request.limit());
          expected.add(decision);
          if (decision instanceof RateLimitDecision.Admitted) {
            after.put(request.apiKeyId(), log.admit(now));
          }
        }
        boolean admitsAll =
            expected.stream().allMatch(RateLimitDecision.Admitted.class::isInstance);
        OutboxWriter.Lead<List<RateLimitDecision>> lead = RateLimiter.requireAll(batch, now);
        try (PreparedStatement statement = connection.prepareStatement(lead.sql())) {
          lead.parameters().set(statement, 1);
          if (admitsAll) {
            try (ResultSet rows = statement.executeQuery()) {
              assertEquals(expected, lead.reader().read(rows), "step " + step + " " + batch);
            }
            model = after;
            whole++;
          } else {
            SQLException refused = assertThrows(SQLException.class, statement::executeQuery);
            assertEquals(RateLimiter.REFUSED, refused.getSQLState(), refused.getMessage());
            assertTrue(RateLimiter.refusedOne(new IllegalStateException(refused)));
            refusedBatches++;
          }
        }
      }
      // Whatever was refused counted nothing: every key stands where the model has it.
      now += 1;
      for (String key : keys) {
        SlidingWindowLog log =
            SlidingWindowLog.of(
                model.getOrDefault(key, SlidingWindowLog.empty()).admittedAtMillis(), now);
        assertEquals(log.decide(now, 100), RateLimiter.admit(connection, key, now, 100), key);
      }
    }
    assertTrue(whole > 100 && refusedBatches > 100, whole + " / " + refusedBatches);
  }

  @Test
  void batchesOfSeveralGatewaysInLockOrderNeverDeadlockAndAdmitExactlyTheLimit() throws Exception {
    migrate("latest");
    int limit = 30;
    int gateways = 4;
    int batchesEach = 40;
    List<String> keys = List.of("key_e", "key_a", "key_d", "key_b", "key_c");
    long now = 1_800_000_000_000L;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(gateways);
    try {
      List<Future<Map<String, Integer>>> results = new ArrayList<>();
      for (int g = 0; g < gateways; g++) {
        SplittableRandom random = new SplittableRandom(g);
        Callable<Map<String, Integer>> gateway =
            () -> {
              Map<String, Integer> mine = new HashMap<>();
              try (Connection connection = database.dataSource().getConnection()) {
                start.await();
                for (int b = 0; b < batchesEach; b++) {
                  // Each gateway queues the keys in its own order; the limiter's lock order is one.
                  List<RateLimiter.Request> queued = new ArrayList<>();
                  for (int i = 0; i < keys.size(); i++) {
                    queued.add(
                        new RateLimiter.Request(keys.get(random.nextInt(keys.size())), limit));
                  }
                  List<RateLimiter.Request> batch = RateLimiter.inLockOrder(queued);
                  List<RateLimitDecision> decisions =
                      RateLimiter.admitAll(connection, batch, now + b);
                  for (int i = 0; i < batch.size(); i++) {
                    if (decisions.get(i) instanceof RateLimitDecision.Admitted) {
                      mine.merge(batch.get(i).apiKeyId(), 1, Integer::sum);
                    }
                  }
                }
              }
              return mine;
            };
        results.add(pool.submit(gateway));
      }
      start.countDown();
      Map<String, Integer> total = new HashMap<>();
      for (Future<Map<String, Integer>> result : results) {
        result.get().forEach((key, n) -> total.merge(key, n, Integer::sum));
      }
      // 800 requests over five keys, 160 each on average: every key reaches its limit, none passes.
      for (String key : keys) {
        assertEquals(limit, total.getOrDefault(key, 0), key);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** Mostly bursts a few ms apart, now and then a pause of seconds or past the whole window. */
  private static long advance(SplittableRandom random) {
    int roll = random.nextInt(100);
    if (roll < 60) {
      return random.nextInt(5);
    }
    if (roll < 95) {
      return random.nextInt(4_000);
    }
    return W - 1_000 + random.nextInt(3_000);
  }

  @Test
  void concurrentRequestsOfOneKeyAdmitExactlyTheLimit() throws Exception {
    migrate("latest");
    int limit = 25;
    int threads = 8;
    int perThread = 10;
    long now = 1_800_000_000_000L;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Callable<Integer> client =
            () -> {
              int mine = 0;
              try (Connection connection = database.dataSource().getConnection()) {
                start.await();
                for (int i = 0; i < perThread; i++) {
                  if (RateLimiter.admit(connection, "key_hot", now + i, limit)
                      instanceof RateLimitDecision.Admitted) {
                    mine++;
                  }
                }
              }
              return mine;
            };
        results.add(pool.submit(client));
      }
      start.countDown();
      int total = 0;
      for (Future<Integer> result : results) {
        total += result.get();
      }
      assertEquals(limit, total, "80 requests at once, within one window");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aLogInForceWhenTheRingArrivesKeepsCounting() throws SQLException {
    migrate("4");
    long t0 = 1_800_000_000_000L;
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement insert =
            connection.prepareStatement(
                "INSERT INTO rate_limits (api_key_id, admitted_at, last_admitted_millis)"
                    + " VALUES (?, ?, ?)")) {
      Long[] times = new Long[5];
      for (int i = 0; i < times.length; i++) {
        times[i] = t0 + i * 1_000L;
      }
      insert.setString(1, "key_old");
      insert.setArray(2, connection.createArrayOf("bigint", times));
      insert.setLong(3, times[4]);
      insert.executeUpdate();
    }
    migrate("latest");
    try (Connection connection = database.dataSource().getConnection()) {
      long now = t0 + 10_000;
      assertEquals(
          new RateLimitDecision.Admitted(6, 0, t0 + W),
          RateLimiter.admit(connection, "key_old", now, 6),
          "five carried over, the sixth admitted");
      RateLimitDecision full = RateLimiter.admit(connection, "key_old", now, 6);
      assertInstanceOf(RateLimitDecision.Refused.class, full);
      assertEquals(new RateLimitDecision.Refused(6, t0 + W, W - 10_000), full);
      assertInstanceOf(
          RateLimitDecision.Admitted.class,
          RateLimiter.admit(connection, "key_old", t0 + W, 6),
          "the first carried-over time has left the window");
    }
  }

  /** The admission statement of the release before the ring (951781a), word for word. */
  private static final String PREVIOUS_RELEASE_ADMIT =
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

  @Test
  void gatewaysOfThePreviousReleaseGoOnDecidingDuringARollingUpgrade() throws SQLException {
    migrate("latest");
    long now = 1_800_000_000_000L;
    try (Connection connection = database.dataSource().getConnection()) {
      for (int i = 0; i < 4; i++) {
        assertEquals(true, previousReleaseAdmits(connection, "key_mixed", now + i, 3) == (i < 3));
      }
      // The ring beside it, on the same row and on a new one.
      assertInstanceOf(
          RateLimitDecision.Admitted.class, RateLimiter.admit(connection, "key_mixed", now, 3));
      assertInstanceOf(
          RateLimitDecision.Admitted.class, RateLimiter.admit(connection, "key_new", now, 3));
      assertEquals(
          true,
          previousReleaseAdmits(connection, "key_new", now, 3),
          "a row the ring created is usable by the previous release too");
    }
  }

  private static boolean previousReleaseAdmits(
      Connection connection, String key, long now, int limit) throws SQLException {
    try (PreparedStatement upsert = connection.prepareStatement(PREVIOUS_RELEASE_ADMIT)) {
      upsert.setString(1, key);
      upsert.setLong(2, now);
      upsert.setLong(3, now);
      upsert.setLong(4, W);
      upsert.setLong(5, W);
      upsert.setLong(6, limit);
      try (java.sql.ResultSet rs = upsert.executeQuery()) {
        return rs.next();
      }
    }
  }
}
