package ph.payments.platform.outbox;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.contracts.Envelope;
import ph.payments.platform.tx.Statements;

/**
 * Publishes committed outbox rows to Kafka, in id order, at least once.
 *
 * <p><b>One publisher per service.</b> Every instance runs a relay, but only the one holding a
 * PostgreSQL session-level advisory lock publishes. The lock lives on a dedicated connection: if
 * the leader dies, its connection closes, the lock is released and another instance takes over
 * within one sweep interval.
 *
 * <p><b>Fast.</b> The leader LISTENs on the channel that {@link OutboxWriter} notifies; PostgreSQL
 * delivers the notification when the writing transaction commits, so a message is published a few
 * milliseconds after its commit. Under load (a pass found rows in the last {@link #BUSY_WINDOW})
 * the leader polls every {@link #POLL_INTERVAL} instead, and tells the writers of its process not
 * to notify ({@link OutboxActivity}): notifying transactions commit one at a time cluster-wide.
 * They ring it after their commit instead, which ends the wait that follows a pass that found
 * nothing or sent one row (the pause after a pass that sent more, {@link Settings#busyPause()},
 * runs its course, so that under load a pass carries many commits). A pass's marks go with the next
 * pass's read, in one statement. Its own marks are committed without waiting for the WAL flush: a
 * mark lost in a crash only means the rows are sent again, which consumers drop by message id.
 *
 * <p><b>Safe.</b> The leader also sweeps every {@link Settings#sweepInterval()}, so a lost
 * notification or a failed send delays a message but never loses it. Rows are marked published only
 * after Kafka acknowledged them; a relay that dies between the acknowledgement and the mark sends
 * them again on the next pass, and consumers drop the duplicate by message id. Failed sends leave
 * the row pending with its attempt count and last error. Published rows are purged once {@link
 * Settings#purgeAfter()} has passed since they were written; pending rows never are.
 *
 * <p><b>Order.</b> Rows are sent in id order through an idempotent producer, and per key a row goes
 * out only in the same batch as the one before it or after Kafka acknowledged that one; after a
 * failure nothing more of that key is sent until the failed row is through (see {@code
 * publishPending}). Writers of one key (one aggregate) are serialised by the aggregate's row lock,
 * so id order is commit order for that key.
 */
public final class OutboxRelay implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
  private static final Pattern CHANNEL = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  /** How long after the last pass that found rows the leader keeps polling. */
  static final Duration BUSY_WINDOW = Duration.ofMillis(200);

  /**
   * While polling, the wait after a pass that found nothing or sent one row (a ring ends it, and
   * one that came during the pass ends it at once).
   */
  static final Duration POLL_INTERVAL = Duration.ofMillis(2);

  /**
   * The default pause after a pass that sent more than one row ({@link Settings#busyPause()}): 5
   * ms, measured against 2 ms in turns (docs/benchmarks.md, thirty-third round).
   */
  static final Duration DEFAULT_BUSY_PAUSE = Duration.ofMillis(5);

  // The poll stays prepared (it runs hundreds of times a second, and the partial index that holds
  // exactly the pending rows is its plan at any size); the marks and the purge are planned at each
  // execution (Statements.plannedEachTime).
  private static final String PENDING_COLUMNS =
      "id, message_id, topic, message_key, message_type, payload, created_at, attributes,"
          + " attempts, last_attempt_at";
  private static final String SELECT_PENDING =
      "SELECT " + PENDING_COLUMNS + " FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT ?";
  private static final String MARK_PUBLISHED =
      "UPDATE outbox SET published_at = ?, last_attempt_at = ?, attempts = attempts + 1,"
          + " last_error = NULL WHERE id = ANY (?)";

  /**
   * The next pass's read with the last pass's mark, in one round trip (busy mode). The read sees
   * the table as it was before the update, so it leaves out the rows it marks.
   */
  private static final String MARK_AND_SELECT_PENDING =
      "WITH marked AS ("
          + MARK_PUBLISHED
          + ") SELECT "
          + PENDING_COLUMNS
          + " FROM outbox WHERE published_at IS NULL AND id <> ALL (?) ORDER BY id LIMIT ?";

  private static final String MARK_FAILED =
      "UPDATE outbox SET last_attempt_at = ?, attempts = attempts + 1, last_error = ? WHERE id = ?";

  /**
   * The purge: every published row before the first row (in id order) written within the retention.
   * Ids follow the writes, so the rows to purge are the table's first; the boundary is a walk of
   * the primary key from its start to the first young row, and the delete a range of it. A row that
   * stays pending (one that cannot be sent) is kept and does not hold back the published rows
   * beside it.
   */
  private static final String PURGE_BOUNDARY =
      "SELECT id FROM outbox WHERE created_at >= ? ORDER BY id LIMIT 1";

  private static final String PURGE =
      "DELETE FROM outbox WHERE id < ? AND published_at IS NOT NULL";

  /**
   * @param name the service's name, used for the thread, the lock and the channel
   * @param channel PostgreSQL notification channel; {@link OutboxWriter} must use the same
   * @param lockKey advisory lock key; one relay per key publishes at a time
   * @param batchSize rows read and sent per pass
   * @param sweepInterval longest wait between passes when no notification arrives
   * @param purgeAfter how long, from its writing, a published row is kept for inspection
   * @param maxBackoff longest pause after a failure
   * @param busyPause the pause after a pass that sent more than one row: what commits during it
   *     goes out in the next pass, so it sets how many commits a pass carries under load and how
   *     long a row waits
   */
  public record Settings(
      String name,
      String channel,
      long lockKey,
      int batchSize,
      Duration sweepInterval,
      Duration purgeAfter,
      Duration maxBackoff,
      Duration busyPause) {

    public Settings {
      if (!CHANNEL.matcher(channel).matches()) {
        throw new IllegalArgumentException("channel must be a plain lowercase identifier");
      }
      if (busyPause.toMillis() < 1) {
        // A notification wait of 0 ms would wait for ever.
        throw new IllegalArgumentException("busyPause must be at least 1 ms: " + busyPause);
      }
    }

    public static Settings defaults(String name) {
      String channel = "outbox_" + name.toLowerCase().replaceAll("[^a-z0-9]", "_");
      return new Settings(
          name,
          channel.length() > 63 ? channel.substring(0, 63) : channel,
          0x6f7574626f780000L | (name.hashCode() & 0xffffL),
          500,
          Duration.ofSeconds(1),
          Duration.ofHours(1),
          Duration.ofSeconds(10),
          DEFAULT_BUSY_PAUSE);
    }

    public Settings withSweepInterval(Duration interval) {
      return new Settings(
          name, channel, lockKey, batchSize, interval, purgeAfter, maxBackoff, busyPause);
    }

    public Settings withPurgeAfter(Duration after) {
      return new Settings(
          name, channel, lockKey, batchSize, sweepInterval, after, maxBackoff, busyPause);
    }

    public Settings withBatchSize(int size) {
      return new Settings(
          name, channel, lockKey, size, sweepInterval, purgeAfter, maxBackoff, busyPause);
    }

    public Settings withBusyPause(Duration pause) {
      return new Settings(
          name, channel, lockKey, batchSize, sweepInterval, purgeAfter, maxBackoff, pause);
    }
  }

  /** Test seam: called after Kafka acknowledged a batch and before the rows are marked. */
  public interface Probe {
    Probe NONE = new Probe() {};

    default void afterSend(List<Long> outboxIds) {}
  }

  /**
   * What the relay reports for metrics (platform micronaut/OutboxMetrics); called on the relay's
   * thread, so it must be quick and never throw.
   */
  public interface Observer {
    Observer NONE = new Observer() {};

    /**
     * A row Kafka acknowledged.
     *
     * @param sinceWritten from the row's {@code created_at} (its writing transaction) to the
     *     acknowledgement: what the outbox adds to a message's way
     */
    default void acknowledged(Duration sinceWritten) {}

    /** A row whose send failed; it stays pending and is tried again. */
    default void failed() {}
  }

  private final DataSource dedicatedConnections;
  private final Supplier<Producer<String, byte[]>> producers;
  private final Settings settings;
  private final Clock clock;
  private final Probe probe;
  private final OutboxActivity activity;
  private final Thread thread;
  private final AtomicLong published = new AtomicLong();
  private volatile Observer observer = Observer.NONE;

  private volatile boolean running;
  private volatile boolean leader;
  private Connection leaderConnection;
  private Producer<String, byte[]> producer;
  private Instant nextPurge = Instant.MIN;
  private long lastBusy = System.nanoTime() - BUSY_WINDOW.toNanos();

  /**
   * Rows Kafka acknowledged whose mark waits for the next pass, which sends it with its read
   * ({@link #MARK_AND_SELECT_PENDING}): after a pass that sent rows the relay polls again within
   * {@link Settings#busyPause()} ({@link #POLL_INTERVAL} after a pass of one row). Any other way
   * out of the loop marks them first ({@link #markDeferred}). Used on the relay's thread only.
   */
  private final List<Long> unmarked = new ArrayList<>();

  /**
   * @param dedicatedConnections hands out physical connections owned by the relay alone (not a
   *     pool: a session lock must not travel back into a pool with its connection)
   * @param producers makes a producer; called again after a send failure, so a fresh producer
   *     starts from a clean state
   */
  public OutboxRelay(
      DataSource dedicatedConnections,
      Supplier<Producer<String, byte[]>> producers,
      Settings settings,
      Clock clock,
      Probe probe) {
    this(dedicatedConnections, producers, settings, clock, probe, new OutboxActivity());
  }

  /**
   * @param activity shared with the {@link OutboxWriter} of this process
   */
  public OutboxRelay(
      DataSource dedicatedConnections,
      Supplier<Producer<String, byte[]>> producers,
      Settings settings,
      Clock clock,
      Probe probe,
      OutboxActivity activity) {
    this.activity = Objects.requireNonNull(activity);
    this.dedicatedConnections = Objects.requireNonNull(dedicatedConnections);
    this.producers = Objects.requireNonNull(producers);
    this.settings = Objects.requireNonNull(settings);
    this.clock = Objects.requireNonNull(clock);
    this.probe = Objects.requireNonNull(probe);
    this.thread = new Thread(this::run, "outbox-relay-" + settings.name());
    this.thread.setDaemon(true);
  }

  public synchronized OutboxRelay start() {
    if (!running) {
      running = true;
      thread.start();
    }
    return this;
  }

  /** Reports to {@code observer} from now on. */
  public OutboxRelay observe(Observer observer) {
    this.observer = Objects.requireNonNull(observer);
    return this;
  }

  /** True while this instance holds the lock and publishes. */
  public boolean isLeader() {
    return leader;
  }

  /** Rows this relay has published since it started. */
  public long publishedCount() {
    return published.get();
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
    try {
      thread.join(Duration.ofSeconds(15).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    Duration backoff = Duration.ZERO;
    while (running) {
      try {
        if (leaderConnection == null && !tryToLead()) {
          sleep(settings.sweepInterval());
          continue;
        }
        activity.passStarting(); // this pass reads what every ring so far announced
        int sent = publishPending();
        purgeIfDue();
        backoff = Duration.ZERO;
        long now = System.nanoTime();
        if (sent > 0) {
          lastBusy = now;
        }
        if (sent >= settings.batchSize()) {
          continue;
        }
        if (now - lastBusy < BUSY_WINDOW.toNanos()) {
          activity.relayPolling(true);
          if (sent > 1) {
            // Under load: what commits during the pause goes out in the next pass, not a pass each.
            awaitNotification(settings.busyPause());
          } else {
            // Nothing came since the last pass, or one message: what one client at a time makes,
            // whose next message comes only after this one is answered, so a pause would only
            // delay it. A writer of this process that commits now (or did during the pass) rings.
            activity.awaitRing(POLL_INTERVAL);
          }
        } else if (activity.relayPolling()) {
          // Writers notify again from now on; this pass publishes what they skipped notifying.
          activity.relayPolling(false);
        } else {
          awaitNotification(settings.sweepInterval());
        }
      } catch (InterruptedException e) {
        // close() interrupts; otherwise go round again.
      } catch (KafkaSendFailed e) {
        log.warn("outbox relay {}: {}; will retry", settings.name(), e.getMessage());
        closeProducer();
        backoff = next(backoff);
        sleepQuietly(backoff);
      } catch (Exception e) {
        // Database trouble or a probe: let go of the lock, so whoever is healthy can lead.
        log.warn("outbox relay {} stepping down: {}", settings.name(), e.toString());
        stepDown();
        closeProducer();
        backoff = next(backoff);
        sleepQuietly(backoff);
      }
    }
    Thread.interrupted(); // closing the producer must not be cut short by close()'s interrupt
    if (leaderConnection != null) {
      try {
        markDeferred(); // else the next leader sends them again
      } catch (SQLException e) {
        log.debug("outbox relay {}: the last marks failed", settings.name(), e);
      }
    }
    stepDown();
    closeProducer();
  }

  private boolean tryToLead() throws SQLException {
    Connection connection = dedicatedConnections.getConnection();
    try {
      connection.setAutoCommit(true);
      boolean locked;
      try (PreparedStatement lock = connection.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
        lock.setLong(1, settings.lockKey());
        try (ResultSet rs = lock.executeQuery()) {
          rs.next();
          locked = rs.getBoolean(1);
        }
      }
      if (!locked) {
        connection.close();
        return false;
      }
      try (Statement listen = connection.createStatement()) {
        listen.execute("LISTEN " + settings.channel());
        listen.execute("SET synchronous_commit = off");
      }
      leaderConnection = connection;
      leader = true;
      log.info(
          "outbox relay {} is leading (pause after a pass that sent more than one row: {} ms)",
          settings.name(),
          settings.busyPause().toMillis());
      return true;
    } catch (SQLException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  private void stepDown() {
    leader = false;
    // Unmarked rows stay pending: whoever leads next reads and sends them again (consumers drop
    // the duplicates by message id), as after a relay that dies between acknowledgement and mark.
    unmarked.clear();
    activity.relayPolling(false);
    if (leaderConnection != null) {
      try {
        leaderConnection.close(); // a closed session releases its advisory lock
      } catch (SQLException e) {
        log.debug("closing the relay connection failed", e);
      }
      leaderConnection = null;
    }
  }

  /**
   * One pass: sends the pending rows in waves; what Kafka acknowledged is marked by the next pass's
   * read, in the same statement (under load the next pass comes within {@link
   * Settings#busyPause()}), so a busy pass costs one round trip to PostgreSQL, not two.
   *
   * <p><b>Per key, nothing overtakes a failure.</b> Relying on the producer alone is not enough:
   * its idempotence keeps order only for batches it retries. A record it rejects by itself (too
   * large, a serialization or metadata failure) or a batch that fails for good (expired, refused by
   * the broker) fails alone while the records behind it, in later batches of up to {@code
   * max.in.flight} requests, are written; marking those published would put a later state change in
   * front of an earlier one for good (the resent earlier row arrives after it, and consumers drop
   * the later row's own resend as a duplicate). So a wave holds, for every key of the pass, its
   * oldest unsent rows of one topic, as many as fit in the wave's bytes with the other keys': they
   * share a partition, and the relay's producer keeps a wave's records of a partition in one batch,
   * which Kafka appends whole or not at all ({@link RelaySends#sendWave}). A row the producer
   * refuses at once ends its key's part of the wave. The key's further rows go out in a later wave,
   * only after Kafka acknowledged the ones before them, and a key whose row failed sends nothing
   * more in this pass. A wave costs one round trip; a pass needs more than one only when its rows
   * exceed a wave's bytes or a key's rows change topic (a payment's two events of one {@code
   * succeed} used to need two).
   *
   * <p>A failed row waits out its own backoff ({@link #due}) before the next try, and its key waits
   * with it; other keys go on. Only a pass in which nothing was acknowledged counts as a failure of
   * the producer or the broker: the producer is replaced and the relay backs off.
   *
   * @return how many rows were handed to the producer
   */
  private int publishPending() throws SQLException, KafkaSendFailed {
    List<PendingRow> rows = readPending();
    if (rows.isEmpty()) {
      return 0;
    }
    Instant now = clock.instant();
    // The rows of each key in id order; a key whose oldest row is still backing off waits whole.
    Map<String, ArrayDeque<PendingRow>> byKey = new LinkedHashMap<>();
    for (PendingRow row : rows) {
      byKey.computeIfAbsent(row.envelope().key(), key -> new ArrayDeque<>()).add(row);
    }
    byKey.values().removeIf(keyRows -> !due(keyRows.peekFirst(), now));
    if (byKey.isEmpty()) {
      return 0;
    }
    if (producer == null) {
      producer = producers.get();
    }

    int attempted = 0;
    List<Long> sent = new ArrayList<>(rows.size());
    Map<Long, String> failed = new LinkedHashMap<>();
    while (!byKey.isEmpty()) {
      RelaySends.Wave<PendingRow> next = RelaySends.sendWave(producer, byKey);
      List<PendingRow> wave = next.messages();
      List<Future<RecordMetadata>> acks = next.acks();
      attempted += wave.size();
      producer.flush();
      for (int i = 0; i < wave.size(); i++) {
        PendingRow row = wave.get(i);
        String failure = RelaySends.awaitAck(acks.get(i));
        if (failure == null) {
          sent.add(row.id());
          observer.acknowledged(Duration.between(row.envelope().time(), clock.instant()));
        } else {
          failed.put(row.id(), failure);
          observer.failed();
          byKey.remove(row.envelope().key()); // its later rows wait for it, in a later pass
        }
      }
      byKey.values().removeIf(ArrayDeque::isEmpty);
    }

    probe.afterSend(sent);
    unmarked.addAll(sent);
    if (!failed.isEmpty()) {
      markDeferred(); // the pass ends in a backoff or a warning: marks go now, not with a read
    }
    markFailed(failed);
    published.addAndGet(sent.size());
    if (!failed.isEmpty()) {
      String summary =
          failed.size()
              + " of "
              + attempted
              + " sends failed, first: "
              + failed.values().iterator().next();
      if (sent.isEmpty()) {
        throw new KafkaSendFailed(summary);
      }
      log.warn(
          "outbox relay {}: {}; their keys wait, the others went on", settings.name(), summary);
    }
    return attempted;
  }

  /**
   * A row that never failed is due at once; one that failed {@code n} times waits 100 ms doubling
   * per failure, up to {@link Settings#maxBackoff()}, after its last attempt.
   */
  private boolean due(PendingRow row, Instant now) {
    if (row.attempts() == 0 || row.lastAttemptAt() == null) {
      return true;
    }
    Duration wait = Duration.ofMillis(100);
    for (int i = 1; i < row.attempts() && wait.compareTo(settings.maxBackoff()) < 0; i++) {
      wait = wait.multipliedBy(2);
    }
    if (wait.compareTo(settings.maxBackoff()) > 0) {
      wait = settings.maxBackoff();
    }
    return !now.isBefore(row.lastAttemptAt().plus(wait));
  }

  /** The pending rows, oldest first; marks the acknowledged ones ({@link #unmarked}) with them. */
  private List<PendingRow> readPending() throws SQLException {
    List<PendingRow> rows = new ArrayList<>();
    boolean marking = !unmarked.isEmpty();
    // Planned each time when it marks, as the mark on its own is: a generic plan made while the
    // table was small reads the whole table for the update once it has grown (docs/decisions.md).
    try (PreparedStatement select =
        marking
            ? Statements.plannedEachTime(leaderConnection, MARK_AND_SELECT_PENDING)
            : leaderConnection.prepareStatement(SELECT_PENDING)) {
      int next = 1;
      if (marking) {
        Timestamp now = Timestamp.from(clock.instant());
        Array ids = leaderConnection.createArrayOf("bigint", unmarked.toArray());
        select.setTimestamp(next++, now);
        select.setTimestamp(next++, now);
        select.setArray(next++, ids);
        select.setArray(next++, ids);
      }
      select.setInt(next, settings.batchSize());
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          Envelope envelope =
              new Envelope(
                  rs.getString("message_id"),
                  rs.getString("message_type"),
                  rs.getString("message_key"),
                  rs.getTimestamp("created_at").toInstant(),
                  rs.getBytes("payload"),
                  attributes(rs.getString("attributes")));
          Timestamp lastAttempt = rs.getTimestamp("last_attempt_at");
          rows.add(
              new PendingRow(
                  rs.getLong("id"),
                  rs.getString("topic"),
                  envelope,
                  rs.getInt("attempts"),
                  lastAttempt == null ? null : lastAttempt.toInstant()));
        }
      }
    }
    unmarked.clear(); // the statement ran whole: they are marked
    return rows;
  }

  /** Marks the acknowledged rows whose mark no read has carried yet. */
  private void markDeferred() throws SQLException {
    if (!unmarked.isEmpty()) {
      markPublished(unmarked);
      unmarked.clear();
    }
  }

  private void markPublished(List<Long> ids) throws SQLException {
    if (ids.isEmpty()) {
      return;
    }
    Timestamp now = Timestamp.from(clock.instant());
    try (PreparedStatement mark = Statements.plannedEachTime(leaderConnection, MARK_PUBLISHED)) {
      Array idArray = leaderConnection.createArrayOf("bigint", ids.toArray());
      mark.setTimestamp(1, now);
      mark.setTimestamp(2, now);
      mark.setArray(3, idArray);
      mark.executeUpdate();
    }
  }

  private void markFailed(Map<Long, String> failures) throws SQLException {
    if (failures.isEmpty()) {
      return;
    }
    Timestamp now = Timestamp.from(clock.instant());
    try (PreparedStatement mark = Statements.plannedEachTime(leaderConnection, MARK_FAILED)) {
      for (Map.Entry<Long, String> failure : failures.entrySet()) {
        mark.setTimestamp(1, now);
        mark.setString(2, abbreviate(failure.getValue()));
        mark.setLong(3, failure.getKey());
        mark.addBatch();
      }
      mark.executeBatch();
    }
  }

  private void purgeIfDue() throws SQLException {
    Instant now = clock.instant();
    if (now.isBefore(nextPurge)) {
      return;
    }
    nextPurge = now.plus(Duration.ofMinutes(1));
    markDeferred(); // once a minute: the purge sees this pass's rows published
    long boundary = Long.MAX_VALUE; // no row is young: every published row goes
    try (PreparedStatement first = Statements.plannedEachTime(leaderConnection, PURGE_BOUNDARY)) {
      first.setTimestamp(1, Timestamp.from(now.minus(settings.purgeAfter())));
      try (ResultSet rs = first.executeQuery()) {
        if (rs.next()) {
          boundary = rs.getLong(1);
        }
      }
    }
    try (PreparedStatement purge = Statements.plannedEachTime(leaderConnection, PURGE)) {
      purge.setLong(1, boundary);
      int purged = purge.executeUpdate();
      if (purged > 0) {
        log.debug("outbox relay {} purged {} published rows", settings.name(), purged);
      }
    }
  }

  private void awaitNotification(Duration timeout) throws SQLException {
    // Returns on the first notification or after the timeout; either way the caller sweeps.
    leaderConnection.unwrap(PGConnection.class).getNotifications((int) timeout.toMillis());
  }

  private void closeProducer() {
    producer = RelaySends.close(producer);
  }

  private Duration next(Duration backoff) {
    return RelaySends.next(backoff, settings.maxBackoff());
  }

  private static void sleep(Duration duration) throws InterruptedException {
    Thread.sleep(duration.toMillis());
  }

  private static void sleepQuietly(Duration duration) {
    try {
      sleep(duration);
    } catch (InterruptedException e) {
      // close() interrupts; the loop condition decides.
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, String> attributes(String json) {
    return json == null
        ? Map.of()
        : ph.payments.platform.json.Json.fromBytes(
            json.getBytes(java.nio.charset.StandardCharsets.UTF_8), Map.class);
  }

  private static String abbreviate(String error) {
    return error.length() <= 1000 ? error : error.substring(0, 1000);
  }

  private record PendingRow(
      long id, String topic, Envelope envelope, int attempts, Instant lastAttemptAt)
      implements RelaySends.Outgoing {}

  /** Kafka did not acknowledge every row of a batch; those rows stay pending. */
  private static final class KafkaSendFailed extends Exception {
    KafkaSendFailed(String message) {
      super(message, null, false, false);
    }
  }
}
