package ph.payments.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import ph.payments.platform.json.Json;

/**
 * A load that keeps every process busy (bench/run-footprint): each client creates a payment and
 * succeeds it with the test helper, again and again, so the gateway, payments-service, Kafka, the
 * ledger (postings) and webhook-service (deliveries to a local receiver) all work.
 *
 * <p>Arguments: gateway URL, admin token, seconds, clients. Prints one line of what it did.
 */
public final class MixedLoad {

  public static void main(String[] args) throws Exception {
    Api api = new Api(args[0], args[1]);
    int seconds = Integer.parseInt(args[2]);
    int clients = Integer.parseInt(args[3]);
    String merchant = api.createMerchant("Mixed load");
    Api.Keys keys = api.createKeys(merchant, clients, 10_000);
    try (Receiver receiver = new Receiver()) {
      api.post(
              "/v1/webhooks/endpoints",
              keys.next(),
              Json.toText(Map.of("url", receiver.url(), "events", List.of("*"))))
          .expect(201);
      AtomicInteger done = new AtomicInteger();
      AtomicInteger errors = new AtomicInteger();
      long deadline = System.nanoTime() + seconds * 1_000_000_000L;
      Thread[] threads = new Thread[clients];
      for (int c = 0; c < clients; c++) {
        String key = keys.get(c);
        threads[c] =
            new Thread(
                () -> {
                  while (System.nanoTime() < deadline) {
                    try {
                      Api.Response created = api.post("/v1/payments", key, Api.PAYMENT);
                      if (created.status() != 201) {
                        errors.incrementAndGet();
                        continue;
                      }
                      String id = created.body().get("id").asText();
                      if (api.post("/v1/test_helpers/payments/" + id + "/succeed", key, "{}")
                              .status()
                          == 200) {
                        done.incrementAndGet();
                      } else {
                        errors.incrementAndGet();
                      }
                    } catch (Exception e) {
                      errors.incrementAndGet();
                    }
                  }
                });
        threads[c].start();
      }
      for (Thread thread : threads) {
        thread.join();
      }
      Thread.sleep(2000);
      System.out.printf(
          Locale.ROOT,
          "%d payments created and succeeded in %d s by %d clients (%.0f/s), %d errors, %d webhook"
              + " deliveries received%n",
          done.get(),
          seconds,
          clients,
          done.get() / (double) seconds,
          errors.get(),
          receiver.deliveries());
    }
  }

  private MixedLoad() {}
}
