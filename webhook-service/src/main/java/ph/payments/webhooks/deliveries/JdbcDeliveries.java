package ph.payments.webhooks.deliveries;

import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import ph.payments.platform.tx.Statements;
import ph.payments.platform.tx.Transactions;
import ph.payments.webhooks.WebhookSettings;

/**
 * Deliveries and their attempt log in PostgreSQL, over the caller's connection.
 *
 * <p><b>Claiming.</b> Due deliveries are chosen by a plain read, then the chosen ones are claimed
 * with {@code FOR UPDATE SKIP LOCKED}, so several instances share the queue without waiting on each
 * other and no row is locked only to be passed over, and leased: {@code next_attempt_at} moves to
 * the end of the lease and a random {@code lease_token} marks the claim. The attempt runs outside
 * any transaction; its result is recorded only under the same token. An instance that dies
 * mid-attempt loses nothing: when the lease ends the delivery is due again and another claim runs
 * it (the receiver may then see the same {@code X-Service-Delivery} twice; it is at-least-once). A
 * delivery handed off by the event consumer is created already leased the same way ({@link
 * #insertDeliveries}), so it needs no claim and comes back just as well.
 *
 * <p><b>Plans.</b> The statements of claiming, attempting and recording are planned at each
 * execution ({@link Statements#plannedEachTime}): the queue grows from empty to tens of thousands
 * of due rows under connections that live half an hour, and the generic plans PostgreSQL cached
 * while it was small read the whole queue by a partial index where the primary key finds one row
 * (the lease, the record of an attempt) or the first entry of {@code next_attempt_at} answers
 * ({@link #nextDue}). Without an {@code ANALYZE} (autovacuum off) nothing replaced them.
 */
@Singleton
public class JdbcDeliveries {

  /** PostgreSQL notification channel; schedulers LISTEN on it. */
  public static final String CHANNEL = "webhook_deliveries";

  private static final String VIEW =
      "SELECT d.id, d.merchant_id, d.environment, d.endpoint_id,"
          + " coalesce(d.override_url, e.url) AS url, d.event_id, d.event_type, d.status,"
          + " d.attempt_count, d.next_attempt_at, d.last_status_code, d.last_error,"
          + " d.last_attempt_at, d.created_at, d.completed_at"
          + " FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id";

  private final WebhookSettings settings;

  public JdbcDeliveries(WebhookSettings settings) {
    this.settings = settings;
  }

  // ------------------------------------------------------------------ creating

  /**
   * An event to store, with the trace context and request id it arrived with, for its attempts
   * ({@link Work#traceparent}).
   *
   * @param traceparent null: the event carried no trace
   * @param requestId null: the event carried no request id
   */
  public record NewEvent(
      String id,
      String merchantId,
      String environment,
      String type,
      byte[] body,
      String traceparent,
      String requestId) {}

  /**
   * Stores the events in one statement, each once: an id stored before (or given twice) changes
   * nothing.
   */
  public void insertEvents(Connection connection, List<NewEvent> events, Instant now)
      throws SQLException {
    if (events.isEmpty()) {
      return;
    }
    int n = events.size();
    String[] ids = new String[n];
    String[] merchants = new String[n];
    String[] environments = new String[n];
    String[] types = new String[n];
    byte[][] bodies = new byte[n][];
    String[] traceparents = new String[n];
    String[] requestIds = new String[n];
    for (int i = 0; i < n; i++) {
      NewEvent event = events.get(i);
      ids[i] = event.id();
      merchants[i] = event.merchantId();
      environments[i] = event.environment();
      types[i] = event.type();
      bodies[i] = event.body();
      traceparents[i] = event.traceparent();
      requestIds[i] = event.requestId();
    }
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO webhook_events (id, merchant_id, environment, type, body, received_at,"
                + " traceparent, request_id)"
                + " SELECT id, merchant_id, environment, type, body, ?::timestamptz, traceparent,"
                + " request_id"
                + " FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::bytea[], ?::text[],"
                + " ?::text[]) AS e (id, merchant_id, environment, type, body, traceparent,"
                + " request_id)"
                + " ON CONFLICT (id) DO NOTHING")) {
      insert.setTimestamp(1, Timestamp.from(now));
      insert.setArray(2, connection.createArrayOf("text", ids));
      insert.setArray(3, connection.createArrayOf("text", merchants));
      insert.setArray(4, connection.createArrayOf("text", environments));
      insert.setArray(5, connection.createArrayOf("text", types));
      insert.setArray(6, connection.createArrayOf("bytea", bodies));
      insert.setArray(7, connection.createArrayOf("text", traceparents));
      insert.setArray(8, connection.createArrayOf("text", requestIds));
      insert.executeUpdate();
    }
  }

  /**
   * A delivery to create: to an endpoint ({@code overrideUrl} null) or to a payment's {@code
   * webhook_url} ({@code endpointId} null).
   *
   * @param target what the receiver may hold up: the endpoint id, or e.g. {@code
   *     url:shop.example:443} for an override
   * @param leaseToken null: the delivery is due now and waits for a claim; else it is created
   *     leased to this instance under that token, as a claim would lease it ({@link #claim})
   */
  public record NewDelivery(
      String merchantId,
      String environment,
      String endpointId,
      String overrideUrl,
      String target,
      String eventId,
      String eventType,
      Long leaseToken) {

    public NewDelivery {
      if ((endpointId == null) == (overrideUrl == null)) {
        throw new IllegalArgumentException("a delivery goes to an endpoint or to an override URL");
      }
    }

    /** What makes a delivery unique: one per endpoint and event, one override per event. */
    private Unique unique() {
      return new Unique(endpointId, eventId);
    }
  }

  /**
   * A delivery's unique key, as the partial unique indexes hold it: one per endpoint and event, one
   * override per event ({@code endpointId} null).
   */
  public record Unique(String endpointId, String eventId) {}

  /**
   * Creates the deliveries in one statement, each unless it exists already.
   *
   * @param deliveries no two for the same endpoint and event, nor two overrides of one event
   * @return the new delivery's id at each position of {@code deliveries}; null where one existed
   */
  public List<Long> insertDeliveries(
      Connection connection, List<NewDelivery> deliveries, Instant now) throws SQLException {
    int n = deliveries.size();
    List<Long> created = new ArrayList<>(Collections.nCopies(n, (Long) null));
    if (n == 0) {
      return created;
    }
    Map<Unique, Integer> positions = new HashMap<>();
    String[] merchants = new String[n];
    String[] environments = new String[n];
    String[] endpointIds = new String[n];
    String[] overrideUrls = new String[n];
    String[] targets = new String[n];
    String[] eventIds = new String[n];
    String[] eventTypes = new String[n];
    Long[] leaseTokens = new Long[n];
    for (int i = 0; i < n; i++) {
      NewDelivery delivery = deliveries.get(i);
      if (positions.put(delivery.unique(), i) != null) {
        throw new IllegalArgumentException("two deliveries of one kind for " + delivery);
      }
      merchants[i] = delivery.merchantId();
      environments[i] = delivery.environment();
      endpointIds[i] = delivery.endpointId();
      overrideUrls[i] = delivery.overrideUrl();
      targets[i] = delivery.target();
      eventIds[i] = delivery.eventId();
      eventTypes[i] = delivery.eventType();
      leaseTokens[i] = delivery.leaseToken();
    }
    // No conflict target: an endpoint's delivery conflicts on (endpoint_id, event_id), an
    // override's on its event_id; each has its partial unique index, and only those can conflict.
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO webhook_deliveries (merchant_id, environment, endpoint_id, override_url,"
                + " target, event_id, event_type, status, next_attempt_at, lease_token,"
                + " created_at)"
                + " SELECT merchant_id, environment, endpoint_id, override_url, target, event_id,"
                + " event_type, 'pending',"
                + " CASE WHEN lease_token IS NULL THEN ?::timestamptz ELSE ?::timestamptz END,"
                + " lease_token, ?::timestamptz"
                + " FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],"
                + " ?::text[], ?::bigint[]) WITH ORDINALITY AS d (merchant_id, environment,"
                + " endpoint_id, override_url, target, event_id, event_type, lease_token, position)"
                + " ORDER BY position"
                + " ON CONFLICT DO NOTHING"
                + " RETURNING id, endpoint_id, event_id")) {
      Timestamp at = Timestamp.from(now);
      insert.setTimestamp(1, at);
      insert.setTimestamp(2, Timestamp.from(now.plus(settings.lease())));
      insert.setTimestamp(3, at);
      insert.setArray(4, connection.createArrayOf("text", merchants));
      insert.setArray(5, connection.createArrayOf("text", environments));
      insert.setArray(6, connection.createArrayOf("text", endpointIds));
      insert.setArray(7, connection.createArrayOf("text", overrideUrls));
      insert.setArray(8, connection.createArrayOf("text", targets));
      insert.setArray(9, connection.createArrayOf("text", eventIds));
      insert.setArray(10, connection.createArrayOf("text", eventTypes));
      insert.setArray(11, connection.createArrayOf("bigint", leaseTokens));
      try (ResultSet rs = insert.executeQuery()) {
        while (rs.next()) {
          created.set(positions.get(new Unique(rs.getString(2), rs.getString(3))), rs.getLong(1));
        }
      }
    }
    return created;
  }

  /**
   * Wakes every scheduler listening, when (and only if) the caller's transaction commits: a
   * delivery became due. PostgreSQL serialises the commits of notifying transactions server-wide,
   * so a transaction that made nothing due for a claim does not notify.
   */
  public void notifySchedulers(Connection connection) throws SQLException {
    try (PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, '')")) {
      notify.setString(1, CHANNEL);
      notify.execute();
    }
  }

  // ------------------------------------------------------------------ claiming and recording

  /**
   * The due deliveries of the targets not at their limit, oldest due first. {@code heads} walks the
   * targets that have pending deliveries, one descent of {@code webhook_deliveries_target_due_idx}
   * each, with each target's earliest; only the targets due and not busy are read further, at most
   * as many rows each as a target may run at once. A target at its limit with thousands due costs
   * one descent, where reading all due deliveries in order and passing over its own cost all of
   * them, on every claim.
   */
  private static final String CLAIM_CANDIDATES =
      "WITH RECURSIVE heads (target, next_attempt_at) AS ("
          + " (SELECT target, next_attempt_at FROM webhook_deliveries WHERE status = 'pending'"
          + " ORDER BY target, next_attempt_at LIMIT 1)"
          + " UNION ALL SELECT n.target, n.next_attempt_at FROM heads h CROSS JOIN LATERAL"
          + " (SELECT target, next_attempt_at FROM webhook_deliveries"
          + " WHERE status = 'pending' AND target > h.target"
          + " ORDER BY target, next_attempt_at LIMIT 1) n)"
          + " SELECT d.id, d.target FROM heads h CROSS JOIN LATERAL"
          + " (SELECT id, target, next_attempt_at FROM webhook_deliveries"
          + " WHERE status = 'pending' AND target = h.target AND next_attempt_at <= ?"
          + " ORDER BY next_attempt_at, id LIMIT ?) d"
          + " WHERE h.next_attempt_at <= ? AND NOT (h.target = ANY (?))"
          + " ORDER BY d.next_attempt_at, d.id LIMIT ?";

  /** A claimed delivery: run it, then record under {@code leaseToken}. */
  public record Claim(long id, String target, long leaseToken) {}

  /**
   * Claims due deliveries, oldest due first, for at most {@code capacity} attempts, each on a slot
   * reserved from {@code slots} as it is chosen: a target that has no free slot (a slow or dead
   * receiver holding its own) is skipped, so it never delays the others. The slot of a delivery
   * chosen but not leased (another instance took it meanwhile) is given back.
   *
   * @param busyTargets targets known to have no free slot, left out of the read
   */
  public List<Claim> claim(
      Connection connection,
      Instant now,
      int capacity,
      List<String> busyTargets,
      Reservations slots)
      throws SQLException {
    Transactions.requireTransaction(connection);
    List<Long> ids = new ArrayList<>();
    List<String> targets = new ArrayList<>();
    // Candidates are read without locks: a FOR UPDATE here would lock (and write a WAL record for)
    // every row read, some only to be passed over for targets that reach their limit meanwhile.
    try (PreparedStatement select = Statements.plannedEachTime(connection, CLAIM_CANDIDATES)) {
      Timestamp due = Timestamp.from(now);
      select.setTimestamp(1, due);
      select.setInt(2, Math.min(capacity, settings.perTarget())); // no target takes more
      select.setTimestamp(3, due);
      select.setArray(4, connection.createArrayOf("text", busyTargets.toArray()));
      select.setInt(5, Math.min(capacity * 4, 1000));
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next() && ids.size() < capacity) {
          String target = rs.getString(2);
          if (slots.reserve(target)) {
            ids.add(rs.getLong(1));
            targets.add(target);
          }
        }
      }
    }
    if (ids.isEmpty()) {
      return List.of();
    }
    // Then only the chosen rows are leased, each still due and unlocked: one that another instance
    // claimed since (now leased into the future) or is claiming (locked) is left to it.
    long token = ThreadLocalRandom.current().nextLong();
    Map<Long, String> targetOf = new HashMap<>();
    for (int i = 0; i < ids.size(); i++) {
      targetOf.put(ids.get(i), targets.get(i));
    }
    List<Long> chosen = lockStillDue(connection, ids, now);
    if (!chosen.isEmpty()) {
      try (PreparedStatement lease =
          Statements.plannedEachTime(
              connection,
              "UPDATE webhook_deliveries SET next_attempt_at = ?, lease_token = ?"
                  + " WHERE id = ANY (?)")) {
        lease.setTimestamp(1, Timestamp.from(now.plus(settings.lease())));
        lease.setLong(2, token);
        lease.setArray(3, connection.createArrayOf("bigint", chosen.toArray(Long[]::new)));
        lease.executeUpdate();
      }
    }
    for (long id : ids) {
      if (!chosen.contains(id)) {
        slots.giveBack(targetOf.get(id));
      }
    }
    // In the order they were chosen (oldest due first).
    chosen.sort(Comparator.comparingInt(ids::indexOf));
    List<Claim> claims = new ArrayList<>(chosen.size());
    for (long id : chosen) {
      claims.add(new Claim(id, targetOf.get(id), token));
    }
    return claims;
  }

  /**
   * Locks those of {@code ids} that nobody else holds and keeps the ones still pending and due, in
   * id order (the order every claim locks in). The rows are found by id alone and checked after the
   * lock: with due-ness in the statement, a planner without statistics (nothing analyzes the queue
   * where autovacuum is off) guesses that {@code next_attempt_at <= ?} keeps a third of the queue
   * and reads every due row through the partial index instead of a few primary-key lookups. A row
   * locked here but no longer due (another instance leased it meanwhile) is not leased, and stays
   * locked only until this transaction ends.
   */
  private static List<Long> lockStillDue(Connection connection, List<Long> ids, Instant now)
      throws SQLException {
    List<Long> due = new ArrayList<>(ids.size());
    try (PreparedStatement lock =
        Statements.plannedEachTime(
            connection,
            "SELECT id, status, next_attempt_at FROM webhook_deliveries WHERE id = ANY (?)"
                + " ORDER BY id FOR UPDATE SKIP LOCKED")) {
      lock.setArray(1, connection.createArrayOf("bigint", ids.toArray(Long[]::new)));
      try (ResultSet rs = lock.executeQuery()) {
        while (rs.next()) {
          Timestamp nextAttemptAt = rs.getTimestamp(3);
          if (DeliveryStatus.PENDING.wire().equals(rs.getString(2))
              && nextAttemptAt != null
              && !nextAttemptAt.toInstant().isAfter(now)) {
            due.add(rs.getLong(1));
          }
        }
      }
    }
    return due;
  }

  /**
   * What an attempt needs: the delivery, its event bytes and where it goes.
   *
   * @param traceparent the trace the event arrived in (null: none), which its attempts join
   * @param requestId the request that caused the event (null: none), for the attempt's logs
   */
  public record Work(
      long id,
      String merchantId,
      String environment,
      String endpointId,
      String overrideUrl,
      String eventId,
      String eventType,
      byte[] body,
      DeliveryStatus status,
      Long leaseToken,
      String traceparent,
      String requestId) {}

  /** The work of several deliveries in one read, by delivery id (missing ones left out). */
  public Map<Long, Work> works(Connection connection, List<Long> ids) throws SQLException {
    Map<Long, Work> works = new HashMap<>();
    try (PreparedStatement select =
        Statements.plannedEachTime(
            connection,
            "SELECT d.id, d.merchant_id, d.environment, d.endpoint_id, d.override_url, d.event_id,"
                + " d.event_type, v.body, d.status, d.lease_token, v.traceparent, v.request_id"
                + " FROM webhook_deliveries d"
                + " JOIN webhook_events v ON v.id = d.event_id WHERE d.id = ANY (?)")) {
      select.setArray(1, connection.createArrayOf("bigint", ids.toArray(Long[]::new)));
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          long lease = rs.getLong("lease_token");
          Work work =
              new Work(
                  rs.getLong("id"),
                  rs.getString("merchant_id"),
                  rs.getString("environment"),
                  rs.getString("endpoint_id"),
                  rs.getString("override_url"),
                  rs.getString("event_id"),
                  rs.getString("event_type"),
                  rs.getBytes("body"),
                  DeliveryStatus.fromWire(rs.getString("status")),
                  rs.wasNull() ? null : lease,
                  rs.getString("traceparent"),
                  rs.getString("request_id"));
          works.put(work.id(), work);
        }
      }
    }
    return works;
  }

  /** What became of a delivery after an attempt was recorded. */
  public record Recorded(
      DeliveryStatus status, int attemptNumber, Instant nextAttemptAt, boolean claimCurrent) {}

  /** An attempt that has happened, to be recorded under the claim it ran on. */
  public record Finished(
      long deliveryId, long leaseToken, String url, Instant attemptedAt, AttemptOutcome outcome) {}

  /**
   * Records attempts in the caller's transaction and decides what follows each, as if one by one in
   * list order: succeeded on a 2xx; otherwise the next retry of the schedule (with jitter, later if
   * the receiver asked for it with {@code Retry-After}), or failed when none is left. An attempt is
   * always recorded, since it happened; its delivery's state changes only if the claim is still
   * current (a delivery deleted, replayed or re-claimed meanwhile is left as it is).
   *
   * <p>The common case, a success under a current claim, is one statement for all of them ({@link
   * #recordSuccessesUnderClaim}); every other attempt takes the general path on its own.
   *
   * @return what became of each delivery, in the order of {@code attempts}
   */
  public List<Recorded> recordAll(Connection connection, List<Finished> attempts, Instant now)
      throws SQLException {
    Transactions.requireTransaction(connection);
    Map<ClaimKey, Integer> succeeded =
        recordSuccessesUnderClaim(
            connection,
            attempts.stream().filter(attempt -> attempt.outcome().succeeded()).toList(),
            now);
    List<Recorded> recorded = new ArrayList<>(attempts.size());
    for (Finished attempt : attempts) {
      Integer attemptNumber =
          attempt.outcome().succeeded()
              ? succeeded.remove(new ClaimKey(attempt.deliveryId(), attempt.leaseToken()))
              : null;
      recorded.add(
          attemptNumber != null
              ? new Recorded(DeliveryStatus.SUCCEEDED, attemptNumber, null, true)
              : recordOne(connection, attempt, now));
    }
    return recorded;
  }

  private record ClaimKey(long deliveryId, long leaseToken) {}

  /** {@link #recordAll}'s general path for one attempt. */
  private Recorded recordOne(Connection connection, Finished attempt, Instant now)
      throws SQLException {
    long id = attempt.deliveryId();
    long leaseToken = attempt.leaseToken();
    String url = attempt.url();
    Instant attemptedAt = attempt.attemptedAt();
    AttemptOutcome outcome = attempt.outcome();
    DeliveryStatus status;
    int attempts;
    int retriesUsed;
    Long currentToken;
    try (PreparedStatement select =
        Statements.plannedEachTime(
            connection,
            "SELECT status, attempt_count, retries_used, lease_token FROM webhook_deliveries"
                + " WHERE id = ? FOR UPDATE")) {
      select.setLong(1, id);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("delivery " + id + " vanished");
        }
        status = DeliveryStatus.fromWire(rs.getString(1));
        attempts = rs.getInt(2);
        retriesUsed = rs.getInt(3);
        long token = rs.getLong(4);
        currentToken = rs.wasNull() ? null : token;
      }
    }
    int attemptNumber = attempts + 1;
    insertAttempt(connection, id, attemptNumber, url, attemptedAt, outcome);

    boolean current =
        status == DeliveryStatus.PENDING && currentToken != null && currentToken == leaseToken;
    if (!current) {
      try (PreparedStatement update =
          Statements.plannedEachTime(
              connection,
              "UPDATE webhook_deliveries SET attempt_count = ?, last_status_code = ?,"
                  + " last_error = ?, last_attempt_at = ? WHERE id = ?")) {
        update.setInt(1, attemptNumber);
        setInteger(update, 2, outcome.statusCode());
        update.setString(3, outcome.error());
        update.setTimestamp(4, Timestamp.from(attemptedAt));
        update.setLong(5, id);
        update.executeUpdate();
      }
      return new Recorded(status, attemptNumber, null, false);
    }

    DeliveryStatus next;
    Instant nextAttemptAt = null;
    int nextRetries = retriesUsed;
    if (outcome.succeeded()) {
      next = DeliveryStatus.SUCCEEDED;
    } else {
      Optional<Duration> wait =
          settings
              .retrySchedule()
              .next(retriesUsed, settings.retryJitter(), ThreadLocalRandom.current()::nextDouble);
      if (wait.isPresent()) {
        next = DeliveryStatus.PENDING;
        Duration delay = wait.get();
        if (outcome.retryAfter() != null && outcome.retryAfter().compareTo(delay) > 0) {
          // Honour the receiver's Retry-After, but never beyond the schedule's longest step.
          Duration longest = settings.retrySchedule().longest();
          delay = outcome.retryAfter().compareTo(longest) > 0 ? longest : outcome.retryAfter();
        }
        nextAttemptAt = now.plus(delay);
        nextRetries = retriesUsed + 1;
      } else {
        next = DeliveryStatus.FAILED;
      }
    }
    try (PreparedStatement update =
        Statements.plannedEachTime(
            connection,
            "UPDATE webhook_deliveries SET status = ?, attempt_count = ?, retries_used = ?,"
                + " next_attempt_at = ?, lease_token = NULL, last_status_code = ?,"
                + " last_error = ?, last_attempt_at = ?, completed_at = ? WHERE id = ?")) {
      update.setString(1, next.wire());
      update.setInt(2, attemptNumber);
      update.setInt(3, nextRetries);
      update.setTimestamp(4, nextAttemptAt == null ? null : Timestamp.from(nextAttemptAt));
      setInteger(update, 5, outcome.statusCode());
      update.setString(6, outcome.error());
      update.setTimestamp(7, Timestamp.from(attemptedAt));
      update.setTimestamp(8, next == DeliveryStatus.PENDING ? null : Timestamp.from(now));
      update.setLong(9, id);
      update.executeUpdate();
    }
    return new Recorded(next, attemptNumber, nextAttemptAt, true);
  }

  /**
   * Ends a claimed delivery as failed without an attempt, because its endpoint was disabled or
   * deleted meanwhile.
   */
  public void failClaimed(
      Connection connection, long id, long leaseToken, String reason, Instant now)
      throws SQLException {
    try (PreparedStatement update =
        Statements.plannedEachTime(
            connection,
            "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL,"
                + " lease_token = NULL, last_error = ?, completed_at = ?"
                + " WHERE id = ? AND status = 'pending' AND lease_token = ?")) {
      update.setString(1, reason);
      update.setTimestamp(2, Timestamp.from(now));
      update.setLong(3, id);
      update.setLong(4, leaseToken);
      update.executeUpdate();
    }
  }

  /** Ends every pending delivery of an endpoint as failed (the endpoint is being deleted). */
  public int failPendingOfEndpoint(
      Connection connection, String endpointId, String reason, Instant now) throws SQLException {
    try (PreparedStatement update =
        Statements.plannedEachTime(
            connection,
            "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL,"
                + " lease_token = NULL, last_error = ?, completed_at = ?"
                + " WHERE endpoint_id = ? AND status = 'pending'")) {
      update.setString(1, reason);
      update.setTimestamp(2, Timestamp.from(now));
      update.setString(3, endpointId);
      return update.executeUpdate();
    }
  }

  /**
   * Makes a failed delivery pending again, due now, with a fresh retry schedule. Same delivery id,
   * so receivers de-duplicating on {@code X-Service-Delivery} see it as the same delivery.
   *
   * @return false when the delivery is not failed (nothing changed)
   */
  public boolean replay(Connection connection, long id, Instant now) throws SQLException {
    try (PreparedStatement update =
        Statements.plannedEachTime(
            connection,
            "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?,"
                + " retries_used = 0, lease_token = NULL, completed_at = NULL"
                + " WHERE id = ? AND status = 'failed'")) {
      update.setTimestamp(1, Timestamp.from(now));
      update.setLong(2, id);
      return update.executeUpdate() == 1;
    }
  }

  /** The soonest {@code next_attempt_at} of a pending delivery, leased ones included. */
  public Optional<Instant> nextDue(Connection connection) throws SQLException {
    try (PreparedStatement select =
            Statements.plannedEachTime(
                connection,
                "SELECT min(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending'");
        ResultSet rs = select.executeQuery()) {
      rs.next();
      Timestamp due = rs.getTimestamp(1);
      return due == null ? Optional.empty() : Optional.of(due.toInstant());
    }
  }

  /**
   * The common case in one statement: the successful attempts whose claim is still current end
   * their deliveries as succeeded and are logged. The others (replayed, deleted or re-claimed
   * meanwhile) are left out; {@link #recordAll} takes the general path for them.
   *
   * @return the attempt number of each attempt recorded here, by its claim
   */
  private static Map<ClaimKey, Integer> recordSuccessesUnderClaim(
      Connection connection, List<Finished> successes, Instant now) throws SQLException {
    Map<ClaimKey, Integer> recorded = new HashMap<>();
    if (successes.isEmpty()) {
      return recorded;
    }
    int n = successes.size();
    Long[] ids = new Long[n];
    Long[] tokens = new Long[n];
    String[] attemptedAt = new String[n];
    String[] urls = new String[n];
    Integer[] statusCodes = new Integer[n];
    Integer[] latencies = new Integer[n];
    String[] snippets = new String[n];
    for (int i = 0; i < n; i++) {
      Finished attempt = successes.get(i);
      ids[i] = attempt.deliveryId();
      tokens[i] = attempt.leaseToken();
      attemptedAt[i] = attempt.attemptedAt().toString();
      urls[i] = attempt.url();
      statusCodes[i] = attempt.outcome().statusCode();
      latencies[i] = (int) Math.min(Integer.MAX_VALUE, attempt.outcome().latencyMillis());
      snippets[i] = attempt.outcome().responseSnippet();
    }
    try (PreparedStatement succeed =
        Statements.plannedEachTime(
            connection,
            "WITH finished AS (SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::timestamptz[],"
                + " ?::text[], ?::int[], ?::int[], ?::text[]) AS f(delivery_id, lease_token,"
                + " attempted_at, url, status_code, latency_ms, snippet)),"
                + " ended AS (UPDATE webhook_deliveries d SET status = 'succeeded',"
                + " attempt_count = d.attempt_count + 1, next_attempt_at = NULL,"
                + " lease_token = NULL, last_status_code = f.status_code, last_error = NULL,"
                + " last_attempt_at = f.attempted_at, completed_at = ? FROM finished f"
                + " WHERE d.id = f.delivery_id AND d.status = 'pending'"
                + " AND d.lease_token = f.lease_token"
                + " RETURNING d.id, f.lease_token, d.attempt_count, f.attempted_at, f.url,"
                + " f.status_code, f.latency_ms, f.snippet),"
                + " logged AS (INSERT INTO webhook_attempts (delivery_id, attempt_number,"
                + " attempted_at, url, status_code, latency_ms, error, response_snippet)"
                + " SELECT id, attempt_count, attempted_at, url, status_code, latency_ms, NULL,"
                + " snippet FROM ended)"
                + " SELECT id, lease_token, attempt_count FROM ended")) {
      succeed.setArray(1, connection.createArrayOf("int8", ids));
      succeed.setArray(2, connection.createArrayOf("int8", tokens));
      succeed.setArray(3, connection.createArrayOf("text", attemptedAt));
      succeed.setArray(4, connection.createArrayOf("text", urls));
      succeed.setArray(5, connection.createArrayOf("int4", statusCodes));
      succeed.setArray(6, connection.createArrayOf("int4", latencies));
      succeed.setArray(7, connection.createArrayOf("text", snippets));
      succeed.setTimestamp(8, Timestamp.from(now));
      try (ResultSet rs = succeed.executeQuery()) {
        while (rs.next()) {
          recorded.put(new ClaimKey(rs.getLong(1), rs.getLong(2)), rs.getInt(3));
        }
      }
    }
    return recorded;
  }

  private static void insertAttempt(
      Connection connection,
      long deliveryId,
      int attemptNumber,
      String url,
      Instant attemptedAt,
      AttemptOutcome outcome)
      throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO webhook_attempts (delivery_id, attempt_number, attempted_at, url,"
                + " status_code, latency_ms, error, response_snippet)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
      insert.setLong(1, deliveryId);
      insert.setInt(2, attemptNumber);
      insert.setTimestamp(3, Timestamp.from(attemptedAt));
      insert.setString(4, url);
      setInteger(insert, 5, outcome.statusCode());
      insert.setInt(6, (int) Math.min(Integer.MAX_VALUE, outcome.latencyMillis()));
      insert.setString(7, outcome.error());
      insert.setString(8, outcome.responseSnippet());
      insert.executeUpdate();
    }
  }

  // ------------------------------------------------------------------ reading

  /** The delivery, whoever it belongs to. */
  public Optional<DeliveryView> find(Connection connection, long id) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(VIEW + " WHERE d.id = ?")) {
      select.setLong(1, id);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next() ? Optional.of(view(rs)) : Optional.empty();
      }
    }
  }

  /** An endpoint's deliveries in id order after {@code afterId}; at most {@code limit}. */
  public List<DeliveryView> forEndpoint(
      Connection connection, String endpointId, DeliveryStatus status, long afterId, int limit)
      throws SQLException {
    List<DeliveryView> views = new ArrayList<>();
    try (PreparedStatement select =
        connection.prepareStatement(
            VIEW
                + " WHERE d.endpoint_id = ? AND d.id > ?"
                + (status == null ? "" : " AND d.status = ?")
                + " ORDER BY d.id LIMIT ?")) {
      int i = 1;
      select.setString(i++, endpointId);
      select.setLong(i++, afterId);
      if (status != null) {
        select.setString(i++, status.wire());
      }
      select.setInt(i, limit);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          views.add(view(rs));
        }
      }
    }
    return views;
  }

  /** A delivery's attempts in order after attempt id {@code afterId}; at most {@code limit}. */
  public List<AttemptView> attempts(Connection connection, long deliveryId, long afterId, int limit)
      throws SQLException {
    List<AttemptView> attempts = new ArrayList<>();
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT id, delivery_id, attempt_number, url, attempted_at, status_code, latency_ms,"
                + " error, response_snippet FROM webhook_attempts WHERE delivery_id = ? AND id > ?"
                + " ORDER BY id LIMIT ?")) {
      select.setLong(1, deliveryId);
      select.setLong(2, afterId);
      select.setInt(3, limit);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          int code = rs.getInt("status_code");
          Integer statusCode = rs.wasNull() ? null : code;
          attempts.add(
              new AttemptView(
                  rs.getLong("id"),
                  rs.getLong("delivery_id"),
                  rs.getInt("attempt_number"),
                  rs.getString("url"),
                  rs.getTimestamp("attempted_at").toInstant(),
                  statusCode,
                  rs.getLong("latency_ms"),
                  rs.getString("error"),
                  rs.getString("response_snippet")));
        }
      }
    }
    return attempts;
  }

  // ------------------------------------------------------------------ retention

  /** What a purge removed. */
  public record Purged(int attempts, int deliveries) {}

  /**
   * Deletes attempts made before {@code cutoff}, and finished deliveries completed before it (their
   * attempts are all older). Pending deliveries and events are kept. Works in batches, each its own
   * short statement, so a large backlog never holds locks for long.
   */
  public Purged purge(Transactions transactions, Instant cutoff, int batch) {
    int attempts = 0;
    int deliveries = 0;
    Timestamp before = Timestamp.from(cutoff);
    int removed;
    do {
      removed =
          transactions.inTransaction(
              c -> {
                try (PreparedStatement delete =
                    c.prepareStatement(
                        "DELETE FROM webhook_attempts WHERE id IN (SELECT id FROM webhook_attempts"
                            + " WHERE attempted_at < ? ORDER BY attempted_at LIMIT ?)")) {
                  delete.setTimestamp(1, before);
                  delete.setInt(2, batch);
                  return delete.executeUpdate();
                }
              });
      attempts += removed;
    } while (removed == batch);
    do {
      removed =
          transactions.inTransaction(
              c -> {
                try (PreparedStatement delete =
                    c.prepareStatement(
                        "DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM"
                            + " webhook_deliveries WHERE completed_at < ? AND status <> 'pending'"
                            + " ORDER BY completed_at LIMIT ?)")) {
                  delete.setTimestamp(1, before);
                  delete.setInt(2, batch);
                  return delete.executeUpdate();
                }
              });
      deliveries += removed;
    } while (removed == batch);
    return new Purged(attempts, deliveries);
  }

  private static DeliveryView view(ResultSet rs) throws SQLException {
    int code = rs.getInt("last_status_code");
    Integer lastStatus = rs.wasNull() ? null : code;
    return new DeliveryView(
        rs.getLong("id"),
        rs.getString("merchant_id"),
        rs.getString("environment"),
        rs.getString("endpoint_id"),
        rs.getString("url"),
        rs.getString("event_id"),
        rs.getString("event_type"),
        DeliveryStatus.fromWire(rs.getString("status")),
        rs.getInt("attempt_count"),
        instant(rs.getTimestamp("next_attempt_at")),
        lastStatus,
        rs.getString("last_error"),
        instant(rs.getTimestamp("last_attempt_at")),
        rs.getTimestamp("created_at").toInstant(),
        instant(rs.getTimestamp("completed_at")));
  }

  private static Instant instant(Timestamp timestamp) {
    return timestamp == null ? null : timestamp.toInstant();
  }

  private static void setInteger(PreparedStatement statement, int index, Integer value)
      throws SQLException {
    if (value == null) {
      statement.setNull(index, java.sql.Types.INTEGER);
    } else {
      statement.setInt(index, value);
    }
  }
}
