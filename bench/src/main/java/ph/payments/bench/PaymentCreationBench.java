package ph.payments.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Payment creation through the full path (gateway → command → payments-service → reply) at several
 * concurrency levels, against a running system. Each connection gets its own API key (the per-key
 * limit is a sliding window; the operator raises it to the ceiling for the run), so the rate limit
 * is part of every request's cost but never the bottleneck. Prints a Markdown table.
 *
 * <p>Arguments: gateway URL, admin token, requests per level, then the levels (e.g. 1 16 64).
 *
 * <p>With {@code BENCH_KEYS_FILE} it only prepares a run measured by another client: it creates the
 * keys, warms the system up with {@code BENCH_WARMUP} creations, writes the keys' secrets to that
 * file (one a line) and measures nothing ({@code bench/run-payment-creation} with {@code
 * BENCH_CLIENT=wrk}).
 */
public final class PaymentCreationBench {

  private static final Pattern SECRET = Pattern.compile("\"secret\":\"(sk_test_[A-Za-z0-9]+)\"");
  private static final Pattern KEY_ID = Pattern.compile("\"id\":\"(key_[0-9a-z]+)\"");

  /**
   * {@code BENCH_IDEMPOTENCY_KEYS=1}: every creation carries its own {@code Idempotency-Key}, as a
   * merchant's would, so the gateway claims the key and writes the command in one statement.
   */
  private static final boolean KEYED = "1".equals(System.getenv("BENCH_IDEMPOTENCY_KEYS"));

  public static void main(String[] args) throws Exception {
    String gateway = args[0];
    String admin = args[1];
    int requests = Integer.parseInt(args[2]);
    int[] levels = Arrays.stream(args, 3, args.length).mapToInt(Integer::parseInt).toArray();
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    int maxLevel = Arrays.stream(levels).max().orElse(1);
    List<String> keys = keys(http, gateway, admin, maxLevel);

    StringBuilder table = new StringBuilder();
    table.append(
        "| connections | requests | errors | throughput (req/s) | p50 ms | p90 ms | p99 ms |\n");
    table.append("|---|---|---|---|---|---|---|\n");
    // Warm the JIT and the consumers first; that run is not reported. BENCH_WARMUP sets its size
    // (0: none, when the caller warmed the system itself).
    String warmup = System.getenv("BENCH_WARMUP");
    int warmupRequests =
        warmup == null || warmup.isBlank()
            ? Math.min(requests, 2000)
            : Integer.parseInt(warmup.strip());
    if (warmupRequests > 0) {
      run(http, gateway, keys, Math.min(maxLevel, 16), warmupRequests);
    }
    String keysFile = System.getenv("BENCH_KEYS_FILE");
    if (keysFile != null && !keysFile.isBlank()) {
      Files.write(Path.of(keysFile), keys);
      return;
    }
    for (int level : levels) {
      Result result = run(http, gateway, keys, level, requests);
      table.append(
          String.format(
              "| %d | %d | %d | %.0f | %.1f | %.1f | %.1f |%n",
              level,
              requests,
              result.errors,
              result.throughput,
              result.percentile(50),
              result.percentile(90),
              result.percentile(99)));
    }
    System.out.print(table);
    if (System.getenv("BENCH_OUTPUT") != null) {
      Files.writeString(Path.of(System.getenv("BENCH_OUTPUT")), table.toString());
    }
  }

  private record Result(long[] latenciesNanos, int errors, double throughput) {
    double percentile(int p) {
      long[] sorted = latenciesNanos.clone();
      Arrays.sort(sorted);
      int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
      return sorted[Math.max(0, index)] / 1_000_000.0;
    }
  }

  private static Result run(
      HttpClient http, String gateway, List<String> keys, int connections, int requests)
      throws InterruptedException {
    long[] latencies = new long[requests];
    AtomicInteger next = new AtomicInteger();
    AtomicInteger errors = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(connections);
    long started = System.nanoTime();
    for (int c = 0; c < connections; c++) {
      String key = keys.get(c);
      new Thread(
              () -> {
                try {
                  int i;
                  while ((i = next.getAndIncrement()) < requests) {
                    HttpRequest.Builder builder =
                        HttpRequest.newBuilder(URI.create(gateway + "/v1/payments"))
                            .header("Authorization", "Bearer " + key)
                            .header("Content-Type", "application/json")
                            .POST(
                                HttpRequest.BodyPublishers.ofString(
                                    "{\"amount\":100.00,\"method\":\"ewallet1\"}"))
                            .timeout(Duration.ofSeconds(30));
                    if (KEYED) {
                      // Unique per request across levels and runs: every request is a first one.
                      builder.header("Idempotency-Key", "bench-" + UUID.randomUUID());
                    }
                    HttpRequest request = builder.build();
                    long t0 = System.nanoTime();
                    try {
                      HttpResponse<String> response =
                          http.send(request, HttpResponse.BodyHandlers.ofString());
                      if (response.statusCode() != 201) {
                        errors.incrementAndGet();
                      }
                    } catch (IOException e) {
                      errors.incrementAndGet();
                    }
                    latencies[i] = System.nanoTime() - t0;
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } finally {
                  done.countDown();
                }
              })
          .start();
    }
    done.await();
    double seconds = (System.nanoTime() - started) / 1e9;
    return new Result(latencies, errors.get(), requests / seconds);
  }

  /** One merchant, one key per connection, each at the per-key ceiling. */
  private static List<String> keys(HttpClient http, String gateway, String admin, int count)
      throws Exception {
    String merchant =
        send(
            http,
            gateway + "/admin/v1/merchants",
            admin,
            "{\"name\":\"Bench\",\"email\":\"bench@example.com\"}");
    Matcher id = Pattern.compile("\"id\":\"(mer_[0-9a-z]+)\"").matcher(merchant);
    if (!id.find()) {
      throw new IllegalStateException("no merchant: " + merchant);
    }
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String key =
          send(
              http,
              gateway + "/admin/v1/merchants/" + id.group(1) + "/api_keys",
              admin,
              "{\"environment\":\"test\",\"scopes\":[\"payments:write\"],\"rate_limit_per_minute\":10000}");
      Matcher secret = SECRET.matcher(key);
      Matcher keyId = KEY_ID.matcher(key);
      if (!secret.find() || !keyId.find()) {
        throw new IllegalStateException("no key: " + key);
      }
      keys.add(secret.group(1));
    }
    return keys;
  }

  private static String send(HttpClient http, String url, String bearer, String body)
      throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url))
            .header("Authorization", "Bearer " + bearer)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
  }

  private PaymentCreationBench() {}
}
