package ph.payments.webhooks.deliveries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import ph.payments.testkit.TestDatabase;
import ph.payments.webhooks.support.QueuedDeliveries;
import ph.payments.webhooks.support.WebhookServiceTest;

/**
 * Finished attempts are recorded in batches ({@link AttemptRecorder}, {@link
 * JdbcDeliveries#recordAll}); each must come out exactly as if recorded alone: a success under a
 * current claim ends its delivery, one whose claim moved on is logged and changes nothing else, a
 * failure schedules the next retry, and one attempt that cannot be recorded does not take its
 * batch-mates with it. The deliveries here are due in an hour, so the service's own scheduler
 * leaves them alone; their claims are written directly (lease token = id × 7).
 */
@MicronautTest(transactional = false)
class AttemptRecorderIT extends WebhookServiceTest {

  private static final AttemptOutcome OK = new AttemptOutcome(200, null, "ok", 3, null);
  private static final AttemptOutcome SERVER_ERROR =
      new AttemptOutcome(500, "HTTP 500", "down", 4, null);

  @Inject JdbcDeliveries deliveries;
  @Inject AttemptRecorder recorder;
  @Inject MeterRegistry metrics;

  @BeforeEach
  void emptyTheQueue() throws SQLException {
    try (Connection connection = database().getConnection()) {
      connection
          .createStatement()
          .execute("TRUNCATE webhook_attempts, webhook_deliveries, webhook_events");
    }
  }

  @Test
  void aMixedBatchComesOutAsEachAttemptRecordedAlone() throws Exception {
    List<Long> ids = claimed(5);
    long moved = ids.get(3);
    long failed = ids.get(4);
    try (Connection connection = database().getConnection()) {
      // Re-claimed by another instance after this attempt's lease ended.
      execute(connection, "UPDATE webhook_deliveries SET lease_token = 99 WHERE id = " + moved);
    }
    Instant attemptedAt = Instant.parse("2026-11-29T06:00:00.123456Z");
    List<JdbcDeliveries.Finished> batch = new ArrayList<>();
    for (long id : ids) {
      batch.add(finished(id, attemptedAt, id == failed ? SERVER_ERROR : OK));
    }

    List<JdbcDeliveries.Recorded> recorded =
        transactions.inTransaction(c -> deliveries.recordAll(c, batch, Instant.now()));

    for (int i = 0; i < 3; i++) {
      assertEquals(
          new JdbcDeliveries.Recorded(DeliveryStatus.SUCCEEDED, 1, null, true), recorded.get(i));
      assertEquals("succeeded 1 null 200", delivery(ids.get(i)));
    }
    assertEquals(DeliveryStatus.PENDING, recorded.get(3).status());
    assertFalse(recorded.get(3).claimCurrent());
    assertEquals("pending 1 99 200", delivery(moved), "the other claim's delivery, logged only");
    assertEquals(DeliveryStatus.PENDING, recorded.get(4).status());
    assertTrue(recorded.get(4).claimCurrent());
    assertNotNull(recorded.get(4).nextAttemptAt(), "a retry is scheduled");
    assertEquals("pending 1 null 500", delivery(failed));
    assertEquals(
        List.of(
            ids.get(0) + " 1 200 ok " + attemptedAt,
            ids.get(1) + " 1 200 ok " + attemptedAt,
            ids.get(2) + " 1 200 ok " + attemptedAt,
            moved + " 1 200 ok " + attemptedAt,
            failed + " 1 500 down " + attemptedAt),
        attempts());
  }

  /**
   * While one batch waits on a row lock, the attempts that finish meanwhile queue, and the next
   * batch records them all in one transaction.
   */
  @Test
  void attemptsThatFinishWhileABatchCommitsShareTheNextOne() throws Exception {
    List<Long> ids = claimed(11);
    double batchesBefore = batches();
    ExecutorService workers = Executors.newFixedThreadPool(ids.size());
    try (Connection holder = database().getConnection()) {
      holder.setAutoCommit(false);
      execute(holder, "SELECT 1 FROM webhook_deliveries WHERE id = " + ids.get(0) + " FOR UPDATE");
      List<Future<JdbcDeliveries.Recorded>> records = new ArrayList<>();
      records.add(workers.submit(() -> recorder.record(finished(ids.get(0), Instant.now(), OK))));
      awaitBlockedOnTheLock(); // the writer took the first
      for (long id : ids.subList(1, ids.size())) {
        records.add(workers.submit(() -> recorder.record(finished(id, Instant.now(), OK))));
      }
      awaitQueued(ids.size() - 1);
      holder.rollback();

      for (Future<JdbcDeliveries.Recorded> record : records) {
        assertEquals(DeliveryStatus.SUCCEEDED, record.get(10, TimeUnit.SECONDS).status());
      }
    } finally {
      workers.shutdownNow();
    }
    assertEquals(2, batches() - batchesBefore, "transactions for 11 attempts");
    assertEquals(11, attempts().size());
  }

  /** A delivery purged while its attempt ran fails its own record, not its batch-mates'. */
  @Test
  void anAttemptThatCannotBeRecordedFailsAloneInItsBatch() throws Exception {
    List<Long> ids = claimed(4);
    long purged = ids.get(1);
    ExecutorService workers = Executors.newFixedThreadPool(ids.size());
    try (Connection holder = database().getConnection()) {
      holder.setAutoCommit(false);
      execute(holder, "SELECT 1 FROM webhook_deliveries WHERE id = " + ids.get(0) + " FOR UPDATE");
      Future<JdbcDeliveries.Recorded> first =
          workers.submit(() -> recorder.record(finished(ids.get(0), Instant.now(), OK)));
      awaitBlockedOnTheLock();
      try (Connection connection = database().getConnection()) {
        execute(connection, "DELETE FROM webhook_deliveries WHERE id = " + purged);
      }
      List<Future<JdbcDeliveries.Recorded>> rest = new ArrayList<>();
      for (long id : ids.subList(1, ids.size())) {
        rest.add(workers.submit(() -> recorder.record(finished(id, Instant.now(), OK))));
      }
      awaitQueued(3);
      holder.rollback();

      assertEquals(DeliveryStatus.SUCCEEDED, first.get(10, TimeUnit.SECONDS).status());
      ExecutionException failure =
          assertThrows(ExecutionException.class, () -> rest.get(0).get(10, TimeUnit.SECONDS));
      assertTrue(failure.getCause().getMessage().contains("vanished"), failure.toString());
      assertEquals(DeliveryStatus.SUCCEEDED, rest.get(1).get(10, TimeUnit.SECONDS).status());
      assertEquals(DeliveryStatus.SUCCEEDED, rest.get(2).get(10, TimeUnit.SECONDS).status());
    } finally {
      workers.shutdownNow();
    }
    assertEquals(3, attempts().size());
    assertNull(deliveryOrNull(purged));
  }

  private static JdbcDeliveries.Finished finished(
      long id, Instant attemptedAt, AttemptOutcome outcome) {
    return new JdbcDeliveries.Finished(
        id, id * 7, "https://rec.example/hook", attemptedAt, outcome);
  }

  /** {@code count} pending deliveries, each claimed with lease token id × 7. */
  private List<Long> claimed(int count) throws SQLException {
    try (Connection connection = database().getConnection()) {
      List<Long> ids = QueuedDeliveries.insert(connection, "rec", count, 10, true);
      execute(connection, "UPDATE webhook_deliveries SET lease_token = id * 7");
      return ids.stream().sorted().toList();
    }
  }

  private void awaitBlockedOnTheLock() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    try (Connection connection = database().getConnection()) {
      while (true) {
        try (ResultSet rs =
            connection
                .createStatement()
                .executeQuery(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                        + " AND datname = current_database()")) {
          rs.next();
          if (rs.getInt(1) > 0) {
            return;
          }
        }
        assertTrue(System.nanoTime() < deadline, "the recorder never reached the locked row");
        Thread.sleep(5);
      }
    }
  }

  private void awaitQueued(int queued) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (recorder.queued() != queued) {
      assertTrue(System.nanoTime() < deadline, "queued: " + recorder.queued() + ", not " + queued);
      Thread.sleep(5);
    }
    Thread.sleep(50); // the writer has taken what left the queue into its transaction
  }

  private double batches() {
    return metrics.get("webhook.attempts.record.batch").summary().count();
  }

  /** status, attempt count, lease token, last status code. */
  private String delivery(long id) throws SQLException {
    String found = deliveryOrNull(id);
    assertNotNull(found, "delivery " + id);
    return found;
  }

  private String deliveryOrNull(long id) throws SQLException {
    try (Connection connection = database().getConnection();
        PreparedStatement select =
            connection.prepareStatement(
                "SELECT status, attempt_count, lease_token, last_status_code"
                    + " FROM webhook_deliveries WHERE id = ?")) {
      select.setLong(1, id);
      try (ResultSet rs = select.executeQuery()) {
        return rs.next()
            ? rs.getString(1) + " " + rs.getInt(2) + " " + rs.getObject(3) + " " + rs.getInt(4)
            : null;
      }
    }
  }

  /** delivery, attempt number, status code, snippet, attempted at. */
  private List<String> attempts() throws SQLException {
    List<String> attempts = new ArrayList<>();
    try (Connection connection = database().getConnection();
        ResultSet rs =
            connection
                .createStatement()
                .executeQuery(
                    "SELECT delivery_id, attempt_number, status_code, response_snippet,"
                        + " attempted_at FROM webhook_attempts ORDER BY delivery_id")) {
      while (rs.next()) {
        attempts.add(
            rs.getLong(1)
                + " "
                + rs.getInt(2)
                + " "
                + rs.getInt(3)
                + " "
                + rs.getString(4)
                + " "
                + rs.getTimestamp(5).toInstant());
      }
    }
    return attempts;
  }

  private javax.sql.DataSource database() {
    return TestDatabase.forClass(getClass()).dataSource();
  }

  private static void execute(Connection connection, String sql) throws SQLException {
    connection.createStatement().execute(sql);
  }
}
