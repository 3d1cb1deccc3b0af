package ph.payments.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;
import ph.payments.platform.ids.EventId;

/**
 * {@code GET /v1/events} with a large event log, and how soon a committed event becomes visible in
 * the list (bench/run-events).
 *
 * <ol>
 *   <li><b>Seed</b>: {@code count} events for one merchant, written by one SQL statement ({@code
 *       generate_series}) into payments-service's {@code events} table exactly as its columns and
 *       ids are: alternately {@code payment.processing} and {@code payment.succeeded}, bodies
 *       copied from the real events of a real payment with the ids replaced, ids {@code evt_} +
 *       base32 of (transaction, sequence) as {@code EventId}. One transaction writes them all, as a
 *       bulk import would; the list's index orders by (merchant, environment, txid, seq) either
 *       way.
 *   <li><b>Pages</b>: one client, one request at a time, through the gateway (authentication and
 *       rate limit included) and directly to payments-service's internal endpoint (the event log
 *       alone): the first page, pages after random cursors, with a type filter, and after the
 *       newest event (a reconciliation poller's usual, empty page).
 *   <li><b>Visibility</b>: {@link EventLogWriter} commits events at a rate while a poller follows
 *       the list with {@code starting_after} through the gateway as fast as it can; visibility is
 *       from the commit's return to the poll response that first listed the event (one clock).
 * </ol>
 *
 * <p>Arguments: gateway URL, admin token, payments JDBC URL, payments-service URL, internal token,
 * events to seed, requests per page kind, visibility rate (events/s), visibility seconds.
 */
public final class EventsBench {

  // Payment ids are time-ordered: 10 characters of milliseconds, then 16 of the row number.
  private static final String SEED =
      "INSERT INTO events (txid, seq, type, merchant_id, environment, resource_type, resource_id,"
          + " created_at, body)"
          + " SELECT pg_current_xact_id(), s.seq, s.type, ?, 'test', 'payment', s.payment, s.at,"
          + "  convert_to(replace(replace(CASE WHEN s.type = 'payment.processing' THEN ? ELSE ? END,"
          + "   CASE WHEN s.type = 'payment.processing' THEN ? ELSE ? END,"
          + "   'evt_' || x.tx || pg_temp.b32(s.seq, 13)), ?, s.payment), 'UTF8')"
          + " FROM (SELECT pg_temp.b32(pg_current_xact_id()::text::bigint, 13) AS tx) x,"
          + "  (SELECT nextval('events_seq') AS seq,"
          + "    CASE WHEN g % 2 = 1 THEN 'payment.processing' ELSE 'payment.succeeded' END AS type,"
          + "    'pay_' || pg_temp.b32((extract(epoch FROM now() - interval '30 days') * 1000)::bigint"
          + "      + g, 10) || '000' || pg_temp.b32((g + 1) / 2, 13) AS payment,"
          + "    now() - interval '30 days' + g * interval '2 seconds' AS at"
          + "   FROM generate_series(1, ?) AS g) s";

  public static void main(String[] args) throws Exception {
    Api api = new Api(args[0], args[1]);
    String paymentsJdbc = args[2];
    String paymentsUrl = args[3];
    String internalToken = args[4];
    int count = Integer.parseInt(args[5]);
    int requests = Integer.parseInt(args[6]);
    double rate = Double.parseDouble(args[7]);
    int seconds = Integer.parseInt(args[8]);

    String merchant = api.createMerchant("Events bench");
    // Many keys, each at a high limit, so no key's rate-limit log grows long (see Api#createKeys).
    Api.Keys keys = api.createKeys(merchant, 50, 10_000);
    ObjectNode payment = api.createPayment(keys.next());
    String paymentId = payment.get("id").asText();
    api.post("/v1/test_helpers/payments/" + paymentId + "/succeed", keys.next(), "{}").expect(200);
    JsonNode real = awaitEvents(api, keys, 2);
    String processingId = real.get(0).get("id").asText();
    String succeededId = real.get(1).get("id").asText();
    String processing = api.get("/v1/events/" + processingId, keys.next()).text();
    String succeeded = api.get("/v1/events/" + succeededId, keys.next()).text();

    Table table = new Table();
    long seedTxid;
    long firstSeq;
    long lastSeq;
    long seedStart = System.nanoTime();
    try (Connection db = DriverManager.getConnection(paymentsJdbc)) {
      db.setAutoCommit(false);
      try (Statement statement = db.createStatement()) {
        statement.execute(SeedSql.BASE32_FUNCTION);
      }
      try (PreparedStatement seed = db.prepareStatement(SEED)) {
        int i = 1;
        seed.setString(i++, merchant);
        seed.setString(i++, processing);
        seed.setString(i++, succeeded);
        seed.setString(i++, processingId);
        seed.setString(i++, succeededId);
        seed.setString(i++, paymentId);
        seed.setInt(i, count);
        seed.executeUpdate();
      }
      try (PreparedStatement range =
              db.prepareStatement(
                  "SELECT pg_current_xact_id()::text::bigint, min(seq), max(seq) FROM events"
                      + " WHERE txid = pg_current_xact_id()");
          ResultSet rs = range.executeQuery()) {
        rs.next();
        seedTxid = rs.getLong(1);
        firstSeq = rs.getLong(2);
        lastSeq = rs.getLong(3);
      }
      db.commit();
      db.setAutoCommit(true);
      try (Statement statement = db.createStatement()) {
        statement.execute("VACUUM (ANALYZE) events");
      }
    }
    double seedSeconds = (System.nanoTime() - seedStart) / 1e9;
    table.note(
        String.format(
            java.util.Locale.ROOT,
            "Seeded %,d events for the merchant in %.0f s (one INSERT … SELECT, then VACUUM"
                + " ANALYZE).",
            count,
            seedSeconds));

    String newest = EventId.of(seedTxid, lastSeq).value();
    IntFunction<String> randomCursor =
        i ->
            EventId.of(seedTxid, ThreadLocalRandom.current().nextLong(firstSeq, lastSeq + 1))
                .value();
    Map<String, IntFunction<String>> pages =
        new java.util.LinkedHashMap<>(
            Map.of(
                "first page (no cursor), limit 25", i -> "",
                "first page (no cursor), limit 100", i -> "limit=100",
                "random cursor, limit 100",
                    i -> "limit=100&starting_after=" + randomCursor.apply(i),
                "random cursor, `type=payment.succeeded`, limit 100",
                    i -> "limit=100&type=payment.succeeded&starting_after=" + randomCursor.apply(i),
                "after the newest event (empty page), limit 100",
                    i -> "limit=100&starting_after=" + newest));
    // Warm the JIT and the connection pools on every kind of page first; not reported.
    for (IntFunction<String> query : pages.values()) {
      ClosedLoop.run(
          1, 200, i -> api.get("/v1/events?" + query.apply(i), keys.next()).status() == 200);
    }
    table.gap().header("page", "via", "requests", "errors", "p50 ms", "p90 ms", "p99 ms", "max ms");
    for (String page :
        List.of(
            "first page (no cursor), limit 25",
            "first page (no cursor), limit 100",
            "random cursor, limit 100",
            "random cursor, `type=payment.succeeded`, limit 100",
            "after the newest event (empty page), limit 100")) {
      IntFunction<String> query = pages.get(page);
      ClosedLoop.Result gateway =
          ClosedLoop.run(
              1,
              requests,
              i -> api.get("/v1/events?" + query.apply(i), keys.next()).status() == 200);
      table.row(
          page,
          "gateway",
          requests,
          gateway.errors(),
          gateway.latencies().p50(),
          gateway.latencies().p90(),
          gateway.latencies().p99(),
          gateway.latencies().max());
      ClosedLoop.Result internal =
          ClosedLoop.run(
              1,
              requests,
              i -> {
                HttpRequest request =
                    HttpRequest.newBuilder(
                            URI.create(paymentsUrl + "/internal/events?" + query.apply(i)))
                        .header("X-Internal-Token", internalToken)
                        .header("X-Merchant-Id", merchant)
                        .header("X-Environment", "test")
                        .timeout(Duration.ofSeconds(30))
                        .GET()
                        .build();
                return api.http().send(request, HttpResponse.BodyHandlers.discarding()).statusCode()
                    == 200;
              });
      table.row(
          page,
          "payments-service internal",
          requests,
          internal.errors(),
          internal.latencies().p50(),
          internal.latencies().p90(),
          internal.latencies().p99(),
          internal.latencies().max());
    }

    Visibility visibility =
        visibility(api, keys, paymentsJdbc, merchant, payment, newest, rate, seconds);
    table
        .gap()
        .header(
            "commit → listed",
            "events/s",
            "events",
            "seen",
            "p50 ms",
            "p90 ms",
            "p99 ms",
            "max ms",
            "polls",
            "poll p50 ms")
        .row(
            "`GET /v1/events?starting_after=…&limit=100` through the gateway, back to back",
            String.format(java.util.Locale.ROOT, "%.0f", visibility.rate),
            visibility.events,
            visibility.visible.count(),
            visibility.visible.p50(),
            visibility.visible.p90(),
            visibility.visible.p99(),
            visibility.visible.max(),
            visibility.polls.count(),
            visibility.polls.p50());
    table.print();
  }

  /** The merchant's events once there are at least {@code count}. */
  private static JsonNode awaitEvents(Api api, Api.Keys keys, int count) throws Exception {
    for (int attempt = 0; attempt < 300; attempt++) {
      JsonNode list = api.get("/v1/events", keys.next()).expect(200).get("data");
      if (list.size() >= count) {
        return list;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("the payment's events never became visible");
  }

  record Visibility(double rate, int events, Latencies visible, Latencies polls) {}

  private static Visibility visibility(
      Api api,
      Api.Keys keys,
      String paymentsJdbc,
      String merchant,
      ObjectNode payment,
      String newest,
      double rate,
      int seconds)
      throws Exception {
    EventLogWriter writer = new EventLogWriter(paymentsJdbc, merchant, payment);
    int count = (int) (rate * seconds);
    Map<String, Long> seen = new ConcurrentHashMap<>();
    Latencies polls = new Latencies();
    Set<String> expected = ConcurrentHashMap.newKeySet();
    Thread poller =
        new Thread(
            () -> {
              String cursor = newest;
              long deadline = Long.MAX_VALUE;
              try {
                while (System.nanoTime() < deadline) {
                  long t0 = System.nanoTime();
                  JsonNode page =
                      api.get("/v1/events?limit=100&starting_after=" + cursor, keys.next())
                          .expect(200);
                  long now = System.nanoTime();
                  polls.add(now - t0);
                  for (JsonNode event : page.get("data")) {
                    cursor = event.get("id").asText();
                    seen.putIfAbsent(cursor, now);
                  }
                  if (expected.size() == count && seen.keySet().containsAll(expected)) {
                    break;
                  }
                  if (expected.size() == count && deadline == Long.MAX_VALUE) {
                    deadline = now + 30_000_000_000L;
                  }
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            "poller");
    poller.start();
    List<Connection> connections = writer.connect(4);
    EventLogWriter.Written[] written = new EventLogWriter.Written[count];
    double achieved =
        OpenLoop.run(
            4,
            rate,
            count,
            (worker, i) -> {
              written[i] = writer.writeOne(connections.get(worker));
              expected.add(written[i].eventId());
            });
    poller.join();
    for (Connection connection : connections) {
      connection.close();
    }
    Latencies visible = new Latencies();
    List<String> missing = new ArrayList<>();
    for (EventLogWriter.Written w : written) {
      Long at = seen.get(w.eventId());
      if (at == null) {
        missing.add(w.eventId());
      } else {
        visible.add(at - w.committedNanos());
      }
    }
    if (!missing.isEmpty()) {
      System.err.println(missing.size() + " events never listed, e.g. " + missing.get(0));
    }
    return new Visibility(achieved, count, visible, polls);
  }

  private EventsBench() {}
}
