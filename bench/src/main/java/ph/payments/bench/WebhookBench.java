package ph.payments.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import ph.payments.platform.ids.EventId;
import ph.payments.platform.json.Json;

/**
 * Webhook latency and delivery throughput against a running system (bench/run-webhooks).
 *
 * <ol>
 *   <li><b>Latency at a rate, events written as the service writes them</b>: {@link EventLogWriter}
 *       commits one {@code payment.succeeded} per transaction on an open-loop schedule; latency is
 *       from the moment that commit returned to the moment the receiver (in this JVM, same clock)
 *       had the request.
 *   <li><b>Latency through the API</b>: pre-created payments are succeeded with {@code POST
 *       /v1/test_helpers/payments/{id}/succeed} on an open-loop schedule; each writes {@code
 *       payment.processing} and {@code payment.succeeded} in one transaction. The commit is not
 *       observable from outside, so latency runs from the event row's {@code created_at} (the
 *       service's clock, read inside the transaction just before the insert, so slightly before the
 *       commit: this errs towards more latency) to the arrival, both on this machine's clock.
 *   <li><b>Delivery throughput</b>: the receiver holds every request while a backlog of events is
 *       written and webhook-service turns it into pending deliveries; then it opens, and the rate
 *       at which the backlog arrives is delivery throughput with many pending.
 * </ol>
 *
 * <p>Arguments: gateway URL, admin token, payments JDBC URL, webhooks JDBC URL, events per second,
 * seconds per latency run, test-helper succeeds per second, backlog size.
 */
public final class WebhookBench {

  /** BENCH_WARMUP_SECONDS (5): the warm-up; the JIT compiles for minutes on a small machine. */
  private static int warmupSeconds() {
    String seconds = System.getenv("BENCH_WARMUP_SECONDS");
    return seconds == null || seconds.isBlank() ? 5 : Integer.parseInt(seconds.strip());
  }

  public static void main(String[] args) throws Exception {
    Api api = new Api(args[0], args[1]);
    String paymentsJdbc = args[2];
    String webhooksJdbc = args[3];
    // One rate, or several separated by commas (a latency curve); the highest warms up.
    double[] rates =
        java.util.Arrays.stream(args[4].split(",")).mapToDouble(Double::parseDouble).toArray();
    double rate = java.util.Arrays.stream(rates).max().orElseThrow();
    int seconds = Integer.parseInt(args[5]);
    double helperRate = Double.parseDouble(args[6]);
    int backlog = Integer.parseInt(args[7]);

    String merchant = api.createMerchant("Webhook bench");
    Api.Keys keys = api.createKeys(merchant, 16, 10_000);
    Table table = new Table();
    try (Receiver receiver = new Receiver()) {
      String endpoint =
          api.post(
                  "/v1/webhooks/endpoints",
                  keys.next(),
                  Json.toText(Map.of("url", receiver.url(), "events", List.of("*"))))
              .expect(201)
              .get("id")
              .asText();
      ObjectNode template = api.createPayment(keys.next());
      EventLogWriter writer = new EventLogWriter(paymentsJdbc, merchant, template);

      // Warm the relay, the consumers, the delivery path and the JIT; not reported.
      direct(writer, receiver, Math.min(rate, 200), warmupSeconds(), "warm-up, ");

      table.header(
          "how events are made",
          "target events/s",
          "achieved events/s",
          "events",
          "delivered",
          "p50 ms",
          "p90 ms",
          "p99 ms",
          "max ms");
      List<String> windowNotes = new ArrayList<>();
      for (double each : rates) {
        Result direct = direct(writer, receiver, each, seconds, "");
        windowNotes.add(String.format(Locale.ROOT, "%.0f/s: %s ms", each, direct.byWindow()));
        table.row(
            "event log + outbox written as `EventLog.append` does, one event per transaction",
            String.format(Locale.ROOT, "%.0f", each),
            String.format(Locale.ROOT, "%.0f", direct.achievedRate),
            direct.events,
            direct.delivered,
            direct.latencies.p50(),
            direct.latencies.p90(),
            direct.latencies.p99(),
            direct.latencies.max());
      }
      Result helpers =
          throughHelpers(api, keys, args[0], paymentsJdbc, merchant, receiver, helperRate, seconds);
      table.row(
          "`POST /v1/test_helpers/payments/{id}/succeed` (2 events per call)",
          String.format(Locale.ROOT, "%.0f", 2 * helperRate),
          String.format(Locale.ROOT, "%.0f", helpers.achievedRate),
          helpers.events,
          helpers.delivered,
          helpers.latencies.p50(),
          helpers.latencies.p90(),
          helpers.latencies.p99(),
          helpers.latencies.max());

      table.note(
          "Event log rows, p99 of the events committed in each 10 s of the stage, in order: "
              + String.join("; ", windowNotes)
              + ". Test helpers, the same by 10 s of the events' `created_at`: "
              + helpers.byWindow()
              + " ms.");
      if (backlog > 0) { // none asked for: latencies only
        Throughput throughput =
            throughput(writer, receiver, webhooksJdbc, paymentsJdbc, endpoint, backlog);
        table
            .gap()
            .header("backlog", "stage", "events/s", "seconds")
            .row(
                backlog,
                "relay: outbox rows published (first written → last published)",
                throughput.relayRate,
                throughput.relaySeconds)
            .row(
                backlog,
                "webhook-service consumer: deliveries created",
                throughput.consumerRate,
                throughput.consumerSeconds)
            .row(
                backlog,
                "**delivery to the receiver, all pending at the start**",
                throughput.deliveryRate,
                throughput.deliverySeconds);
        table.note(
            String.format(
                Locale.ROOT,
                "Backlog delivered: %d of %d events; %d deliveries arrived in all (duplicates"
                    + " included).",
                throughput.arrived,
                backlog,
                throughput.deliveries));
      }
    }
    table.print();
  }

  /**
   * @param byWindow p99 ms of the events committed in each 10 s of the stage, in order ("" where
   *     not measured): whether a high p99 is a start that recovers or a queue that keeps growing
   */
  record Result(
      int events, int delivered, double achievedRate, Latencies latencies, String byWindow) {}

  private static final long WINDOW_NANOS = 10_000_000_000L;

  /**
   * @param stage what the stage's name starts with ({@link Stages})
   */
  private static Result direct(
      EventLogWriter writer, Receiver receiver, double rate, int seconds, String stage)
      throws Exception {
    int count = (int) (rate * seconds);
    int workers = 8;
    List<Connection> connections = writer.connect(workers);
    EventLogWriter.Written[] written = new EventLogWriter.Written[count];
    long stageStart = System.currentTimeMillis();
    double achieved =
        OpenLoop.run(
            workers,
            rate,
            count,
            (worker, i) -> written[i] = writer.writeOne(connections.get(worker)));
    for (Connection connection : connections) {
      connection.close();
    }
    List<String> ids = new ArrayList<>();
    for (EventLogWriter.Written w : written) {
      ids.add(w.eventId());
    }
    awaitArrivals(receiver, ids, 60);
    Stages.mark(
        String.format(Locale.ROOT, "%sevent log %.0f/s", stage, rate),
        stageStart,
        System.currentTimeMillis(),
        count);
    Latencies latencies = new Latencies();
    // The same latencies by 10 s of commits, from the first commit.
    List<Latencies> windows = new ArrayList<>();
    long start = Long.MAX_VALUE;
    for (EventLogWriter.Written w : written) {
      start = Math.min(start, w.committedNanos());
    }
    int delivered = 0;
    for (EventLogWriter.Written w : written) {
      Long arrival = receiver.arrivalNanos(w.eventId());
      if (arrival != null) {
        delivered++;
        latencies.add(arrival - w.committedNanos());
        addToWindow(windows, w.committedNanos() - start, arrival - w.committedNanos());
      }
    }
    return new Result(count, delivered, achieved, latencies, p99s(windows));
  }

  private static Result throughHelpers(
      Api api,
      Api.Keys keys,
      String gateway,
      String paymentsJdbc,
      String merchant,
      Receiver receiver,
      double perSecond,
      int seconds)
      throws Exception {
    boolean wrk = "wrk".equals(System.getenv("BENCH_CLIENT"));
    int count = (int) (perSecond * seconds);
    // With wrk the succeed path first runs at the stage's rate for the warm-up's length, so the
    // stage measures that path warm, as the event log's stages are (not reported).
    int warmup = wrk ? (int) (perSecond * warmupSeconds()) : 0;
    List<String> payments = Collections.synchronizedList(new ArrayList<>());
    // A creation the gateway timed out on (202, still pending) is simply left out.
    OpenLoop.run(
        16,
        Double.MAX_VALUE,
        count + warmup,
        (worker, i) -> {
          Api.Response created = api.post("/v1/payments", keys.get(worker), Api.PAYMENT);
          if (created.status() == 201) {
            payments.add(created.body().get("id").asText());
          }
        });
    if (warmup > 0) {
      succeed(api, keys, gateway, payments.subList(0, warmup), perSecond, wrk);
      Thread.sleep(3_000); // its last events delivered and out of the stage's window
    }
    List<String> measured = payments.subList(warmup, payments.size());
    // Map this JVM's nanoTime onto the wall clock the services stamp created_at with.
    Instant wallStart = Instant.now();
    long nanoStart = System.nanoTime();
    Instant from = wallStart.minusSeconds(1);
    long stageStart = System.currentTimeMillis();
    succeed(api, keys, gateway, measured, perSecond, wrk);
    List<long[]> events = new ArrayList<>(); // txid, seq, created_at epoch micros
    try (Connection connection = DriverManager.getConnection(paymentsJdbc);
        PreparedStatement select =
            connection.prepareStatement(
                "SELECT txid::text::bigint, seq, created_at FROM events"
                    + " WHERE merchant_id = ? AND created_at >= ?")) {
      select.setString(1, merchant);
      select.setTimestamp(2, java.sql.Timestamp.from(from));
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          Instant created = rs.getTimestamp(3).toInstant();
          events.add(
              new long[] {
                rs.getLong(1),
                rs.getLong(2),
                created.getEpochSecond() * 1_000_000 + created.getNano() / 1000
              });
        }
      }
    }
    List<String> ids = new ArrayList<>();
    long firstMicros = Long.MAX_VALUE;
    long lastMicros = Long.MIN_VALUE;
    for (long[] event : events) {
      ids.add(EventId.of(event[0], event[1]).value());
      firstMicros = Math.min(firstMicros, event[2]);
      lastMicros = Math.max(lastMicros, event[2]);
    }
    awaitArrivals(receiver, ids, 60);
    Stages.mark(
        String.format(Locale.ROOT, "test helpers %.0f events/s", 2 * perSecond),
        stageStart,
        System.currentTimeMillis(),
        events.size());
    long wallStartMicros = wallStart.getEpochSecond() * 1_000_000 + wallStart.getNano() / 1000;
    Latencies latencies = new Latencies();
    List<Latencies> windows = new ArrayList<>(); // by 10 s of created_at, from the first
    int delivered = 0;
    for (int i = 0; i < events.size(); i++) {
      Long arrival = receiver.arrivalNanos(ids.get(i));
      if (arrival != null) {
        delivered++;
        long arrivalMicros = wallStartMicros + (arrival - nanoStart) / 1000;
        long nanos = (arrivalMicros - events.get(i)[2]) * 1000;
        latencies.add(nanos);
        addToWindow(windows, (events.get(i)[2] - firstMicros) * 1000, nanos);
      }
    }
    double achieved = events.size() / Math.max(1e-3, (lastMicros - firstMicros) / 1e6);
    return new Result(events.size(), delivered, achieved, latencies, p99s(windows));
  }

  /** Succeeds the payments at a rate, through the JDK client or wrk; failures go to stderr. */
  private static void succeed(
      Api api, Api.Keys keys, String gateway, List<String> payments, double perSecond, boolean wrk)
      throws Exception {
    if (wrk) {
      succeedWithWrk(keys, gateway, payments, perSecond);
      return;
    }
    AtomicInteger failed = new AtomicInteger();
    OpenLoop.run(
        64,
        perSecond,
        payments.size(),
        (worker, i) -> {
          if (api.post(
                      "/v1/test_helpers/payments/" + payments.get(i) + "/succeed",
                      keys.get(worker),
                      "{}")
                  .status()
              != 200) {
            failed.incrementAndGet();
          }
        });
    if (failed.get() > 0) {
      System.err.println(failed.get() + " succeed calls failed");
    }
  }

  /**
   * wrk (bench/wrk/succeed.lua, BENCH_WRK_SCRIPT) on the same schedule as {@link OpenLoop}: two
   * threads, 64 connections, the payments and their keys in a file; its output goes to stderr.
   */
  private static void succeedWithWrk(
      Api.Keys keys, String gateway, List<String> payments, double perSecond) throws Exception {
    int threads = 2;
    Path file = Files.createTempFile("bench-succeed", ".txt");
    try {
      StringBuilder lines = new StringBuilder();
      for (int i = 0; i < payments.size(); i++) {
        lines.append(payments.get(i)).append(' ').append(keys.get(i)).append('\n');
      }
      Files.writeString(file, lines);
      // Long enough for every call on schedule and the late ones; wrk stops at -d only.
      long runSeconds = (long) Math.ceil(payments.size() / perSecond) + 10;
      ProcessBuilder wrk =
          new ProcessBuilder(
                  "wrk",
                  "-t",
                  Integer.toString(threads),
                  "-c",
                  "64",
                  "-d",
                  runSeconds + "s",
                  "--timeout",
                  "30s",
                  "-s",
                  System.getenv("BENCH_WRK_SCRIPT"),
                  gateway)
              .redirectErrorStream(true);
      wrk.environment().put("BENCH_PAYMENTS_FILE", file.toString());
      wrk.environment().put("BENCH_RATE", Double.toString(perSecond));
      wrk.environment().put("BENCH_WRK_THREADS", Integer.toString(threads));
      Process process = wrk.start();
      String output = new String(process.getInputStream().readAllBytes());
      if (process.waitFor() != 0) {
        throw new IllegalStateException("wrk failed:\n" + output);
      }
      System.err.print(output);
      if (output.contains("Non-2xx or 3xx responses") || output.contains("Socket errors")) {
        System.err.println("some succeed calls failed (wrk's output above)");
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /** Adds a latency to the window of 10 s that {@code sinceStartNanos} falls in. */
  private static void addToWindow(List<Latencies> windows, long sinceStartNanos, long nanos) {
    int window = (int) (sinceStartNanos / WINDOW_NANOS);
    while (windows.size() <= window) {
      windows.add(new Latencies());
    }
    windows.get(window).add(nanos);
  }

  private static String p99s(List<Latencies> windows) {
    List<String> p99s = new ArrayList<>();
    for (Latencies window : windows) {
      p99s.add(String.format(Locale.ROOT, "%.0f", window.percentileMillis(99)));
    }
    return String.join(" / ", p99s);
  }

  record Throughput(
      double relayRate,
      double relaySeconds,
      double consumerRate,
      double consumerSeconds,
      double deliveryRate,
      double deliverySeconds,
      int arrived,
      long deliveries) {}

  private static Throughput throughput(
      EventLogWriter writer,
      Receiver receiver,
      String webhooksJdbc,
      String paymentsJdbc,
      String endpoint,
      int backlog)
      throws Exception {
    long deliveriesBefore = receiver.deliveries();
    long firstDeliveryId;
    try (Connection webhooks = DriverManager.getConnection(webhooksJdbc)) {
      firstDeliveryId = scalar(webhooks, "SELECT coalesce(max(id), 0) + 1 FROM webhook_deliveries");
    }
    receiver.hold();
    int workers = 4;
    int batch = 20;
    List<Connection> connections = writer.connect(workers);
    List<String> ids = Collections.synchronizedList(new ArrayList<>());
    OpenLoop.run(
        workers,
        Double.MAX_VALUE,
        backlog / batch,
        (worker, i) -> ids.addAll(writer.writeBatch(connections.get(worker), batch)));
    for (Connection connection : connections) {
      connection.close();
    }
    // Wait until webhook-service has made every delivery (all pending, the receiver holds).
    try (Connection webhooks = DriverManager.getConnection(webhooksJdbc)) {
      long deadline = System.nanoTime() + 300_000_000_000L;
      String count =
          "SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = '"
              + endpoint
              + "' AND id >= "
              + firstDeliveryId;
      while (scalar(webhooks, count) < ids.size() && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
    }
    long opened = System.nanoTime();
    receiver.open();
    awaitArrivals(receiver, ids, 300);
    long last = opened;
    int arrived = 0;
    for (String id : ids) {
      Long arrival = receiver.arrivalNanos(id);
      if (arrival != null) {
        arrived++;
        last = Math.max(last, arrival);
      }
    }
    double deliverySeconds = (last - opened) / 1e9;

    double[] consumer;
    try (Connection webhooks = DriverManager.getConnection(webhooksJdbc)) {
      consumer =
          span(
              webhooks,
              "SELECT min(created_at), max(created_at), count(*) FROM webhook_deliveries"
                  + " WHERE endpoint_id = '"
                  + endpoint
                  + "' AND id >= "
                  + firstDeliveryId);
    }
    double[] relay;
    try (Connection payments = DriverManager.getConnection(paymentsJdbc);
        PreparedStatement select =
            payments.prepareStatement(
                "SELECT min(created_at), max(published_at), count(*) FROM outbox"
                    + " WHERE message_id = ANY (?)")) {
      select.setArray(1, payments.createArrayOf("text", ids.toArray()));
      relay = span(select);
    }
    return new Throughput(
        relay[1] / relay[0],
        relay[0],
        consumer[1] / consumer[0],
        consumer[0],
        arrived / deliverySeconds,
        deliverySeconds,
        arrived,
        receiver.deliveries() - deliveriesBefore);
  }

  /** Waits until every event arrived, or the timeout passed. */
  private static void awaitArrivals(Receiver receiver, List<String> ids, int timeoutSeconds)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
    int from = 0;
    while (from < ids.size() && System.nanoTime() < deadline) {
      if (receiver.arrivalNanos(ids.get(from)) != null) {
        from++;
      } else {
        Thread.sleep(20);
      }
    }
  }

  private static long scalar(Connection connection, String sql) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql);
        ResultSet rs = select.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** {seconds from the first to the second timestamp, the count} of a min/max/count query. */
  private static double[] span(Connection connection, String sql) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      return span(select);
    }
  }

  private static double[] span(PreparedStatement select) throws SQLException {
    try (ResultSet rs = select.executeQuery()) {
      rs.next();
      Instant first = rs.getTimestamp(1).toInstant();
      Instant last = rs.getTimestamp(2).toInstant();
      double seconds = (last.toEpochMilli() - first.toEpochMilli()) / 1000.0;
      return new double[] {seconds, rs.getLong(3)};
    }
  }

  private WebhookBench() {}
}
