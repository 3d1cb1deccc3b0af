package ph.payments.platform.tx;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Actions to run once the transaction the current thread is in has committed: a {@link
 * Transactions} that starts a transaction collects them ({@link #collect}), and runs them after its
 * commit, never after a rollback.
 *
 * <p>Only the {@link Transactions} that opened a transaction collects for it. A transaction opened
 * some other way (a framework's {@code @Transactional}, a bare connection) has no collector, and
 * {@link #register} says so: the caller then has to do without (the outbox writer falls back to a
 * PostgreSQL notification, which the server delivers at the commit).
 */
public final class AfterCommit {

  private static final Logger log = LoggerFactory.getLogger(AfterCommit.class);
  private static final ThreadLocal<Collector> CURRENT = new ThreadLocal<>();

  /**
   * Runs {@code action} after the commit of the transaction this thread is in; an action registered
   * twice (the same instance) runs once.
   *
   * @return false, registering nothing, when no {@link Transactions} collects for this thread's
   *     transaction
   */
  public static boolean register(Runnable action) {
    Collector collector = CURRENT.get();
    if (collector == null) {
      return false;
    }
    collector.actions.add(action);
    return true;
  }

  /**
   * Runs {@code transaction}, which starts a transaction, commits it and returns (or throws, having
   * rolled it back), collecting what is registered meanwhile on this thread; then runs that, if it
   * returned. An action that throws is logged and the others still run: the commit stands.
   */
  public static <T> T collect(Supplier<T> transaction) {
    Collector collector = new Collector(CURRENT.get());
    CURRENT.set(collector);
    T result;
    try {
      result = transaction.get();
    } finally {
      collector.close();
    }
    for (Runnable action : collector.actions) {
      try {
        action.run();
      } catch (RuntimeException e) {
        log.warn("an after-commit action failed", e);
      }
    }
    return result;
  }

  private AfterCommit() {}

  private static final class Collector {
    private final Collector outer;
    private final Set<Runnable> actions = new LinkedHashSet<>(2);

    Collector(Collector outer) {
      this.outer = outer;
    }

    void close() {
      if (outer == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(outer);
      }
    }
  }
}
