package ph.payments.bench;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code connections} clients, each sending its next request when its last one returned; a tenth of
 * the requests (at least 20) first as a warm-up that is not counted.
 */
final class ClosedLoop {

  /** One request; {@code connection} tells which client sends it. True when it succeeded. */
  interface Call {
    boolean ok(int connection) throws Exception;
  }

  record Result(int errors, double rate, Latencies latencies) {}

  static Result run(int connections, int requests, Call call) throws Exception {
    int warmUp = Math.max(20, requests / 10);
    OpenLoop.run(connections, Double.MAX_VALUE, warmUp, (connection, i) -> call.ok(connection));
    Latencies latencies = new Latencies();
    AtomicInteger errors = new AtomicInteger();
    double rate =
        OpenLoop.run(
            connections,
            Double.MAX_VALUE,
            requests,
            (connection, i) -> {
              long t0 = System.nanoTime();
              boolean ok = call.ok(connection);
              latencies.add(System.nanoTime() - t0);
              if (!ok) {
                errors.incrementAndGet();
              }
            });
    return new Result(errors.get(), rate, latencies);
  }

  private ClosedLoop() {}
}
