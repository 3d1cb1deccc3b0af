package ph.payments.platform.replicas;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicas of one internal service as their callers know them: a comma-separated list of base
 * URLs ({@code PAYMENTS_SERVICE_URL=http://127.0.0.1:8081,http://127.0.0.1:8181}), and the order a
 * call tries them in so that one dead replica does not fail it (docs/decisions.md, "Calls to
 * replicas").
 *
 * <p><b>Round-robin, passing over the unreachable.</b> Each call starts one replica further than
 * the call before, so the replicas share the calls. A replica a call could not reach is passed over
 * for {@link #COOL_OFF}: calls start at the others and try it last; after that it takes its turn
 * again. A call never gives up while a replica is untried, so all replicas passed over still get
 * tried.
 *
 * <p><b>Only what is safe to repeat goes to the next replica.</b> The caller says which failures
 * mean "not reached" ({@link #call}): a connection that was never made (nothing was sent) is safe
 * for any request; a reset or a timeout before the answer only for a request that may be applied
 * twice (a GET, or a call idempotent on its own key). Any other failure, and every answer (a 4xx or
 * 5xx included), ends the call at once.
 */
public final class Replicas {

  private static final Logger log = LoggerFactory.getLogger(Replicas.class);

  /** How long a replica that could not be reached is tried last. */
  public static final Duration COOL_OFF = Duration.ofSeconds(5);

  /** One try of a call against one replica's base URL (no trailing slash). */
  @FunctionalInterface
  public interface Attempt<T, E extends Exception> {
    T at(String baseUrl) throws E;
  }

  private final String service;
  private final List<String> urls;
  private final long coolOffNanos;
  private final LongSupplier nanoTime;
  private final AtomicInteger turn = new AtomicInteger();
  private final Map<String, Long> passedOverUntil = new ConcurrentHashMap<>();

  Replicas(String service, List<String> urls, Duration coolOff, LongSupplier nanoTime) {
    this.service = Objects.requireNonNull(service);
    this.urls = List.copyOf(urls);
    this.coolOffNanos = coolOff.toNanos();
    this.nanoTime = Objects.requireNonNull(nanoTime);
  }

  /**
   * @param service the service's name, for messages
   * @param property where {@code commaSeparated} came from, for the error when it is not a list of
   *     base URLs
   * @param commaSeparated one or more absolute {@code http(s)} URLs, comma-separated; blanks around
   *     them and trailing slashes are dropped
   * @throws IllegalArgumentException when an element is empty, not an http(s) URL with a host, or
   *     named twice
   */
  public static Replicas parse(String service, String property, String commaSeparated) {
    return new Replicas(service, baseUrls(property, commaSeparated), COOL_OFF, System::nanoTime);
  }

  static List<String> baseUrls(String property, String commaSeparated) {
    if (commaSeparated == null || commaSeparated.isBlank()) {
      throw new IllegalArgumentException(property + " is not set");
    }
    Set<String> urls = new LinkedHashSet<>();
    for (String element : commaSeparated.split(",", -1)) {
      String url = element.strip().replaceAll("/+$", "");
      URI uri;
      try {
        uri = URI.create(url);
      } catch (IllegalArgumentException e) {
        uri = null;
      }
      if (uri == null
          || uri.getHost() == null
          || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
        throw new IllegalArgumentException(
            property
                + " must be base URLs separated by commas (http://host:port,...); '"
                + element.strip()
                + "' is not one");
      }
      if (!urls.add(url)) {
        throw new IllegalArgumentException(property + " names " + url + " twice");
      }
    }
    return List.copyOf(urls);
  }

  /** The base URLs, as configured. */
  public List<String> urls() {
    return urls;
  }

  /** The order the next call tries the replicas in (each call takes one). */
  List<String> order() {
    int start = Math.floorMod(turn.getAndIncrement(), urls.size());
    long now = nanoTime.getAsLong();
    List<String> reachable = new ArrayList<>(urls.size());
    List<String> passedOver = new ArrayList<>();
    for (int i = 0; i < urls.size(); i++) {
      String url = urls.get((start + i) % urls.size());
      Long until = passedOverUntil.get(url);
      (until != null && now - until < 0 ? passedOver : reachable).add(url);
    }
    reachable.addAll(passedOver);
    return reachable;
  }

  /**
   * Makes {@code attempt} at the replicas in {@link #order()} until one answers.
   *
   * @param notReached true for a failure that means the replica was not reached and the attempt may
   *     be made at the next one (see the class comment for which failures those may be)
   * @return the first answer
   * @throws E the failure of the last replica tried: one for which {@code notReached} is false, or
   *     the last replica's when none was reached
   */
  public <T, E extends Exception> T call(Attempt<T, E> attempt, Predicate<Exception> notReached)
      throws E {
    List<String> order = order();
    for (int i = 0; ; i++) {
      String url = order.get(i);
      try {
        T answer = attempt.at(url);
        passedOverUntil.remove(url);
        return answer;
      } catch (Exception e) {
        if (!notReached.test(e)) {
          throw Replicas.<E>rethrow(e);
        }
        passedOverUntil.put(url, nanoTime.getAsLong() + coolOffNanos);
        if (i + 1 == order.size()) {
          throw Replicas.<E>rethrow(e);
        }
        log.warn(
            "{} at {} not reached ({}); trying {}", service, url, rootCause(e), order.get(i + 1));
      }
    }
  }

  /** Whether {@code type} is {@code failure} or among its causes. */
  public static boolean causedBy(Throwable failure, Class<? extends Throwable> type) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  private static String rootCause(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.toString();
  }

  /**
   * {@code failure} is an {@code E} or unchecked: {@link Attempt#at} throws nothing else, so the
   * cast holds.
   */
  @SuppressWarnings("unchecked")
  private static <E extends Exception> E rethrow(Exception failure) throws E {
    throw (E) failure;
  }
}
