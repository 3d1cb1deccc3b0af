package ph.payments.platform.tx;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
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
 *
 * <p>An action that must run only if the transaction committed ({@link #registerCertain}: the
 * outbox's express lane sends a message to Kafka) is taken only by a scope whose {@link
 * Transactions} call owns the commit and says, once it returned, whether it committed ({@link
 * #around(Supplier, BooleanSupplier)}); its other branch runs in every other case.
 */
public final class AfterCommit {

  private static final Logger log = LoggerFactory.getLogger(AfterCommit.class);

  private static final ThreadLocal<AfterCommit> CURRENT = new ThreadLocal<>();

  /** Made at the first registration: most transactions register nothing. */
  private List<Runnable> actions;

  /** Actions that need the commit, and what runs instead when it did not happen. */
  private List<Runnable[]> certain;

  /** Says after the work returned whether it committed; null: this scope cannot tell. */
  private final BooleanSupplier committed;

  private AfterCommit(BooleanSupplier committed) {
    this.committed = committed;
  }

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

  /** True inside a {@link Transactions} call that will say whether it committed. */
  public static boolean certifies() {
    AfterCommit scope = CURRENT.get();
    return scope != null && scope.committed != null;
  }

  /**
   * Registers {@code onCommit} to run once the outermost {@link Transactions} call of this thread
   * returns and says it committed, and {@code otherwise} to run when it threw or says it did not.
   *
   * @return false, and nothing registered, when there is no such call or it cannot tell whether it
   *     committed (a plain {@link #around(Supplier)} scope)
   */
  public static boolean registerCertain(Runnable onCommit, Runnable otherwise) {
    AfterCommit scope = CURRENT.get();
    if (scope == null || scope.committed == null) {
      return false;
    }
    if (scope.certain == null) {
      scope.certain = new ArrayList<>(2);
    }
    scope.certain.add(new Runnable[] {onCommit, otherwise});
    return true;
  }

  /**
   * Runs {@code work} (a transaction, which has committed when it returns) and then, if this is the
   * outermost call of the thread, the actions registered meanwhile; if it throws, they are dropped.
   * An action that throws is logged and does not stop the others. Takes no {@link #registerCertain}
   * actions.
   */
  public static <T> T around(Supplier<T> work) {
    return around(work, null);
  }

  /**
   * {@link #around(Supplier)} for a call that owns its transaction's commit: once {@code work}
   * returned, {@code committed} says whether the transaction committed (false, for instance, when
   * it only joined one that someone else commits, or was rolled back without an exception), and the
   * {@link #registerCertain} actions run accordingly.
   */
  public static <T> T around(Supplier<T> work, BooleanSupplier committed) {
    AfterCommit scope = CURRENT.get();
    boolean outermost = scope == null;
    if (outermost) {
      scope = new AfterCommit(committed);
      CURRENT.set(scope);
    }
    T result;
    try {
      result = work.get();
    } catch (RuntimeException | Error e) {
      if (outermost) {
        CURRENT.remove();
        scope.settle(false);
      }
      throw e;
    }
    if (!outermost) {
      return result;
    }
    CURRENT.remove();
    scope.settle(scope.committed != null && scope.committed.getAsBoolean());
    // Reached only when the work returned: the outermost transaction committed.
    if (scope.actions != null) {
      for (Runnable action : scope.actions) {
        run(action);
      }
    }
    return result;
  }

  private void settle(boolean didCommit) {
    if (certain != null) {
      for (Runnable[] branches : certain) {
        run(didCommit ? branches[0] : branches[1]);
      }
    }
  }

  private static void run(Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      log.warn("an after-commit action failed: {}", e.toString());
    }
  }
}
