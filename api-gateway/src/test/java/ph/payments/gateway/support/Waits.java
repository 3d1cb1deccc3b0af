package ph.payments.gateway.support;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting in tests for something another thread does. */
public final class Waits {

  private Waits() {}

  /** Returns once {@code condition} holds; fails the test after 10 s, naming {@code what}. */
  public static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 10 s: " + what);
      }
      Thread.sleep(10);
    }
  }
}
