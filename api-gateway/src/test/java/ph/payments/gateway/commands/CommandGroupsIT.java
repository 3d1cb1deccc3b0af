package ph.payments.gateway.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static ph.payments.gateway.support.Waits.awaitTrue;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
import ph.payments.contracts.commands.Command;
import ph.payments.gateway.ratelimit.DeferredRateLimit;
import ph.payments.gateway.ratelimit.RateLimitDecision;
import ph.payments.gateway.ratelimit.RateLimiter;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Sql;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.errors.ErrorCode;
import ph.payments.platform.json.Json;
import ph.payments.platform.tracing.RequestIds;
import ph.payments.platform.tx.TransactionFailedException;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.TestDatabase;

/**
 * Commands accepted at the same time share one statement and one commit ({@link
 * CommandBus#accept(Command, String)}): those that queue while a group's statement runs are written
 * together in the next one, each with its own outbox message that carries its own request's id, not
 * the id of the request whose thread wrote the group; a group that fails because of one command is
 * written again command by command, and only that one fails. Each test holds the outbox table from
 * a connection of its own, so the first group waits in the database while the others queue.
 */
@MicronautTest(transactional = false)
class CommandGroupsIT extends GatewayTest {

  private static final String COMMANDS = "test.command-groups.commands";

  @Inject CommandBus bus;
  @Inject Transactions transactions;
  @Inject MeterRegistry metrics;
  @Inject RateLimiter limiter;

  @Test
  void commandsQueuedWhileAGroupWaitedAreWrittenInOneStatementEachWithItsOwnContext()
      throws Exception {
    int others = 12;
    ExecutorService requests = Executors.newFixedThreadPool(others + 1);
    DistributionSummary groups = metrics.get("gateway.command.accept.group").summary();
    List<Command> commands = new ArrayList<>();
    List<Future<?>> accepted = new ArrayList<>();
    long groupsBefore;
    double writtenBefore;
    try (Connection blocker = outboxHeld()) {
      commands.add(command("mer_group_first"));
      accepted.add(requests.submit(() -> acceptAs("req_group_first", commands.get(0))));
      awaitTrue(this::aStatementWaitsForALock, "the first group waits for the outbox");
      groupsBefore = groups.count();
      writtenBefore = groups.totalAmount();
      for (int i = 0; i < others; i++) {
        Command command = command("mer_group_" + i);
        String requestId = "req_group_" + i;
        commands.add(command);
        accepted.add(requests.submit(() -> acceptAs(requestId, command)));
      }
      awaitTrue(() -> bus.queuedAccepts() == others, "the others queue behind the first group");
      blocker.rollback();
    }
    try {
      for (Future<?> done : accepted) {
        done.get();
      }
    } finally {
      requests.shutdownNow();
    }

    assertEquals(1, groups.count() - groupsBefore, "one group after the waiting one");
    assertEquals(others, groups.totalAmount() - writtenBefore, 0.0, "holding all the others");
    Sql sql = new Sql(transactions);
    for (int i = 0; i < commands.size(); i++) {
      String id = commands.get(i).commandId();
      String requestId = i == 0 ? "req_group_first" : "req_group_" + (i - 1);
      assertEquals(1, sql.number("SELECT count(*) FROM commands WHERE command_id = ?", id));
      assertEquals(
          requestId,
          sql.text(
              "SELECT attributes->>'" + RequestIds.ATTRIBUTE + "' FROM outbox WHERE message_id = ?",
              id),
          "the outbox message of " + id + " carries its own request's id");
      assertEquals(
          COMMANDS, sql.text("SELECT topic FROM outbox WHERE message_key = ?", id), "its topic");
    }
  }

  @Test
  void aGroupThatFailsForOneCommandIsWrittenCommandByCommand() throws Exception {
    ExecutorService requests = Executors.newFixedThreadPool(8);
    List<Command> good = new ArrayList<>();
    List<Future<?>> accepted = new ArrayList<>();
    Future<?> bad;
    try (Connection blocker = outboxHeld()) {
      Command first = command("mer_group_blocked");
      Future<?> firstAccepted = requests.submit(() -> acceptAs("req_first", first));
      awaitTrue(this::aStatementWaitsForALock, "the first group waits for the outbox");
      for (int i = 0; i < 5; i++) {
        Command command = command("mer_neighbour_" + i);
        good.add(command);
        accepted.add(requests.submit(() -> acceptAs("req_neighbour", command)));
      }
      // PostgreSQL refuses text with a NUL character: this command fails the whole statement.
      bad = requests.submit(() -> acceptAs("req_bad", command("mer_\u0000_unstorable")));
      awaitTrue(() -> bus.queuedAccepts() == 6, "all six queue behind the first group");
      blocker.rollback();
      firstAccepted.get();
    }
    try {
      for (Future<?> done : accepted) {
        done.get();
      }
      ExecutionException failed = assertThrows(ExecutionException.class, bad::get);
      assertInstanceOf(TransactionFailedException.class, failed.getCause());
    } finally {
      requests.shutdownNow();
    }
    Sql sql = new Sql(transactions);
    for (Command command : good) {
      assertEquals(
          1,
          sql.number(
              "SELECT count(*) FROM commands c JOIN outbox o ON o.message_id = c.command_id"
                  + " WHERE c.command_id = ?",
              command.commandId()));
    }
  }

  /**
   * A group that fails for one command is written command by command, each decided on its own: the
   * one whose own write then fails keeps the decision taken for it (it was counted, and the rate
   * limit's response half must not count it again), and its caller hears of the failure.
   */
  @Test
  void aCommandWhoseWriteFailsAfterItsDecisionKeepsItAndCountsOnce() throws Exception {
    RateLimiter.Request key = new RateLimiter.Request("key_groups_failing_write", 100);
    ExecutorService requests = Executors.newFixedThreadPool(8);
    List<Future<?>> good = new ArrayList<>();
    DeferredRateLimit badLimit = new DeferredRateLimit(key);
    Future<?> bad;
    try (Connection blocker = outboxHeld()) {
      Future<?> first = requests.submit(() -> acceptAs("req_first", command("mer_group_blocked")));
      awaitTrue(this::aStatementWaitsForALock, "the first group waits for the outbox");
      for (int i = 0; i < 3; i++) {
        Command command = command("mer_limited_" + i);
        good.add(requests.submit(() -> acceptLimited(command, new DeferredRateLimit(key))));
      }
      bad = requests.submit(() -> acceptLimited(command("mer_\u0000_unstorable"), badLimit));
      awaitTrue(() -> bus.queuedAccepts() == 4, "all four queue behind the first group");
      blocker.rollback();
      first.get();
    }
    try {
      for (Future<?> done : good) {
        assertInstanceOf(RateLimitDecision.Admitted.class, done.get());
      }
      ExecutionException failed = assertThrows(ExecutionException.class, bad::get);
      assertInstanceOf(TransactionFailedException.class, failed.getCause());
    } finally {
      requests.shutdownNow();
    }
    assertInstanceOf(
        RateLimitDecision.Admitted.class,
        badLimit.decision().orElse(null),
        "the failed command's decision is kept for its answer");
    assertEquals(
        100 - 5,
        limiter.request(key).remaining(),
        "three written, one failed after its decision, and this one: each counted once");
  }

  /**
   * A group with a request over its limit writes nothing, and each of its commands is then decided
   * and written on its own, committed before the next is tried. One whose own write fails there
   * fails alone: the commands written before it are answered as written (not written again), the
   * refused one is answered 429, and those after it are still written.
   */
  @Test
  void aRefusedGroupIsWrittenCommandByCommandAndAFailureThereIsOnlyItsOwn() throws Exception {
    RateLimiter.Request roomy = new RateLimiter.Request("key_groups_roomy", 100);
    RateLimiter.Request full = new RateLimiter.Request("key_groups_full", 1);
    assertInstanceOf(RateLimitDecision.Admitted.class, limiter.request(full));
    ExecutorService requests = Executors.newFixedThreadPool(8);
    Command before = command("mer_written_before");
    Command refused = command("mer_refused");
    Command after = command("mer_written_after");
    DeferredRateLimit badLimit = new DeferredRateLimit(roomy);
    List<Future<RateLimitDecision>> calls = new ArrayList<>();
    try (Connection blocker = outboxHeld()) {
      Future<?> first = requests.submit(() -> acceptAs("req_first", command("mer_group_blocked")));
      awaitTrue(this::aStatementWaitsForALock, "the first group waits for the outbox");
      // Queued one at a time, so the group keeps this order.
      calls.add(requests.submit(() -> acceptLimited(before, new DeferredRateLimit(roomy))));
      awaitTrue(() -> bus.queuedAccepts() == 1, "the first of the group queues");
      calls.add(requests.submit(() -> acceptLimited(refused, new DeferredRateLimit(full))));
      awaitTrue(() -> bus.queuedAccepts() == 2, "the refused one queues");
      calls.add(requests.submit(() -> acceptLimited(command("mer_\u0000_unstorable"), badLimit)));
      awaitTrue(() -> bus.queuedAccepts() == 3, "the failing one queues");
      calls.add(requests.submit(() -> acceptLimited(after, new DeferredRateLimit(roomy))));
      awaitTrue(() -> bus.queuedAccepts() == 4, "the last one queues");
      blocker.rollback();
      first.get();
    }
    try {
      assertInstanceOf(RateLimitDecision.Admitted.class, calls.get(0).get());
      ExecutionException overLimit = assertThrows(ExecutionException.class, calls.get(1)::get);
      ApiException answer = assertInstanceOf(ApiException.class, overLimit.getCause());
      assertEquals(ErrorCode.RATE_LIMITED, answer.code());
      ExecutionException failed = assertThrows(ExecutionException.class, calls.get(2)::get);
      assertInstanceOf(TransactionFailedException.class, failed.getCause());
      assertInstanceOf(RateLimitDecision.Admitted.class, calls.get(3).get());
    } finally {
      requests.shutdownNow();
    }
    Sql sql = new Sql(transactions);
    for (Command command : List.of(before, after)) {
      assertEquals(
          1,
          sql.number(
              "SELECT count(*) FROM commands c JOIN outbox o ON o.message_id = c.command_id"
                  + " WHERE c.command_id = ?",
              command.commandId()));
    }
    assertEquals(
        0, sql.number("SELECT count(*) FROM commands WHERE command_id = ?", refused.commandId()));
    assertInstanceOf(RateLimitDecision.Admitted.class, badLimit.decision().orElse(null));
    assertEquals(
        100 - 4,
        limiter.request(roomy).remaining(),
        "the two written, the failed one and this one: each counted once");
  }

  private RateLimitDecision acceptLimited(Command command, DeferredRateLimit rateLimit) {
    bus.accept(command, COMMANDS, rateLimit);
    return rateLimit.decision().orElseThrow();
  }

  private Void acceptAs(String requestId, Command command) {
    MDC.put(RequestIds.MDC_KEY, requestId);
    try {
      bus.accept(command, COMMANDS);
      return null;
    } finally {
      MDC.remove(RequestIds.MDC_KEY);
    }
  }

  private Command command(String merchantId) {
    return bus.prepare(
        new CommandBus.Request(
            COMMANDS,
            "test_groups.ping",
            merchantId,
            "test",
            null,
            Json.mapper().createObjectNode().put("ping", true)));
  }

  /**
   * A connection, in a transaction, that holds the outbox in {@code SHARE} mode, which every insert
   * into it waits for; closing it rolls back and lets them go.
   */
  private Connection outboxHeld() throws SQLException {
    TestDatabase database = TestDatabase.forClass(getClass());
    Connection connection =
        DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
    connection.setAutoCommit(false);
    try (PreparedStatement lock = connection.prepareStatement("LOCK TABLE outbox IN SHARE MODE")) {
      lock.execute();
    }
    return connection;
  }

  /** Whether a group's statement waits for the outbox (not, say, a relay's mark). */
  private boolean aStatementWaitsForALock() {
    TestDatabase database = TestDatabase.forClass(getClass());
    try (Connection connection =
            DriverManager.getConnection(database.jdbcUrl(), database.user(), database.password());
        PreparedStatement waiting =
            connection.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND wait_event_type = 'Lock'"
                    + " AND query LIKE 'WITH w0 AS (INSERT INTO commands%'");
        ResultSet rs = waiting.executeQuery()) {
      rs.next();
      return rs.getInt(1) > 0;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
