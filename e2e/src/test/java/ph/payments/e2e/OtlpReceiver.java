package ph.payments.e2e;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * An OTLP/HTTP trace receiver (protobuf) on 127.0.0.1, the endpoint every service of a system
 * exports its spans to. It answers every export, counts what it was sent, and keeps the spans only
 * between {@link #keep} and {@link #discard}: the shared system ({@link SharedSystem}) exports for
 * the whole run, and only the class that reads the spans needs them.
 */
final class OtlpReceiver implements AutoCloseable {

  /** One exported span, as much of it as the tests read. */
  record Span(String service, String traceId, String name, Map<String, String> attributes) {
    String requestId() {
      return attributes.get("request.id");
    }

    @Override
    public String toString() {
      return service + ":" + name + "@" + traceId + attributes;
    }
  }

  private final HttpServer server;
  private final List<Span> spans = new CopyOnWriteArrayList<>();
  private final AtomicLong exports = new AtomicLong();
  private final AtomicLong received = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private volatile boolean keeping;

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
            List<Span> sent = Protobuf.spans(body);
            receiver.exports.incrementAndGet();
            receiver.received.addAndGet(sent.size());
            receiver.bytes.addAndGet(body.length);
            if (receiver.keeping) {
              receiver.spans.addAll(sent);
            }
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

  /** What the services' {@code OTEL_EXPORTER_OTLP_ENDPOINT} is. */
  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** From now on, keeps every span it is sent (none kept before). */
  void keep() {
    spans.clear();
    keeping = true;
  }

  /** Forgets the spans kept and keeps no more. */
  void discard() {
    keeping = false;
    spans.clear();
  }

  /** The first answer {@code find} gives from the spans kept, waiting up to 30 s for it. */
  <T> T await(String what, Function<List<Span>, Optional<T>> find) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      Optional<T> found = find.apply(List.copyOf(spans));
      if (found.isPresent()) {
        return found.get();
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no " + what + " among " + spans.size() + " spans: " + spans);
  }

  /** How much it was sent, kept or not: the cost of exporting, for the run's output. */
  String totals() {
    return received.get()
        + " spans in "
        + exports.get()
        + " exports, "
        + bytes.get() / 1024
        + " KiB of protobuf";
  }

  @Override
  public void close() {
    server.stop(0);
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
