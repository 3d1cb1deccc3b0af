package ph.payments.platform.tx;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Actions to run on the current thread right after its transaction commits, and never if it rolls
 * back: the {@link Transactions} of this library run their work {@link #around} it. The outbox
 * writer uses it to wake the relay of its process as soon as a message can be read ({@code
 * OutboxActivity}).
 *
 * <p>Only a hint may be given this way, never an effect that must happen: an action registered
 * outside any {@link Transactions} call is dropped, and one registered inside a transaction opened
 * some other way (which a call of ours then joins) runs when our outermost call returns, which may
 * be before that transaction commits.
 */
public final class AfterCommit {

  private static final Logger log = LoggerFactory.getLogger(AfterCommit.class);

  private static final ThreadLocal<AfterCommit> CURRENT = new ThreadLocal<>();

  /** Made at the first registration: most transactions register nothing. */
  private List<Runnable> actions;

  private AfterCommit() {}

  /**
   * Registers {@code action} to run once the outermost {@link Transactions} call of this thread
   * returns normally. The same action (by identity) registered twice runs once.
   *
   * @return false, and nothing registered, outside any such call
   */
  public static boolean register(Runnable action) {
    AfterCommit scope = CURRENT.get();
    if (scope == null) {
      return false;
    }
    if (scope.actions == null) {
      scope.actions = new ArrayList<>(2);
    }
    for (Runnable registered : scope.actions) {
      if (registered == action) {
        return true;
      }
    }
    scope.actions.add(action);
    return true;
  }

  /**
   * Runs {@code work} (a transaction, which has committed when it returns) and then, if this is the
   * outermost call of the thread, the actions registered meanwhile; if it throws, they are dropped.
   * An action that throws is logged and does not stop the others.
   */
  public static <T> T around(Supplier<T> work) {
    AfterCommit scope = CURRENT.get();
    boolean outermost = scope == null;
    if (outermost) {
      scope = new AfterCommit();
      CURRENT.set(scope);
    }
    T result;
    try {
      result = work.get();
    } finally {
      if (outermost) {
        CURRENT.remove();
      }
    }
    // Reached only when the work returned: the outermost transaction committed.
    if (outermost && scope.actions != null) {
      for (Runnable action : scope.actions) {
        try {
          action.run();
        } catch (RuntimeException e) {
          log.warn("an after-commit action failed: {}", e.toString());
        }
      }
    }
    return result;
  }
}
