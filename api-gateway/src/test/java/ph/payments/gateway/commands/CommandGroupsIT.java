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
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Sql;
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
