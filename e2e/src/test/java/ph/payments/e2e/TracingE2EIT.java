package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Traces and request ids across the four real processes (issue 19, part 3). The services export
 * spans over OTLP/HTTP to a receiver in this test (a real socket, protobuf decoded by hand below);
 * one payment's capture must show one trace id in the gateway, payments-service, ledger-service and
 * webhook-service, and the merchant's {@code X-Request-Id} must reach the owners with it.
 */
class TracingE2EIT {

  private static final Set<String> SERVICES =
      Set.of("api-gateway", "payments-service", "ledger-service", "webhook-service");

  private static OtlpReceiver receiver;
  private static WebhookReceiver hooks;
  private static SystemUnderTest system;
  private static Merchant merchant;
  private static String secretKey;

  @BeforeAll
  static void start() throws Exception {
    receiver = OtlpReceiver.start();
    hooks = WebhookReceiver.start();
    system =
        SystemUnderTest.start(
            "traces",
            Map.of(
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                receiver.baseUrl(),
                "OTEL_BSP_SCHEDULE_DELAY",
                "100",
                // A shared, busy machine: four JVMs may need more than bin/run's default 90 s.
                "HEALTH_TIMEOUT_SECONDS",
                "200"));
    Merchant operator = new Merchant(system.gatewayUrl(), system.adminToken);
    Merchant.Reply created =
        operator.post(
            "/admin/v1/merchants", "{\"name\":\"Traced Shop\",\"email\":\"ops@example.com\"}");
    assertEquals(201, created.status(), created.raw().body());
    secretKey = created.json().at("/api_keys/0/secret").asText();
    merchant = new Merchant(system.gatewayUrl(), secretKey);
  }

  @AfterAll
  static void stop() throws Exception {
    if (system != null) {
      system.close();
    }
    if (receiver != null) {
      receiver.close();
    }
    if (hooks != null) {
      hooks.close();
    }
  }

  @Test
  void oneCaptureIsOneTraceAcrossTheFourServicesCarryingTheRequestId() throws Exception {
    Merchant.Reply endpoint =
        merchant.post(
            "/v1/webhooks/endpoints",
            "{\"url\":\"" + hooks.url() + "\",\"events\":[\"payment.succeeded\"]}");
    assertEquals(201, endpoint.status(), endpoint.raw().body());
    Merchant.Reply created =
        merchant.post(
            "/v1/payments",
            "{\"amount\":250.00,\"method\":\"ewallet1\",\"description\":\"Traced order\"}",
            "X-Request-Id",
            "e2e-create.1");
    assertEquals(201, created.status(), created.raw().body());
    assertEquals("e2e-create.1", requestId(created));
    String id = created.json().get("id").asText();

    Merchant.Reply succeeded =
        merchant.post(
            "/v1/test_helpers/payments/" + id + "/succeed", null, "X-Request-Id", "e2e-capture-1");
    assertEquals(200, succeeded.status(), succeeded.raw().body());
    assertEquals("e2e-capture-1", requestId(succeeded));

    // The capture's trace: from the gateway's server span, through the command (Kafka), the
    // payment.succeeded event (Kafka) into the ledger's posting and the webhook service, whose
    // attempt to deliver the event joins it too.
    Span gateway =
        receiver.await(
            "api-gateway span of e2e-capture-1",
            spans ->
                spans.stream()
                    .filter(
                        s ->
                            s.service().equals("api-gateway")
                                && "e2e-capture-1".equals(s.requestId()))
                    .findFirst());
    Set<String> services =
        receiver.await(
            "spans of all four services in trace " + gateway.traceId(),
            spans -> {
              Set<String> seen =
                  spans.stream()
                      .filter(s -> s.traceId().equals(gateway.traceId()))
                      .map(Span::service)
                      .collect(Collectors.toCollection(TreeSet::new));
              return seen.containsAll(SERVICES)
                  ? java.util.Optional.of(seen)
                  : java.util.Optional.empty();
            });
    assertEquals(SERVICES, services);
    receiver.await(
        "the webhook attempt in trace " + gateway.traceId(),
        spans ->
            spans.stream()
                .filter(s -> s.traceId().equals(gateway.traceId()))
                .filter(s -> s.name().equals("webhook attempt payment.succeeded"))
                .filter(s -> "e2e-capture-1".equals(s.requestId()))
                .findFirst());
    List<Span> trace = receiver.trace(gateway.traceId());
    for (String owner : List.of("payments-service", "ledger-service", "webhook-service")) {
      assertTrue(
          trace.stream()
              .anyMatch(s -> s.service().equals(owner) && "e2e-capture-1".equals(s.requestId())),
          owner + " carries the merchant's request id: " + trace);
    }
    assertTrue(
        trace.stream()
            .anyMatch(s -> s.name().equals("POST /v1/test_helpers/payments/{id}/{action}")),
        "the gateway span is named by its route: " + trace);
  }

  @Test
  void aReadForwardedToItsOwnerContinuesTheTraceWithTheRequestId() throws Exception {
    String id =
        merchant
            .post("/v1/payments", "{\"amount\":99.00,\"method\":\"ewallet1\"}")
            .created()
            .get("id")
            .asText();
    HttpResponse<String> read =
        send(
            HttpRequest.newBuilder(URI.create(system.gatewayUrl() + "/v1/payments/" + id))
                .header("Authorization", "Bearer " + secretKey)
                .header("X-Request-Id", "e2e-read-1"));
    assertEquals(200, read.statusCode(), read.body());
    assertEquals("e2e-read-1", read.headers().firstValue("X-Request-Id").orElseThrow());
    Span owner =
        receiver.await(
            "payments-service span of e2e-read-1",
            spans ->
                spans.stream()
                    .filter(
                        s ->
                            s.service().equals("payments-service")
                                && "e2e-read-1".equals(s.requestId()))
                    .findFirst());
    Span gateway =
        receiver.await(
            "api-gateway span of e2e-read-1",
            spans ->
                spans.stream()
                    .filter(
                        s ->
                            s.service().equals("api-gateway") && "e2e-read-1".equals(s.requestId()))
                    .findFirst());
    assertEquals(gateway.traceId(), owner.traceId());
  }

  @Test
  void everyResponseCarriesARequestIdEchoedWhenValidElseGenerated() throws Exception {
    // Errors too: no API key (401 from a filter), an unknown route (404), a bad body (400).
    HttpResponse<String> unauthenticated =
        send(
            HttpRequest.newBuilder(URI.create(system.gatewayUrl() + "/v1/payments"))
                .header("X-Request-Id", "Shop-42_retry.3"));
    assertEquals(401, unauthenticated.statusCode());
    assertEquals("Shop-42_retry.3", header(unauthenticated));
    assertTrue(unauthenticated.body().contains("\"error\""), unauthenticated.body());

    HttpResponse<String> notFound =
        send(HttpRequest.newBuilder(URI.create(system.gatewayUrl() + "/no/such/route")));
    assertTrue(header(notFound).matches("req_[0-9a-f]{24}"), header(notFound));

    Merchant.Reply invalidBody = merchant.post("/v1/payments", "{\"amount\":", "X-Request-Id", "x");
    assertEquals(400, invalidBody.status());
    assertEquals("x", requestId(invalidBody));

    for (String refused : List.of("has space", "semi;colon", "é", "a".repeat(129))) {
      HttpResponse<String> replaced =
          send(
              HttpRequest.newBuilder(URI.create(system.gatewayUrl() + "/v1/payments"))
                  .header("X-Request-Id", refused));
      assertTrue(header(replaced).matches("req_[0-9a-f]{24}"), refused + " → " + header(replaced));
    }
    String longest = "a".repeat(128);
    assertEquals(
        longest,
        header(
            send(
                HttpRequest.newBuilder(URI.create(system.gatewayUrl() + "/v1/payments"))
                    .header("X-Request-Id", longest))));

    String first =
        header(send(HttpRequest.newBuilder(URI.create(system.gatewayUrl() + "/health"))));
    String second =
        header(send(HttpRequest.newBuilder(URI.create(system.gatewayUrl() + "/health"))));
    assertNotEquals(first, second, "a fresh id per request");
  }

  private static String requestId(Merchant.Reply reply) {
    return reply.raw().headers().firstValue("X-Request-Id").orElse(null);
  }

  private static String header(HttpResponse<String> response) {
    String id = response.headers().firstValue("X-Request-Id").orElse(null);
    assertNotNull(id, "X-Request-Id on " + response.statusCode() + " " + response.uri());
    return id;
  }

  private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** One exported span, as much of it as the test reads. */
  record Span(String service, String traceId, String name, Map<String, String> attributes) {
    String requestId() {
      return attributes.get("request.id");
    }

    @Override
    public String toString() {
      return service + ":" + name + "@" + traceId + attributes;
    }
  }

  /** An OTLP/HTTP trace receiver (protobuf), collecting every span it is sent. */
  static final class OtlpReceiver implements AutoCloseable {

    private final HttpServer server;
    private final List<Span> spans = new CopyOnWriteArrayList<>();

    private OtlpReceiver(HttpServer server) {
      this.server = server;
    }

    static OtlpReceiver start() throws Exception {
      HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      OtlpReceiver receiver = new OtlpReceiver(server);
      server.createContext(
          "/v1/traces",
          exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            try {
              receiver.spans.addAll(Protobuf.spans(body));
              exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
              exchange.sendResponseHeaders(200, -1);
            } catch (RuntimeException e) {
              exchange.sendResponseHeaders(400, -1);
            } finally {
              exchange.close();
            }
          });
      server.start();
      return receiver;
    }

    String baseUrl() {
      return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    List<Span> trace(String traceId) {
      return spans.stream().filter(s -> s.traceId().equals(traceId)).toList();
    }

    <T> T await(String what, java.util.function.Function<List<Span>, java.util.Optional<T>> find)
        throws InterruptedException {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < deadline) {
        java.util.Optional<T> found = find.apply(List.copyOf(spans));
        if (found.isPresent()) {
          return found.get();
        }
        Thread.sleep(100);
      }
      throw new AssertionError("no " + what + " among " + spans.size() + " spans: " + spans);
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  /**
   * Just enough protobuf to read an OTLP {@code ExportTraceServiceRequest}: resource_spans(1) →
   * resource(1) → attributes(1), scope_spans(2) → spans(2) → trace_id(1), name(5), attributes(9);
   * KeyValue key(1), value(2) → string_value(1).
   */
  static final class Protobuf {

    static List<Span> spans(byte[] request) {
      List<Span> spans = new ArrayList<>();
      for (byte[] resourceSpans : fields(request, 1)) {
        Map<String, String> resource = new HashMap<>();
        for (byte[] res : fields(resourceSpans, 1)) {
          resource.putAll(keyValues(res, 1));
        }
        for (byte[] scopeSpans : fields(resourceSpans, 2)) {
          for (byte[] span : fields(scopeSpans, 2)) {
            spans.add(
                new Span(
                    resource.get("service.name"),
                    HexFormat.of().formatHex(fields(span, 1).get(0)),
                    new String(fields(span, 5).get(0), StandardCharsets.UTF_8),
                    keyValues(span, 9)));
          }
        }
      }
      return spans;
    }

    private static Map<String, String> keyValues(byte[] message, int field) {
      Map<String, String> values = new HashMap<>();
      for (byte[] keyValue : fields(message, field)) {
        String key = new String(fields(keyValue, 1).get(0), StandardCharsets.UTF_8);
        List<byte[]> value = fields(keyValue, 2);
        List<byte[]> string = value.isEmpty() ? List.of() : fields(value.get(0), 1);
        values.put(
            key, string.isEmpty() ? null : new String(string.get(0), StandardCharsets.UTF_8));
      }
      return values;
    }

    /** The length-delimited values of {@code wanted} in {@code message}; other fields skipped. */
    private static List<byte[]> fields(byte[] message, int wanted) {
      List<byte[]> found = new ArrayList<>();
      int[] at = {0};
      while (at[0] < message.length) {
        long tag = varint(message, at);
        int field = (int) (tag >>> 3);
        switch ((int) (tag & 7)) {
          case 0 -> varint(message, at);
          case 1 -> at[0] += 8;
          case 5 -> at[0] += 4;
          case 2 -> {
            int length = (int) varint(message, at);
            if (field == wanted) {
              ByteArrayOutputStream bytes = new ByteArrayOutputStream();
              bytes.write(message, at[0], length);
              found.add(bytes.toByteArray());
            }
            at[0] += length;
          }
          default -> throw new IllegalArgumentException("wire type " + (tag & 7));
        }
      }
      return found;
    }

    private static long varint(byte[] message, int[] at) {
      long value = 0;
      for (int shift = 0; ; shift += 7) {
        byte b = message[at[0]++];
        value |= (long) (b & 0x7f) << shift;
        if (b >= 0) {
          return value;
        }
      }
    }
  }
}
