package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The metrics an operator's dashboard reads, from the real processes: after a payment, a refund and
 * a webhook delivery, every service's {@code /prometheus} is scraped, and every series a panel of
 * the provisioned Grafana dashboard ({@code deploy/grafana/dashboards/}) queries is there. No
 * Grafana or Prometheus runs here (no Docker engine), so the dashboard's {@code expr}s are parsed
 * for their metric names instead. Also: the gateway's scrape, on the public port, needs the metrics
 * token.
 */
@ExtendWith(SharedSystem.class)
class MetricsE2EIT {

  private static final String METRICS_TOKEN = SharedSystem.METRICS_TOKEN;
  private static final Duration PATIENCE = Duration.ofSeconds(90);

  /** A metric selector in PromQL: a name followed by its label matchers. */
  private static final Pattern SELECTOR = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\{");

  /** An alert rule's expression in alerts.yml, on one line. */
  private static final Pattern ALERT_EXPR = Pattern.compile("\\s*expr: (.+)");

  private static SystemUnderTest system;
  private static WebhookReceiver receiver;
  private static final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start(SystemUnderTest shared) throws Exception {
    // The shared system has the metrics token and refreshes consumer lag every 2 s.
    system = shared;
    receiver = WebhookReceiver.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (receiver != null) {
      receiver.close();
    }
  }

  @Test
  void everySeriesTheDashboardUsesIsScrapedAfterAPaymentARefundAndAWebhook() throws Exception {
    // The system is shared: the counters and histograms below must move past what this scrape
    // shows, with this test's own payment, refund and webhook.
    Map<String, String> before = scrapeAll();
    Merchant operator = new Merchant(system.gatewayUrl(), system.adminToken);
    Merchant shop =
        new Merchant(
            system.gatewayUrl(),
            operator
                .post("/admin/v1/merchants", Merchant.json("name", "Metrics", "email", "m@ex.ph"))
                .created()
                .at("/api_keys/0/secret")
                .asText());
    String secret =
        shop.post(
                "/v1/webhooks/endpoints",
                Merchant.json("url", receiver.url(), "events", List.of("*")))
            .created()
            .get("secret")
            .asText();
    String paymentId =
        shop.post(
                "/v1/payments",
                Merchant.json("amount", 1000, "method", "card"),
                "Idempotency-Key",
                "metrics-pay")
            .created()
            .get("id")
            .asText();
    shop.post("/v1/test_helpers/payments/" + paymentId + "/succeed", null).ok();
    shop.post(
            "/v1/refunds",
            Merchant.json("payment", paymentId, "amount", 200),
            "Idempotency-Key",
            "metrics-refund")
        .created();
    receiver.await(
        event -> "refund.succeeded".equals(event.path("type").asText()), secret, PATIENCE);

    Set<String> used = operatorMetricNames();
    assertTrue(used.size() >= 15, "the dashboard queries " + used);

    Map<String, String> missing = new LinkedHashMap<>();
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    while (true) {
      Map<String, String> scrapes = scrapeAll();
      missing.clear();
      for (String name : used) {
        if (scrapes.values().stream().noneMatch(text -> hasSeries(text, name, ""))) {
          missing.put(name, "in no service");
        }
      }
      // What each service must show itself, beyond "somewhere".
      for (Map.Entry<String, String> scrape : scrapes.entrySet()) {
        for (String everywhere :
            List.of(
                "http_server_requests_seconds_bucket",
                "outbox_pending",
                "outbox_oldest_pending_age_seconds",
                "jvm_memory_used_bytes",
                "hikaricp_connections_active")) {
          if (!hasSeries(scrape.getValue(), everywhere, "")) {
            missing.put(everywhere + " @ " + scrape.getKey(), "missing");
          }
        }
      }
      expectMoved(
          missing,
          before,
          scrapes,
          "api-gateway",
          "gateway_command_roundtrip_seconds_bucket",
          "outcome=\"replied\"");
      expectMoved(
          missing,
          before,
          scrapes,
          "payments-service",
          "outbox_publish_latency_seconds_bucket",
          "");
      expectMoved(
          missing, before, scrapes, "ledger-service", "ledger_postings_total", "result=\"posted\"");
      expectMoved(
          missing,
          before,
          scrapes,
          "webhook-service",
          "webhook_attempts_total",
          "outcome=\"succeeded\"");
      expectMoved(
          missing,
          before,
          scrapes,
          "webhook-service",
          "webhook_delivery_latency_seconds_bucket",
          "");
      // Gauges: there, whatever their value.
      expect(missing, scrapes, "webhook-service", "webhook_queue_pending", "");
      expect(
          missing,
          scrapes,
          "ledger-service",
          "kafka_consumer_group_lag",
          "group=\"ledger-service\"");
      expect(
          missing,
          scrapes,
          "payments-service",
          "kafka_consumer_group_lag",
          "group=\"payments-service\"");
      if (missing.isEmpty() || System.nanoTime() > deadline) {
        break;
      }
      Thread.sleep(1000);
    }
    assertEquals(Map.of(), missing, "series the dashboard or an operator needs");
  }

  @Test
  void theGatewaysScrapeOnThePublicPortNeedsTheMetricsToken() throws Exception {
    assertEquals(401, get(system.gatewayUrl() + "/prometheus", null).statusCode());
    assertEquals(401, get(system.gatewayUrl() + "/prometheus", system.adminToken).statusCode());
    HttpResponse<String> scrape = get(system.gatewayUrl() + "/prometheus", METRICS_TOKEN);
    assertEquals(200, scrape.statusCode());
    assertTrue(scrape.body().contains("jvm_memory_used_bytes"), scrape.body());
    // The JSON metrics endpoint is off everywhere.
    assertFalse(
        get(system.gatewayUrl() + "/metrics", METRICS_TOKEN).statusCode() == 200, "/metrics");
  }

  /**
   * The metric names of every panel's expr in the provisioned dashboard and of every alert rule's
   * one-line expr in {@code deploy/prometheus/alerts.yml}.
   */
  static Set<String> operatorMetricNames() throws Exception {
    Path dashboards = system.repo.resolve("deploy/grafana/dashboards");
    Set<String> names = new TreeSet<>();
    List<Path> files;
    try (var list = Files.list(dashboards)) {
      files = list.filter(p -> p.toString().endsWith(".json")).toList();
    }
    assertFalse(files.isEmpty(), "no dashboard in " + dashboards);
    for (Path file : files) {
      List<JsonNode> exprs = new ArrayList<>();
      Merchant.JSON.readTree(file.toFile()).findValues("expr").forEach(exprs::add);
      assertFalse(exprs.isEmpty(), file + " has no expr");
      for (JsonNode expr : exprs) {
        Matcher selector = SELECTOR.matcher(expr.asText());
        boolean found = false;
        while (selector.find()) {
          names.add(selector.group(1));
          found = true;
        }
        assertTrue(found, "every expr names its metric with a selector: " + expr.asText());
      }
    }
    Path alerts = system.repo.resolve("deploy/prometheus/alerts.yml");
    int rules = 0;
    for (String line : Files.readAllLines(alerts)) {
      Matcher rule = ALERT_EXPR.matcher(line);
      if (rule.matches()) {
        rules++;
        Matcher selector = SELECTOR.matcher(rule.group(1));
        boolean found = false;
        while (selector.find()) {
          names.add(selector.group(1));
          found = true;
        }
        assertTrue(found, "every alert names its metric with a selector: " + line);
      }
    }
    assertTrue(rules >= 15, "alert rules read from " + alerts + ": " + rules);
    return names;
  }

  private static void expect(
      Map<String, String> missing,
      Map<String, String> scrapes,
      String service,
      String name,
      String label) {
    if (!hasSeries(scrapes.get(service), name, label)) {
      missing.put(name + "{" + label + "} @ " + service, "missing");
    }
  }

  /**
   * A counter or histogram: the sum of its samples of {@code name} with {@code label} (for a
   * histogram's {@code _bucket}, one more in each bucket an observation fell in) has grown since
   * {@code before}; a series missing then counts as zero.
   */
  private static void expectMoved(
      Map<String, String> missing,
      Map<String, String> before,
      Map<String, String> scrapes,
      String service,
      String name,
      String label) {
    double then = total(before.get(service), name, label);
    double now = total(scrapes.get(service), name, label);
    if (!(now > then)) {
      missing.put(name + "{" + label + "} @ " + service, "did not move from " + then);
    }
  }

  /** The sum of the samples of {@code name} whose labels contain {@code label}. */
  static double total(String exposition, String name, String label) {
    double sum = 0;
    for (String line : exposition.split("\n")) {
      if ((line.startsWith(name + "{") || line.startsWith(name + " "))
          && (label.isEmpty() || line.contains(label))) {
        String value = line.substring(Math.max(line.lastIndexOf('}'), name.length()) + 1).strip();
        sum += Double.parseDouble(value.split(" ")[0]);
      }
    }
    return sum;
  }

  /**
   * True when the exposition text has a sample of {@code name} whose labels contain {@code label}.
   */
  static boolean hasSeries(String exposition, String name, String label) {
    for (String line : exposition.split("\n")) {
      if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
        if (label.isEmpty() || line.contains(label)) {
          return true;
        }
      }
    }
    return false;
  }

  private static Map<String, String> scrapeAll() throws Exception {
    Map<String, String> scrapes = new LinkedHashMap<>();
    scrapes.put("api-gateway", scrape(system.gatewayUrl(), METRICS_TOKEN));
    scrapes.put("payments-service", scrape(internal("payments"), null));
    scrapes.put("ledger-service", scrape(internal("ledger"), null));
    scrapes.put("webhook-service", scrape(internal("webhook"), null));
    return scrapes;
  }

  private static String internal(String name) {
    return "http://127.0.0.1:" + system.internalPorts.get(name);
  }

  private static String scrape(String base, String token) throws Exception {
    HttpResponse<String> response = get(base + "/prometheus", token);
    assertEquals(200, response.statusCode(), base + ": " + response.body());
    return response.body();
  }

  private static HttpResponse<String> get(String url, String bearer) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).GET();
    if (bearer != null) {
      request.header("Authorization", "Bearer " + bearer);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
