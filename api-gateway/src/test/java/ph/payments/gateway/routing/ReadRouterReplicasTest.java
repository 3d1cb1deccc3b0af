package ph.payments.gateway.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.sun.net.httpserver.HttpServer;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.Environment;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.client.DefaultHttpClientConfiguration;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import ph.payments.platform.errors.ApiException;
import ph.payments.testkit.FailingReplica;

/**
 * Issue 20: an owner with several replicas ({@code gateway.services.payments-url} a comma list)
 * stays readable while one replica is dead. Real sockets: a port nobody listens on (the connection
 * is refused), a replica that takes the request and drops the connection without an answer (a
 * replica killed mid-request), and replicas that answer. A read goes to the next replica in both
 * cases; a POST only when the connection was refused, because a dropped one may have been applied.
 */
class ReadRouterReplicasTest {

  private static HttpServer live;
  private static HttpServer other;
  private static FailingReplica dropping;
  private static int deadPort;
  private static final ConcurrentLinkedQueue<String> liveSaw = new ConcurrentLinkedQueue<>();
  private static final ConcurrentLinkedQueue<String> otherSaw = new ConcurrentLinkedQueue<>();

  private ApplicationContext context;
  private ReadRouter router;

  @BeforeAll
  static void startReplicas() throws IOException {
    live = owner(liveSaw, "live");
    other = owner(otherSaw, "other");
    dropping = FailingReplica.dropping();
    deadPort = FailingReplica.refusingPort();
  }

  @AfterAll
  static void stopReplicas() throws IOException {
    live.stop(0);
    other.stop(0);
    dropping.close();
  }

  @BeforeEach
  void forget() {
    liveSaw.clear();
    otherSaw.clear();
    dropping.forget();
  }

  @AfterEach
  void closeRouter() {
    if (router != null) {
      router.close();
    }
    if (context != null) {
      context.close();
    }
  }

  @Test
  void aReadGoesToTheNextReplicaWhenTheFirstRefusesTheConnection() {
    router = routerFor(url(deadPort) + "," + url(live));
    for (int i = 0; i < 4; i++) {
      HttpResponse<String> answer = router.getPublic(Owner.PAYMENTS, "/internal/things/" + i);
      assertEquals(200, answer.getStatus().getCode());
      assertEquals("{\"from\":\"live\"}", answer.body());
    }
    assertEquals(
        List.of(
            "GET /internal/things/0",
            "GET /internal/things/1",
            "GET /internal/things/2",
            "GET /internal/things/3"),
        List.copyOf(liveSaw));
  }

  @Test
  void aReadTheFirstReplicaDroppedWithoutAnAnswerIsMadeAtTheNext() {
    router = routerFor(dropping.url() + "," + url(live));
    HttpResponse<String> answer = router.getPublic(Owner.PAYMENTS, "/internal/things/1");
    assertEquals(200, answer.getStatus().getCode());
    assertEquals(List.of("GET /internal/things/1"), received(dropping));
    assertEquals(List.of("GET /internal/things/1"), List.copyOf(liveSaw));
  }

  @Test
  void aPostGoesToTheNextReplicaWhenTheFirstRefusesTheConnection() {
    router = routerFor(url(deadPort) + "," + url(live));
    HttpResponse<String> answer =
        router.postRaw(
            Owner.PAYMENTS,
            "/internal/actions",
            "{\"n\":1}".getBytes(StandardCharsets.UTF_8),
            Map.of());
    assertEquals(200, answer.getStatus().getCode());
    assertEquals(List.of("POST /internal/actions {\"n\":1}"), List.copyOf(liveSaw));
  }

  @Test
  void aPostTheFirstReplicaMayHaveTakenIsNotSentAgain() {
    router = routerFor(dropping.url() + "," + url(live));
    ApiException unavailable =
        assertThrows(
            ApiException.class,
            () ->
                router.postRaw(
                    Owner.PAYMENTS,
                    "/internal/actions",
                    "{\"n\":2}".getBytes(StandardCharsets.UTF_8),
                    Map.of()));
    assertEquals(503, unavailable.httpStatus());
    assertEquals(List.of("POST /internal/actions"), received(dropping));
    assertEquals(List.of(), List.copyOf(liveSaw), "the second replica never saw it");
  }

  @Test
  void anAnswerIsRelayedAsItIsEvenAnErrorAndTheNextReplicaIsNotAsked() {
    router = routerFor(url(live) + "," + url(other));
    HttpResponse<String> answer = router.getPublic(Owner.PAYMENTS, "/internal/busy");
    assertEquals(503, answer.getStatus().getCode());
    assertEquals(List.of("GET /internal/busy"), List.copyOf(liveSaw));
    assertEquals(List.of(), List.copyOf(otherSaw));
  }

  @Test
  void readsTakeTheReplicasInTurn() {
    router = routerFor(url(live) + "," + url(other));
    List<String> from = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      from.add(router.getPublic(Owner.PAYMENTS, "/internal/things/" + i).body());
    }
    assertEquals(
        List.of(
            "{\"from\":\"live\"}",
            "{\"from\":\"other\"}",
            "{\"from\":\"live\"}",
            "{\"from\":\"other\"}"),
        from);
  }

  @Test
  void noReplicaReachedIsA503WithRetryAfter() {
    router = routerFor(url(deadPort) + "," + dropping.url());
    ApiException unavailable =
        assertThrows(
            ApiException.class, () -> router.getPublic(Owner.PAYMENTS, "/internal/things/1"));
    assertEquals(503, unavailable.httpStatus());
    assertEquals(Duration.ofSeconds(1), unavailable.retryAfter());
  }

  private ReadRouter routerFor(String paymentsUrls) {
    context =
        ApplicationContext.builder()
            .deduceEnvironment(false)
            .properties(
                Map.of(
                    "gateway.services.payments-url",
                    paymentsUrls,
                    "gateway.services.ledger-url",
                    url(live),
                    "gateway.services.webhook-url",
                    url(live),
                    "internal.token",
                    "internal-token-of-the-replicas-test"))
            .build();
    Environment environment = context.getEnvironment();
    environment.start();
    DefaultHttpClientConfiguration configuration = new DefaultHttpClientConfiguration();
    configuration.setReadTimeout(Duration.ofSeconds(5));
    return new ReadRouter(environment, configuration);
  }

  private static List<String> received(FailingReplica replica) {
    return replica.received().stream().map(FailingReplica.Request::toString).toList();
  }

  private static String url(HttpServer server) {
    return url(server.getAddress().getPort());
  }

  private static String url(int port) {
    return "http://127.0.0.1:" + port;
  }

  /** A replica that answers: 503 on {@code /internal/busy}, else 200 and its name. */
  private static HttpServer owner(ConcurrentLinkedQueue<String> saw, String name)
      throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/internal/",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          saw.add(
              exchange.getRequestMethod()
                  + " "
                  + exchange.getRequestURI().getPath()
                  + (body.isEmpty() ? "" : " " + body));
          boolean busy = exchange.getRequestURI().getPath().equals("/internal/busy");
          byte[] answer =
              (busy ? "{\"error\":{\"code\":\"internal_error\"}}" : "{\"from\":\"" + name + "\"}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(busy ? 503 : 200, answer.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(answer);
          }
        });
    server.start();
    return server;
  }
}
