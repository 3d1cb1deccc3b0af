package ph.payments.platform.outbox;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the outbox messages that {@linkplain OutboxWriter#logical logical writers} emit into
 * the WAL, read from the service database's logical replication slot ({@code pgoutput} with {@code
 * messages 'true'}), at least once and in commit order. It is the approach Debezium takes for
 * outbox events: no table row is written, marked or purged, and nothing polls.
 *
 * <p><b>Safe.</b> PostgreSQL decodes a message when (and only if) its transaction commits, and
 * keeps every transaction the slot has not confirmed. The relay confirms a transaction's end only
 * after Kafka acknowledged all its messages; a relay that dies in between is sent the unconfirmed
 * transactions again by the slot, and consumers drop the duplicates by message id. A failed send
 * stops the pass, and the relay reads again from the confirmed position: nothing is skipped.
 *
 * <p><b>Order.</b> Transactions arrive in commit order. Per key, a message goes out only after
 * Kafka acknowledged the one before it (the waves of {@link OutboxRelay}, for the same reason: a
 * record the producer rejects by itself must not let a later one of its key through).
 *
 * <p><b>One reader per database.</b> Every instance runs a relay; the one holding a session-level
 * advisory lock reads the slot (a slot serves one reader at a time anyway). If it dies, its
 * connections close and another instance takes over within one sweep interval.
 *
 * <p><b>Switching from the table.</b> The leader starts reading only once the {@code outbox} table
 * has no pending row ({@link OutboxRelay} keeps running beside it and publishes them), so messages
 * of a key written before the switch go out before those written after it.
 *
 * <p>Needs {@code wal_level=logical} and a user with the {@code REPLICATION} attribute. The slot
 * ({@link #slotName}) keeps WAL until it is read: a service database that is dropped must have its
 * slot dropped first, and a service stopped for good should have it dropped too.
 */
public final class LogicalOutboxRelay implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LogicalOutboxRelay.class);

  /** The publication the slot is read with; it publishes no table, only messages. */
  public static final String PUBLICATION = "outbox_messages";

  /** The prefix of the relay's own wake-up messages ({@link #tick}). */
  private static final String TICK_PREFIX = "ph.payments.outbox.tick";

  /** How long the relay may wait for a message before a tick wakes it. */
  private static final Duration TICK_INTERVAL = Duration.ofSeconds(10);

  /** Set apart from {@link OutboxRelay}'s lock, which runs in the same process. */
  private static final long LOCK_KEY_TWEAK = 0x0000_0000_0100_0000L;

  /** Test seam: called after Kafka acknowledged a batch and before its position is confirmed. */
  public interface Probe {
    Probe NONE = new Probe() {};

    default void afterSend(List<String> messageIds) {}
  }

  private final DataSource plainConnections;
  private final DataSource replicationConnections;
  private final Supplier<Producer<String, byte[]>> producers;
  private final OutboxRelay.Settings settings;
  private final Clock clock;
  private final Probe probe;
  private final Thread thread;
  private final Thread ticker;
  private final AtomicLong published = new AtomicLong();
  private volatile OutboxRelay.Observer observer = OutboxRelay.Observer.NONE;

  private volatile boolean running;
  private volatile boolean leader;
  private Connection lockConnection;
  private Connection replicationConnection;
  private PGReplicationStream stream;
  private Producer<String, byte[]> producer;
  private long confirmed;
  private volatile long lastPass = System.nanoTime();

  /**
   * @param plainConnections hands out physical connections owned by the relay (the advisory lock)
   * @param replicationConnections hands out physical connections with {@code replication=database}
   *     to the same database ({@link #replicationDataSource})
   * @param producers makes a producer; called again after a send failure
   */
  public LogicalOutboxRelay(
      DataSource plainConnections,
      DataSource replicationConnections,
      Supplier<Producer<String, byte[]>> producers,
      OutboxRelay.Settings settings,
      Clock clock,
      Probe probe) {
    this.plainConnections = Objects.requireNonNull(plainConnections);
    this.replicationConnections = Objects.requireNonNull(replicationConnections);
    this.producers = Objects.requireNonNull(producers);
    this.settings = Objects.requireNonNull(settings);
    this.clock = Objects.requireNonNull(clock);
    this.probe = Objects.requireNonNull(probe);
    this.thread = new Thread(this::run, "outbox-logical-relay-" + settings.name());
    this.thread.setDaemon(true);
    this.ticker = new Thread(this::tickWhileIdle, "outbox-logical-tick-" + settings.name());
    this.ticker.setDaemon(true);
  }

  /**
   * A data source for {@code replicationConnections}: {@code base}'s settings with {@code
   * replication=database} and the simple query protocol the replication protocol needs.
   */
  public static org.postgresql.ds.PGSimpleDataSource replicationDataSource(
      org.postgresql.ds.PGSimpleDataSource base) {
    org.postgresql.ds.PGSimpleDataSource replication = new org.postgresql.ds.PGSimpleDataSource();
    replication.setURL(base.getURL());
    replication.setUser(base.getUser());
    replication.setPassword(base.getPassword());
    replication.setApplicationName(base.getApplicationName());
    replication.setTcpKeepAlive(true);
    replication.setReplication("database");
    replication.setAssumeMinServerVersion("10");
    replication.setPreferQueryMode(org.postgresql.jdbc.PreferQueryMode.SIMPLE);
    return replication;
  }

  /**
   * The slot of the database {@code connection} is on: {@code outbox_<database>}, made of {@code
   * [a-z0-9_]} (slot names are cluster-wide, so the database's name keeps them apart).
   */
  public static String slotName(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT current_database()")) {
      rs.next();
      return slotName(rs.getString(1));
    }
  }

  static String slotName(String database) {
    String name = "outbox_" + database.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    if (name.length() <= 63) {
      return name;
    }
    return name.substring(0, 54) + "_" + String.format("%08x", database.hashCode());
  }

  /**
   * Creates the publication and the replication slot of {@code dataSource}'s database when they are
   * missing. Call it before the first logical write: PostgreSQL decodes only what is written after
   * the slot exists. Safe to call from several instances at once.
   */
  public static void prepare(DataSource dataSource) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(true);
      String slot = slotName(connection);
      if (!exists(connection, "SELECT 1 FROM pg_publication WHERE pubname = ?", PUBLICATION)) {
        try (Statement create = connection.createStatement()) {
          create.execute("CREATE PUBLICATION " + PUBLICATION);
        } catch (SQLException e) {
          if (!"42710".equals(e.getSQLState())) { // duplicate_object: another instance was first
            throw e;
          }
        }
      }
      if (!exists(connection, "SELECT 1 FROM pg_replication_slots WHERE slot_name = ?", slot)) {
        try (PreparedStatement create =
            connection.prepareStatement(
                "SELECT pg_create_logical_replication_slot(?, 'pgoutput')")) {
          create.setString(1, slot);
          create.execute();
          log.info("created logical replication slot {} for the outbox", slot);
        } catch (SQLException e) {
          if (!"42710".equals(e.getSQLState())) {
            throw e;
          }
        }
      }
    }
  }

  private static boolean exists(Connection connection, String sql, String name)
      throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      select.setString(1, name);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next();
      }
    }
  }

  public synchronized LogicalOutboxRelay start() {
    if (!running) {
      running = true;
      thread.start();
      ticker.start();
    }
    return this;
  }

  /** Reports to {@code observer} from now on. */
  public LogicalOutboxRelay observe(OutboxRelay.Observer observer) {
    this.observer = Objects.requireNonNull(observer);
    return this;
  }

  /** True while this instance holds the lock and reads the slot. */
  public boolean isLeader() {
    return leader;
  }

  /** Messages this relay has published since it started. */
  public long publishedCount() {
    return published.get();
  }

  @Override
  public void close() {
    running = false;
    ticker.interrupt();
    thread.interrupt();
    if (leader) {
      tick(); // wakes the blocking read
    }
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
        if (lockConnection == null && !tryToLead()) {
          Thread.sleep(settings.sweepInterval().toMillis());
          continue;
        }
        if (stream == null) {
          if (tableHasPending()) {
            Thread.sleep(settings.sweepInterval().toMillis());
            continue;
          }
          openStream();
        }
        pass();
        backoff = Duration.ZERO;
      } catch (InterruptedException e) {
        // close() interrupts; the loop condition decides.
      } catch (KafkaSendFailed e) {
        log.warn(
            "outbox relay {} (logical): {}; reading again from the confirmed position",
            settings.name(),
            e.getMessage());
        stepDown();
        closeProducer();
        backoff = next(backoff);
        sleepQuietly(backoff);
      } catch (Exception e) {
        log.warn("outbox relay {} (logical) stepping down: {}", settings.name(), e.toString());
        stepDown();
        closeProducer();
        backoff = next(backoff);
        sleepQuietly(backoff);
      }
    }
    Thread.interrupted();
    stepDown();
    closeProducer();
  }

  private boolean tryToLead() throws SQLException {
    Connection connection = plainConnections.getConnection();
    try {
      connection.setAutoCommit(true);
      boolean locked;
      try (PreparedStatement lock = connection.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
        lock.setLong(1, settings.lockKey() ^ LOCK_KEY_TWEAK);
        try (ResultSet rs = lock.executeQuery()) {
          rs.next();
          locked = rs.getBoolean(1);
        }
      }
      if (!locked) {
        connection.close();
        return false;
      }
      lockConnection = connection;
      return true;
    } catch (SQLException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  private boolean tableHasPending() throws SQLException {
    try (Statement statement = lockConnection.createStatement();
        ResultSet rs =
            statement.executeQuery(
                "SELECT EXISTS (SELECT 1 FROM outbox WHERE published_at IS NULL)")) {
      rs.next();
      return rs.getBoolean(1);
    }
  }

  private void openStream() throws SQLException {
    String slot = slotName(lockConnection);
    Connection connection = replicationConnections.getConnection();
    try {
      stream =
          connection
              .unwrap(PGConnection.class)
              .getReplicationAPI()
              .replicationStream()
              .logical()
              .withSlotName(slot)
              .withSlotOption("proto_version", 1)
              .withSlotOption("publication_names", PUBLICATION)
              .withSlotOption("messages", true)
              .withStatusInterval(1, TimeUnit.SECONDS)
              .start();
    } catch (SQLException | RuntimeException e) {
      connection.close();
      throw e;
    }
    replicationConnection = connection;
    confirmed = 0;
    leader = true;
    log.info("outbox relay {} is leading (logical, slot {})", settings.name(), slot);
  }

  private void stepDown() {
    leader = false;
    stream = null;
    if (replicationConnection != null) {
      closeQuietly(replicationConnection);
      replicationConnection = null;
    }
    if (lockConnection != null) {
      closeQuietly(lockConnection); // a closed session releases its advisory lock
      lockConnection = null;
    }
  }

  private static void closeQuietly(Connection connection) {
    try {
      connection.close();
    } catch (SQLException e) {
      log.debug("closing a relay connection failed", e);
    }
  }

  /**
   * One pass: waits for the slot's next message, takes what else has arrived with it (whole
   * transactions, up to the batch size), publishes it and confirms the end of the last transaction
   * published. The wait blocks on the socket (no polling); the {@linkplain #tick ticks} wake it
   * when nothing else does.
   */
  private void pass() throws SQLException, KafkaSendFailed {
    List<LogicalMessages.Decoded> ready = new ArrayList<>();
    List<LogicalMessages.Decoded> open = null;
    long readyUpTo = 0;
    ByteBuffer data = stream.read();
    while (data != null && running) {
      byte kind = data.get();
      switch (kind) {
        case 'B' -> open = new ArrayList<>();
        case 'M' -> {
          LogicalMessages.Decoded message = message(data);
          if (message != null && open != null) {
            open.add(message);
          }
        }
        case 'C' -> {
          data.get(); // flags
          data.getLong(); // the commit record's position
          readyUpTo = data.getLong(); // its end: what the slot confirms
          if (open != null) {
            ready.addAll(open);
          }
          open = null;
        }
        default -> {
          // Relation, type and origin messages: nothing of ours.
        }
      }
      if (open != null) {
        data = stream.read(); // the rest of the transaction is on its way
      } else if (ready.size() >= settings.batchSize()) {
        break;
      } else {
        data = stream.readPending(); // what has arrived meanwhile, waiting at most 1 ms
      }
    }
    if (!ready.isEmpty()) {
      publish(ready);
    }
    if (readyUpTo > 0) {
      confirm(readyUpTo);
    } else if (open == null) {
      // Nothing of ours in hand (a tick): let the slot move past other databases' WAL.
      confirm(stream.getLastReceiveLSN().asLong());
    }
    lastPass = System.nanoTime();
  }

  /**
   * Emits a non-transactional message the relay ignores, through a connection of its own: it wakes
   * the relay's blocking read, so an idle relay still confirms its position (PostgreSQL keeps all
   * WAL after the slot's confirmed position, of every database of the server) and a closing relay
   * stops at once. Debezium's heartbeat does the same.
   */
  private void tick() {
    try (Connection connection = plainConnections.getConnection();
        PreparedStatement emit =
            connection.prepareStatement("SELECT pg_logical_emit_message(false, ?, '')")) {
      emit.setString(1, TICK_PREFIX);
      emit.execute();
    } catch (SQLException e) {
      log.debug("outbox relay {}: tick failed: {}", settings.name(), e.toString());
    }
  }

  private void tickWhileIdle() {
    while (running) {
      try {
        Thread.sleep(TICK_INTERVAL.toMillis());
      } catch (InterruptedException e) {
        return;
      }
      if (leader && System.nanoTime() - lastPass >= TICK_INTERVAL.toNanos()) {
        tick();
      }
    }
  }

  /** A transactional message of ours, or null for anything else. */
  private static LogicalMessages.Decoded message(ByteBuffer data) {
    byte flags = data.get();
    data.getLong(); // the message's position
    int start = data.position();
    while (data.get() != 0) {
      // the prefix, a C string
    }
    String prefix =
        new String(
            data.array(),
            data.arrayOffset() + start,
            data.position() - start - 1,
            StandardCharsets.UTF_8);
    int length = data.getInt();
    if ((flags & 1) == 0 || !LogicalMessages.PREFIX.equals(prefix)) {
      return null;
    }
    ByteBuffer content = data.slice(data.position(), length);
    return LogicalMessages.decode(content);
  }

  private void confirm(long lsn) {
    if (lsn > confirmed) {
      LogSequenceNumber position = LogSequenceNumber.valueOf(lsn);
      stream.setFlushedLSN(position);
      stream.setAppliedLSN(position);
      confirmed = lsn;
    }
  }

  /** Sends {@code messages} in waves ({@link RelaySends#sendWave}); throws unless all went out. */
  private void publish(List<LogicalMessages.Decoded> messages) throws KafkaSendFailed {
    Map<String, ArrayDeque<LogicalMessages.Decoded>> byKey = new LinkedHashMap<>();
    for (LogicalMessages.Decoded message : messages) {
      byKey.computeIfAbsent(message.envelope().key(), key -> new ArrayDeque<>()).add(message);
    }
    if (producer == null) {
      producer = producers.get();
    }
    List<String> sent = new ArrayList<>(messages.size());
    while (!byKey.isEmpty()) {
      RelaySends.Wave<LogicalMessages.Decoded> next = RelaySends.sendWave(producer, byKey);
      List<LogicalMessages.Decoded> wave = next.messages();
      List<Future<RecordMetadata>> acks = next.acks();
      producer.flush();
      String failure = null;
      for (int i = 0; i < wave.size(); i++) {
        String failed = RelaySends.awaitAck(acks.get(i));
        if (failed == null) {
          sent.add(wave.get(i).envelope().messageId());
          observer.acknowledged(Duration.between(wave.get(i).envelope().time(), clock.instant()));
        } else {
          observer.failed();
          failure = failure == null ? failed : failure;
        }
      }
      if (failure != null) {
        throw new KafkaSendFailed(
            "a send failed (" + failure + ") after " + sent.size() + " acknowledged");
      }
      byKey.values().removeIf(ArrayDeque::isEmpty);
    }
    probe.afterSend(sent);
    published.addAndGet(sent.size());
  }

  private void closeProducer() {
    producer = RelaySends.close(producer);
  }

  private Duration next(Duration backoff) {
    return RelaySends.next(backoff, settings.maxBackoff());
  }

  private static void sleepQuietly(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      // close() interrupts; the loop condition decides.
    }
  }

  /** Kafka did not acknowledge every message of a batch; they are read again from the slot. */
  private static final class KafkaSendFailed extends Exception {
    KafkaSendFailed(String message) {
      super(message, null, false, false);
    }
  }
}
