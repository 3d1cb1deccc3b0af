package ph.payments.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import ph.payments.webhooks.verify.WebhookSignature;
import ph.payments.webhooks.verify.WebhookSignatureException;

/**
 * A merchant's webhook receiver on 127.0.0.1 that acknowledges everything and keeps each delivery;
 * {@link #await} returns the first delivery whose event matches, after checking its signature with
 * the merchant's helper (webhook-verifier), as a merchant's server would.
 */
final class WebhookReceiver implements AutoCloseable {

  record Delivery(String body, String signature, String eventType, JsonNode event) {}

  private final HttpServer server;
  private final ExecutorService threads;
  private final List<Delivery> deliveries = new CopyOnWriteArrayList<>();

  private WebhookReceiver(HttpServer server, ExecutorService threads) {
    this.server = server;
    this.threads = threads;
  }

  static WebhookReceiver start() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    WebhookReceiver receiver = new WebhookReceiver(server, threads);
    server.createContext("/hooks", receiver::handle);
    server.setExecutor(threads);
    server.start();
    return receiver;
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/hooks";
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      JsonNode event = null;
      try {
        event = Merchant.JSON.readTree(body);
      } catch (IOException e) {
        // kept with a null event; await() reports it
      }
      deliveries.add(
          new Delivery(
              body,
              exchange.getRequestHeaders().getFirst("X-Service-Signature"),
              exchange.getRequestHeaders().getFirst("X-Service-Event"),
              event));
      exchange.sendResponseHeaders(200, -1);
    }
  }

  /**
   * The first delivery whose event matches, with a valid signature under {@code secret}; fails
   * after {@code timeout} listing what did arrive.
   */
  Delivery await(Predicate<JsonNode> matching, String secret, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      for (Delivery delivery : deliveries) {
        if (delivery.event() != null && matching.test(delivery.event())) {
          try {
            WebhookSignature.verify(delivery.body(), delivery.signature(), secret, 300);
          } catch (WebhookSignatureException e) {
            throw new AssertionError("a webhook with a bad signature: " + delivery, e);
          }
          return delivery;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "no matching webhook within "
                + timeout.toSeconds()
                + " s; received: "
                + deliveries.stream().map(Delivery::body).toList());
      }
      Thread.sleep(100);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
