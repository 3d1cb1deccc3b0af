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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
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
import ph.payments.platform.kafka.KafkaEnvelopes;

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
 * to notify ({@link OutboxActivity}): notifying transactions commit one at a time cluster-wide. Its
 * own marks are committed without waiting for the WAL flush: a mark lost in a crash only means the
 * rows are sent again, which consumers drop by message id.
 *
 * <p><b>Safe.</b> The leader also sweeps every {@link Settings#sweepInterval()}, so a lost
 * notification or a failed send delays a message but never loses it. Rows are marked published only
 * after Kafka acknowledged them; a relay that dies between the acknowledgement and the mark sends
 * them again on the next pass, and consumers drop the duplicate by message id. Failed sends leave
 * the row pending with its attempt count and last error. Published rows are purged after {@link
 * Settings#purgeAfter()}.
 *
 * <p><b>Order.</b> Rows are sent in id order through an idempotent producer with at most five
 * requests in flight, which keeps per-partition order; writers of one key (one aggregate) are
 * serialised by the aggregate's row lock, so id order is commit order for that key.
 */
public final class OutboxRelay implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
  private static final Pattern CHANNEL = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  /** How long after the last pass that found rows the leader keeps polling. */
  static final Duration BUSY_WINDOW = Duration.ofMillis(200);

  /** The pause between passes while polling (a notification ends it early). */
  static final Duration POLL_INTERVAL = Duration.ofMillis(2);

  private static final String SELECT_PENDING =
      "SELECT id, message_id, topic, message_key, message_type, payload, created_at, attributes"
          + " FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT ?";
  private static final String MARK_PUBLISHED =
      "UPDATE outbox SET published_at = ?, last_attempt_at = ?, attempts = attempts + 1,"
          + " last_error = NULL WHERE id = ANY (?)";
  private static final String MARK_FAILED =
      "UPDATE outbox SET last_attempt_at = ?, attempts = attempts + 1, last_error = ? WHERE id = ?";
  private static final String PURGE = "DELETE FROM outbox WHERE published_at < ?";

  /**
   * @param name the service's name, used for the thread, the lock and the channel
   * @param channel PostgreSQL notification channel; {@link OutboxWriter} must use the same
   * @param lockKey advisory lock key; one relay per key publishes at a time
   * @param batchSize rows read and sent per pass
   * @param sweepInterval longest wait between passes when no notification arrives
   * @param purgeAfter how long published rows are kept for inspection
   * @param maxBackoff longest pause after a failure
   */
  public record Settings(
      String name,
      String channel,
      long lockKey,
      int batchSize,
      Duration sweepInterval,
      Duration purgeAfter,
      Duration maxBackoff) {

    public Settings {
      if (!CHANNEL.matcher(channel).matches()) {
        throw new IllegalArgumentException("channel must be a plain lowercase identifier");
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
          Duration.ofSeconds(10));
    }

    public Settings withSweepInterval(Duration interval) {
      return new Settings(name, channel, lockKey, batchSize, interval, purgeAfter, maxBackoff);
    }

    public Settings withPurgeAfter(Duration after) {
      return new Settings(name, channel, lockKey, batchSize, sweepInterval, after, maxBackoff);
    }

    public Settings withBatchSize(int size) {
      return new Settings(name, channel, lockKey, size, sweepInterval, purgeAfter, maxBackoff);
    }
  }

  /** Test seam: called after Kafka acknowledged a batch and before the rows are marked. */
  public interface Probe {
    Probe NONE = new Probe() {};

    default void afterSend(List<Long> outboxIds) {}
  }

  private final DataSource dedicatedConnections;
  private final Supplier<Producer<String, byte[]>> producers;
  private final Settings settings;
  private final Clock clock;
  private final Probe probe;
  private final OutboxActivity activity;
  private final Thread thread;
  private final AtomicLong published = new AtomicLong();

  private volatile boolean running;
  private volatile boolean leader;
  private Connection leaderConnection;
  private Producer<String, byte[]> producer;
  private Instant nextPurge = Instant.MIN;
  private long lastBusy = System.nanoTime() - BUSY_WINDOW.toNanos();

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
          awaitNotification(POLL_INTERVAL);
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
      log.info("outbox relay {} is leading", settings.name());
      return true;
    } catch (SQLException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  private void stepDown() {
    leader = false;
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

  private int publishPending() throws SQLException, KafkaSendFailed {
    List<PendingRow> rows = readPending();
    if (rows.isEmpty()) {
      return 0;
    }
    if (producer == null) {
      producer = producers.get();
    }
    List<Future<RecordMetadata>> acks = new ArrayList<>(rows.size());
    for (PendingRow row : rows) {
      acks.add(producer.send(KafkaEnvelopes.toRecord(row.topic(), row.envelope())));
    }
    producer.flush();

    List<Long> sent = new ArrayList<>(rows.size());
    Map<Long, String> failed = new LinkedHashMap<>();
    for (int i = 0; i < rows.size(); i++) {
      try {
        acks.get(i).get();
        sent.add(rows.get(i).id());
      } catch (ExecutionException e) {
        failed.put(rows.get(i).id(), String.valueOf(e.getCause()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failed.put(rows.get(i).id(), "interrupted while waiting for the acknowledgement");
      }
    }
    probe.afterSend(sent);
    markPublished(sent);
    markFailed(failed);
    published.addAndGet(sent.size());
    if (!failed.isEmpty()) {
      throw new KafkaSendFailed(
          failed.size()
              + " of "
              + rows.size()
              + " sends failed, first: "
              + failed.values().iterator().next());
    }
    return rows.size();
  }

  private List<PendingRow> readPending() throws SQLException {
    List<PendingRow> rows = new ArrayList<>();
    try (PreparedStatement select = leaderConnection.prepareStatement(SELECT_PENDING)) {
      select.setInt(1, settings.batchSize());
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
          rows.add(new PendingRow(rs.getLong("id"), rs.getString("topic"), envelope));
        }
      }
    }
    return rows;
  }

  private void markPublished(List<Long> ids) throws SQLException {
    if (ids.isEmpty()) {
      return;
    }
    Timestamp now = Timestamp.from(clock.instant());
    try (PreparedStatement mark = leaderConnection.prepareStatement(MARK_PUBLISHED)) {
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
    try (PreparedStatement mark = leaderConnection.prepareStatement(MARK_FAILED)) {
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
    try (PreparedStatement purge = leaderConnection.prepareStatement(PURGE)) {
      purge.setTimestamp(1, Timestamp.from(now.minus(settings.purgeAfter())));
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
    if (producer != null) {
      try {
        producer.close(Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        log.debug("closing the relay producer failed", e);
      }
      producer = null;
    }
  }

  private Duration next(Duration backoff) {
    Duration doubled = backoff.isZero() ? Duration.ofMillis(100) : backoff.multipliedBy(2);
    return doubled.compareTo(settings.maxBackoff()) > 0 ? settings.maxBackoff() : doubled;
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

  private record PendingRow(long id, String topic, Envelope envelope) {}

  /** Kafka did not acknowledge every row of a batch; those rows stay pending. */
  private static final class KafkaSendFailed extends Exception {
    KafkaSendFailed(String message) {
      super(message, null, false, false);
    }
  }
}
