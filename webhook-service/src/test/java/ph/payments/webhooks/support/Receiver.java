package ph.payments.webhooks.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A merchant's webhook receiver on a real loopback socket: it records every request (headers, raw
 * body bytes, arrival time) and answers as its {@link Responder} says: a status, after a delay, or
 * never within the test's patience.
 */
public final class Receiver implements AutoCloseable {

  /** One request as it arrived. */
  public record Received(Instant at, long nanos, Map<String, String> headers, byte[] body) {

    /** A header by name, any case. */
    public String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    public String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }

    public long deliveryId() {
      return Long.parseLong(header("X-Service-Delivery"));
    }
  }

  /** What to answer; {@code delay} before the status line is written. */
  public record Response(int status, String body, Duration delay, Map<String, String> headers) {

    public static Response status(int status) {
      return new Response(status, "{\"received\":true}", Duration.ZERO, Map.of());
    }

    public static Response hang(Duration delay) {
      return new Response(200, "late", delay, Map.of());
    }
  }

  /** Decides the answer to the {@code index}th request (0-based). */
  @FunctionalInterface
  public interface Responder {
    Response respond(int index, Received request);
  }

  private final HttpServer server;
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final AtomicInteger count = new AtomicInteger();
  private volatile Responder responder;

  private Receiver(Responder responder) throws IOException {
    this.responder = responder;
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
    server.setExecutor(
        Executors.newCachedThreadPool(
            runnable -> {
              Thread thread = new Thread(runnable, "receiver");
              thread.setDaemon(true);
              return thread;
            }));
    server.createContext("/", this::handle);
    server.start();
  }

  public static Receiver start(Responder responder) {
    try {
      return new Receiver(responder);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Always answers {@code status} at once. */
  public static Receiver answering(int status) {
    return start((i, r) -> Response.status(status));
  }

  public void respondWith(Responder next) {
    this.responder = next;
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/webhooks";
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public List<Received> received() {
    return new ArrayList<>(received);
  }

  public int count() {
    return received.size();
  }

  private void handle(HttpExchange exchange) throws IOException {
    long nanos = System.nanoTime();
    Instant at = Instant.now();
    byte[] body = exchange.getRequestBody().readAllBytes();
    Map<String, String> headers = new TreeMap<>();
    exchange
        .getRequestHeaders()
        .forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), values.get(0)));
    Received request = new Received(at, nanos, headers, body);
    received.add(request);
    Response response = responder.respond(count.getAndIncrement(), request);
    try {
      if (!response.delay().isZero()) {
        Thread.sleep(response.delay().toMillis());
      }
      byte[] bytes = response.body().getBytes(StandardCharsets.UTF_8);
      response.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
      exchange.sendResponseHeaders(response.status(), bytes.length == 0 ? -1 : bytes.length);
      if (bytes.length > 0) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      // The sender gave up (timeout) and closed the connection: expected for a hanging receiver.
    } finally {
      exchange.close();
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
