package ph.payments.webhooks.deliveries;

import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.platform.tx.Transactions;
import ph.payments.webhooks.WebhookSettings;

/**
 * Hands due deliveries to a bounded pool of workers, with per-target isolation.
 *
 * <p><b>Queue in the database.</b> Deliveries wait in {@code webhook_deliveries} with their {@code
 * next_attempt_at}; the scheduler claims due ones ({@link JdbcDeliveries#claim}), so scheduled
 * retries survive restarts and several instances share the work.
 *
 * <p><b>Isolation.</b> At most {@link WebhookSettings#concurrency()} attempts run at once, and at
 * most {@link WebhookSettings#perTarget()} for one target (an endpoint, or the host of an override
 * URL). A target at its limit is skipped when claiming, so a slow or dead receiver holds only its
 * own slots (each for at most the timeout) and never delays anybody else's deliveries. Every
 * attempt first {@linkplain #reserve reserves} its slot, before its delivery is leased, and holds
 * it until the attempt is recorded; nothing is leased without a slot, so nothing queues behind a
 * stuck attempt in memory either.
 *
 * <p><b>Hand-off.</b> The event consumer leases new deliveries to this instance in the transaction
 * that creates them, for as many as have a free slot ({@link Reservations}), and {@linkplain
 * #dispatch dispatches} them once it commits: a new event's first attempt needs no claim. Only
 * deliveries without a slot wait in the queue for a claim.
 *
 * <p><b>Fast path.</b> A transaction that makes a delivery due also notifies {@value
 * JdbcDeliveries#CHANNEL}; PostgreSQL delivers the notification on commit and the scheduler, which
 * LISTENs on a dedicated connection, claims at once. The event consumer also wakes it directly. A
 * finished attempt frees a slot and wakes it too, but only while a delivery may be waiting for a
 * slot ({@link #waitingForSlot}): when the last claim took every due delivery it could see, the
 * slot an attempt frees is nobody's, and a claim would read the queue for nothing (at 500 events a
 * second, where nearly every delivery is handed off, that was a claim transaction for nearly every
 * attempt). Without any of these it looks every {@link WebhookSettings#pollInterval()}, or sooner
 * when the next retry is due sooner.
 */
@Context
@Requires(property = "webhooks.delivery.enabled", notEquals = "false")
public class DeliveryScheduler {

  private static final Logger log = LoggerFactory.getLogger(DeliveryScheduler.class);

  private final Transactions transactions;
  private final JdbcDeliveries deliveries;
  private final DeliveryAttempts attempts;
  private final WebhookSettings settings;
  private final Clock clock;
  private final ListenConnections listenConnections;
  private final ExecutorService workers;

  private final Map<String, Integer> inFlightByTarget = new HashMap<>();
  private int inFlight;

  /** Slots reserved whose attempt is neither running nor given back yet. */
  private int held;

  /**
   * Whether a due delivery may be waiting for a slot of this instance, so that a slot freed should
   * wake the scheduler: true from before a claim until the claim shows it saw every due delivery
   * and had a slot for each, and again whenever a slot is refused (by a claim or a hand-off) or the
   * scheduler finds no slot free to look with. Guarded by {@code this}.
   */
  private boolean waitingForSlot = true;

  /** Slots refused so far (guarded by {@code this}), so a claim can tell if any was meanwhile. */
  private long refusals;

  private final AtomicLong claimPasses = new AtomicLong();

  private final Object signal = new Object();
  private boolean signalled;
  private volatile boolean running;
  private Thread loop;
  private Thread listener;

  public DeliveryScheduler(
      Transactions transactions,
      JdbcDeliveries deliveries,
      DeliveryAttempts attempts,
      WebhookSettings settings,
      Clock clock,
      ListenConnections listenConnections) {
    this.transactions = transactions;
    this.deliveries = deliveries;
    this.attempts = attempts;
    this.settings = settings;
    this.clock = clock;
    this.listenConnections = listenConnections;
    AtomicInteger threads = new AtomicInteger();
    this.workers =
        new ThreadPoolExecutor(
            settings.concurrency(),
            settings.concurrency(),
            1,
            TimeUnit.MINUTES,
            new LinkedBlockingQueue<>(),
            runnable -> {
              Thread thread = new Thread(runnable, "webhook-delivery-" + threads.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    ((ThreadPoolExecutor) workers).allowCoreThreadTimeOut(true);
  }

  @PostConstruct
  void start() {
    running = true;
    loop = new Thread(this::run, "webhook-scheduler");
    loop.setDaemon(true);
    loop.start();
    listener = new Thread(this::listen, "webhook-scheduler-listen");
    listener.setDaemon(true);
    listener.start();
  }

  /**
   * Stops claiming and lets the attempts in flight finish and be recorded (each is cut off by the
   * timeout), so a restart loses nothing and repeats nothing.
   */
  @PreDestroy
  void stop() {
    synchronized (this) {
      running = false; // no slot is reserved from now on
    }
    wake();
    listener.interrupt();
    join(loop, Duration.ofSeconds(10));
    awaitHeldSlots(Duration.ofSeconds(10)); // a transaction that leased may still commit
    workers.shutdown();
    try {
      if (!workers.awaitTermination(settings.timeout().toMillis() + 5_000, TimeUnit.MILLISECONDS)) {
        log.warn("webhook attempts still running at shutdown; their leases will expire");
        workers.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    join(listener, Duration.ofSeconds(3));
  }

  /** Look at the queue now (a delivery became due, or a slot became free). */
  public void wake() {
    synchronized (signal) {
      signalled = true;
      signal.notifyAll();
    }
  }

  /** Attempts running in this instance now, with the slots reserved for attempts about to run. */
  public synchronized int inFlight() {
    return inFlight;
  }

  /** How many times this instance's scheduler has claimed from the queue (read it for due rows). */
  public long claimPasses() {
    return claimPasses.get();
  }

  /**
   * Takes a slot for one attempt to {@code target} if the instance and the target have one free and
   * the scheduler is running. The caller then either {@linkplain #dispatch dispatches} an attempt
   * on it or {@linkplain #giveBack gives it back}.
   */
  synchronized boolean reserve(String target) {
    if (!running
        || inFlight >= settings.concurrency()
        || inFlightByTarget.getOrDefault(target, 0) >= settings.perTarget()) {
      refusals++;
      waitingForSlot = true; // its delivery waits in the queue: the next slot freed must look
      return false;
    }
    inFlight++;
    inFlightByTarget.merge(target, 1, Integer::sum);
    held++;
    return true;
  }

  /** Gives back a {@linkplain #reserve reserved} slot whose attempt will not run. */
  void giveBack(String target) {
    synchronized (this) {
      held--;
      release(target);
      notifyAll();
    }
    wake();
  }

  /**
   * Runs an attempt on the slot {@linkplain #reserve reserved} for its target; the slot is free
   * again once the attempt is recorded. Precondition: the attempt's lease is committed.
   */
  void dispatch(DeliveryAttempts.Prepared attempt) {
    try {
      workers.execute(() -> runAttempt(attempt));
    } catch (RejectedExecutionException e) {
      // Only after a stop that gave up waiting: the delivery comes back when its lease ends.
      log.warn("webhook delivery {} not started: stopping", attempt.claim().id());
      giveBack(attempt.claim().target());
      return;
    }
    synchronized (this) {
      held--;
      notifyAll();
    }
  }

  private void run() {
    while (running) {
      try {
        int free = freeOrWaiting();
        if (free == 0) {
          awaitSignal(settings.pollInterval()); // a finished attempt wakes us
          continue;
        }
        if (claimAndSubmit(free) > 0) {
          continue; // more may be due
        }
        // With attempts in flight, the next one to finish wakes us (and a retry due meanwhile waits
        // at most a poll interval); only an idle scheduler asks when the next retry is due.
        awaitSignal(inFlight() > 0 ? settings.pollInterval() : nextWait());
      } catch (RuntimeException e) {
        log.warn("webhook scheduler: {}; retrying", e.toString());
        awaitSignal(Duration.ofSeconds(1));
      }
    }
  }

  /** Claims and starts up to {@code free} attempts; returns how many deliveries it claimed. */
  private int claimAndSubmit(int free) {
    // First, so that a slot freed from here on (a busy target's, say, left out of the read below)
    // wakes the scheduler for another look.
    long refusalsBefore = lookingForDue();
    List<String> busy = busyTargets();
    claimPasses.incrementAndGet();
    Instant now = clock.instant();
    Reservations slots = new Reservations(this);
    int claimed;
    try {
      claimed =
          transactions.inTransaction(
              c -> {
                List<JdbcDeliveries.Claim> claims = deliveries.claim(c, now, free, busy, slots);
                if (!claims.isEmpty()) {
                  attempts.prepare(c, claims).forEach(slots::prepared);
                }
                return claims.size();
              });
    } catch (RuntimeException e) {
      slots.rolledBack();
      throw e;
    }
    slots.committed();
    sawAllDue(refusalsBefore, slots.reserved() >= free);
    return claimed;
  }

  private void runAttempt(DeliveryAttempts.Prepared attempt) {
    try {
      attempts.run(attempt);
    } catch (RuntimeException e) {
      log.warn(
          "webhook delivery {}: {}; it is retried when its lease ends",
          attempt.claim().id(),
          e.toString());
    } finally {
      if (finished(attempt.claim().target())) {
        wake(); // its slot may be what a waiting delivery needs
      }
    }
  }

  /** How long to sleep when nothing could be claimed: until the next due retry, at most a poll. */
  private Duration nextWait() {
    Optional<Instant> due = transactions.inTransaction(deliveries::nextDue);
    Duration poll = settings.pollInterval();
    if (due.isEmpty()) {
      return poll;
    }
    Duration until = Duration.between(clock.instant(), due.get());
    if (until.isNegative() || until.isZero()) {
      // Due but not claimable: its target is busy (a finished attempt wakes us) or another
      // instance holds it. Either way, polling harder would not help.
      return poll;
    }
    return until.compareTo(poll) < 0 ? until : poll;
  }

  /** Free slots now; when there are none, a slot freed must wake the scheduler. */
  private synchronized int freeOrWaiting() {
    int free = settings.concurrency() - inFlight;
    if (free == 0) {
      waitingForSlot = true;
    }
    return free;
  }

  /**
   * A claim starts: until it ends, assume a delivery waits (a slot freed meanwhile wakes the
   * scheduler for one more look, which costs a claim, never a delivery).
   *
   * @return the refusals so far
   */
  private synchronized long lookingForDue() {
    waitingForSlot = true;
    return refusals;
  }

  /**
   * A claim ended. Nothing waits for a slot if it refused none, nor did anybody else meanwhile, if
   * it did not use up the slots it looked with ({@code filled}) and if no target is at its limit
   * now: a target at its limit had busy rows left out of the read, or may have more due than one
   * read takes of a target.
   */
  private synchronized void sawAllDue(long refusalsBefore, boolean filled) {
    waitingForSlot = filled || !busyTargets().isEmpty() || refusals != refusalsBefore;
  }

  /** The targets at their limit now. */
  private synchronized List<String> busyTargets() {
    List<String> busy = new ArrayList<>();
    inFlightByTarget.forEach(
        (target, count) -> {
          if (count >= settings.perTarget()) {
            busy.add(target);
          }
        });
    return busy;
  }

  /** An attempt's slot is free again: whether a delivery may be waiting for it. */
  private synchronized boolean finished(String target) {
    release(target);
    return waitingForSlot;
  }

  /** Waits until every reserved slot is dispatched or given back, at most {@code timeout}. */
  private synchronized void awaitHeldSlots(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (held > 0) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          log.warn("{} leased webhook deliveries not dispatched at shutdown", held);
          return;
        }
        wait(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private synchronized void release(String target) {
    inFlight--;
    inFlightByTarget.computeIfPresent(target, (t, count) -> count <= 1 ? null : count - 1);
  }

  private void awaitSignal(Duration timeout) {
    synchronized (signal) {
      try {
        if (!signalled && running && !timeout.isZero()) {
          signal.wait(Math.max(1, timeout.toMillis()));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        running = false;
      }
      signalled = false;
    }
  }

  /** Turns PostgreSQL notifications on {@value JdbcDeliveries#CHANNEL} into wake-ups. */
  private void listen() {
    while (running) {
      try (Connection connection = listenConnections.open()) {
        try (Statement listen = connection.createStatement()) {
          listen.execute("LISTEN " + JdbcDeliveries.CHANNEL);
        }
        PGConnection notifications = connection.unwrap(PGConnection.class);
        // A notification ends the wait as it arrives; the timeout only bounds how long a stop
        // waits for this thread to see it.
        int wait = (int) Math.min(settings.pollInterval().toMillis(), 1_000);
        while (running) {
          var received = notifications.getNotifications(wait);
          if (received != null && received.length > 0) {
            wake();
          }
        }
      } catch (SQLException | RuntimeException e) {
        if (running) {
          log.debug("webhook scheduler lost its LISTEN connection: {}", e.toString());
          try {
            Thread.sleep(1_000);
          } catch (InterruptedException interrupted) {
            return;
          }
        }
      }
    }
  }

  private static void join(Thread thread, Duration timeout) {
    try {
      thread.join(timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
