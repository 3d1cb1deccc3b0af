package ph.payments.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.Topics;
import ph.payments.platform.ids.EventId;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.KafkaSettings;

/**
 * Ledger posting throughput and payout-hold latency against a running system (bench/run-ledger).
 *
 * <ol>
 *   <li><b>Posting throughput</b>: a backlog of {@code payment.succeeded} events is produced to
 *       {@code payments.events} in the exact contract format ({@link KafkaEnvelopes#toRecord}, the
 *       body {@code EventLog.append} writes, the merchant attribute), far faster than the ledger
 *       consumes; the rate is postings per second while ledger-service works through it, from its
 *       own {@code recorded_at} stamps.
 *   <li><b>Payout holds</b>: the merchant's balance then covers many payouts. Latency of {@code
 *       POST /internal/holds} on ledger-service with the internal token (the call payments-service
 *       makes before it accepts a payout), and of the whole {@code POST /v1/payouts} through the
 *       gateway, at 1 and 16 connections.
 * </ol>
 *
 * <p>Arguments: gateway URL, admin token, Kafka bootstrap servers, ledger JDBC URL, ledger URL,
 * internal token, backlog size, requests per hold level.
 */
public final class LedgerBench {

  private static final String PAYOUT_BODY =
      "{\"amount\":20.00,\"method\":\"ewallet1\",\"destination\":{\"account_no\":\"09171234567\"}}";

  public static void main(String[] args) throws Exception {
    Api api = new Api(args[0], args[1]);
    String bootstrap = args[2];
    String ledgerJdbc = args[3];
    String ledgerUrl = args[4];
    String internalToken = args[5];
    int backlog = Integer.parseInt(args[6]);
    int requests = Integer.parseInt(args[7]);

    String merchant = api.createMerchant("Ledger bench");
    Api.Keys keys = api.createKeys(merchant, 16, 10_000);
    ObjectNode template = api.createPayment(keys.next());

    Table table = new Table();
    try (KafkaProducer<String, byte[]> producer =
            new KafkaProducer<>(KafkaSettings.producer(bootstrap, "ledger-bench"));
        Connection ledger = DriverManager.getConnection(ledgerJdbc)) {
      // Warm the consumer (group join, JIT); not reported.
      produce(producer, merchant, template, 500, 0);
      awaitPostings(ledger, 500);

      Instant started = Instant.now();
      long produceStart = System.nanoTime();
      produce(producer, merchant, template, backlog, 500);
      double produceSeconds = (System.nanoTime() - produceStart) / 1e9;
      awaitPostings(ledger, 500 + backlog);
      double wallSeconds = Duration.between(started, Instant.now()).toMillis() / 1000.0;
      double[] span = postingSpan(ledger, started);
      table
          .header("backlog", "produced in s", "posted", "posting s", "postings/s", "wall s")
          .row(backlog, produceSeconds, (long) span[1], span[0], span[1] / span[0], wallSeconds);
    }

    table
        .gap()
        .header(
            "payout holds",
            "connections",
            "requests",
            "errors",
            "req/s",
            "p50 ms",
            "p90 ms",
            "p99 ms",
            "max ms");
    for (int connections : new int[] {1, 16}) {
      ClosedLoop.Result internal =
          holds(api, ledgerUrl, internalToken, merchant, connections, requests);
      table.row(
          "`POST /internal/holds` (ledger-service, internal token)",
          connections,
          requests,
          internal.errors(),
          internal.rate(),
          internal.latencies().p50(),
          internal.latencies().p90(),
          internal.latencies().p99(),
          internal.latencies().max());
    }
    for (int connections : new int[] {1, 16}) {
      ClosedLoop.Result payouts = payouts(api, keys, connections, requests);
      table.row(
          "`POST /v1/payouts` (gateway → payments-service → hold → reply)",
          connections,
          requests,
          payouts.errors(),
          payouts.rate(),
          payouts.latencies().p50(),
          payouts.latencies().p90(),
          payouts.latencies().p99(),
          payouts.latencies().max());
    }
    table.print();
  }

  /** Produces {@code count} events; event {@code i} gets sequence {@code first + i}. */
  private static void produce(
      KafkaProducer<String, byte[]> producer,
      String merchant,
      ObjectNode template,
      int count,
      long first)
      throws Exception {
    // Event ids need a (transaction, sequence) position; one made-up transaction far ahead of the
    // payments database's, which the ledger never sees.
    long txid = 1L << 40;
    BigDecimal amount = template.get("amount").decimalValue();
    BigDecimal fee = template.get("fee_amount").decimalValue();
    for (int i = 0; i < count; i++) {
      Instant now = Instant.now();
      String paymentId = IdType.PAYMENT.generate();
      ObjectNode payment = template.deepCopy();
      payment.put("id", paymentId);
      payment.put("status", "succeeded");
      payment.put("net_amount", amount.subtract(fee));
      payment.put("succeeded_at", now.getEpochSecond());
      String id = EventId.of(txid, first + i).value();
      ObjectNode event = Json.mapper().createObjectNode();
      event.put("id", id);
      event.put("object", "event");
      event.put("type", "payment.succeeded");
      event.put("environment", "test");
      event.put("created", now.getEpochSecond());
      event.putObject("data").set("object", payment);
      Envelope envelope =
          new Envelope(
              id,
              "payment.succeeded",
              paymentId,
              now,
              Json.toBytes(event),
              Map.of(Envelope.ATTRIBUTE_MERCHANT_ID, merchant));
      producer.send(KafkaEnvelopes.toRecord(Topics.EVENTS, envelope));
    }
    producer.flush();
  }

  private static void awaitPostings(Connection ledger, long count) throws Exception {
    long deadline = System.nanoTime() + 600_000_000_000L;
    while (postings(ledger) < count) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the ledger did not post " + count + " in 10 minutes");
      }
      Thread.sleep(50);
    }
  }

  private static long postings(Connection ledger) throws SQLException {
    try (PreparedStatement select =
            ledger.prepareStatement(
                "SELECT count(*) FROM journal_transactions WHERE kind = 'payment_succeeded'");
        ResultSet rs = select.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** {seconds from the first to the last posting since {@code from}, postings}. */
  private static double[] postingSpan(Connection ledger, Instant from) throws SQLException {
    try (PreparedStatement select =
        ledger.prepareStatement(
            "SELECT min(recorded_at), max(recorded_at), count(*) FROM journal_transactions"
                + " WHERE kind = 'payment_succeeded' AND recorded_at >= ?")) {
      select.setTimestamp(1, java.sql.Timestamp.from(from));
      try (ResultSet rs = select.executeQuery()) {
        rs.next();
        double seconds =
            Duration.between(rs.getTimestamp(1).toInstant(), rs.getTimestamp(2).toInstant())
                    .toNanos()
                / 1e9;
        return new double[] {seconds, rs.getLong(3)};
      }
    }
  }

  private static ClosedLoop.Result holds(
      Api api, String ledgerUrl, String token, String merchant, int connections, int requests)
      throws Exception {
    return ClosedLoop.run(
        connections,
        requests,
        i -> {
          String body =
              String.format(
                  Locale.ROOT,
                  "{\"payout_id\":\"%s\",\"merchant_id\":\"%s\",\"environment\":\"test\","
                      + "\"amount\":20.00,\"currency\":\"PHP\"}",
                  IdType.PAYOUT.generate(),
                  merchant);
          HttpRequest request =
              HttpRequest.newBuilder(URI.create(ledgerUrl + "/internal/holds"))
                  .header("Content-Type", "application/json")
                  .header("X-Internal-Token", token)
                  .timeout(Duration.ofSeconds(30))
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build();
          return api.http().send(request, HttpResponse.BodyHandlers.ofString()).statusCode() == 201;
        });
  }

  private static ClosedLoop.Result payouts(Api api, Api.Keys keys, int connections, int requests)
      throws Exception {
    return ClosedLoop.run(
        connections,
        requests,
        i -> api.post("/v1/payouts", keys.get(i), PAYOUT_BODY).status() == 201);
  }

  private LedgerBench() {}
}
