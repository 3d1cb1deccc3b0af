package ph.payments.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fast local webhook receiver: answers 200 at once and records when each event first arrived
 * ({@link System#nanoTime()}, comparable with the load generator's clock readings in the same JVM)
 * and how many deliveries arrived in all (duplicates included). It can hold every request at a gate
 * until {@link #open()}, so a backlog builds up in the delivery queue first.
 */
final class Receiver implements AutoCloseable {

  private static final byte[] ID_FIELD = "\"id\":\"".getBytes(StandardCharsets.US_ASCII);

  private final HttpServer server;
  private final ExecutorService threads = Executors.newFixedThreadPool(32);
  private final Map<String, Long> firstArrivalNanos = new ConcurrentHashMap<>();
  private final AtomicLong deliveries = new AtomicLong();
  private volatile CountDownLatch gate = new CountDownLatch(0);

  Receiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
    server.setExecutor(threads);
    server.createContext(
        "/",
        exchange -> {
          try (InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readAllBytes();
            gate.await();
            long now = System.nanoTime();
            String id = eventId(body);
            if (id != null) {
              firstArrivalNanos.putIfAbsent(id, now);
            }
            deliveries.incrementAndGet();
            exchange.sendResponseHeaders(200, -1);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exchange.sendResponseHeaders(503, -1);
          } finally {
            exchange.close();
          }
        });
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/webhooks";
  }

  /** Holds every request from now until {@link #open()}. */
  void hold() {
    gate = new CountDownLatch(1);
  }

  void open() {
    gate.countDown();
  }

  /** When the event first arrived, or null. */
  Long arrivalNanos(String eventId) {
    return firstArrivalNanos.get(eventId);
  }

  int distinctEvents() {
    return firstArrivalNanos.size();
  }

  long deliveries() {
    return deliveries.get();
  }

  Map<String, Long> arrivals() {
    return firstArrivalNanos;
  }

  /** The event id: the first "id" field of the body, which the event envelope puts first. */
  private static String eventId(byte[] body) {
    outer:
    for (int i = 0; i + ID_FIELD.length < body.length; i++) {
      for (int j = 0; j < ID_FIELD.length; j++) {
        if (body[i + j] != ID_FIELD[j]) {
          continue outer;
        }
      }
      int start = i + ID_FIELD.length;
      int end = start;
      while (end < body.length && body[end] != '"') {
        end++;
      }
      return new String(body, start, end - start, StandardCharsets.US_ASCII);
    }
    return null;
  }

  @Override
  public void close() {
    open();
    server.stop(0);
    threads.shutdownNow();
  }
}
