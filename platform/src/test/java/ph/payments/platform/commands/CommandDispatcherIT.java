package ph.payments.platform.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.inbox.IdempotentConsumer;
import ph.payments.platform.inbox.ReadAhead;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.outbox.Fixtures;
import ph.payments.platform.outbox.OutboxWriter;
import ph.payments.platform.tx.JdbcTransactions;
import ph.payments.platform.tx.TransactionFailedException;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.CountingConnection;
import ph.payments.testkit.TestDatabase;

/**
 * A handler that leaves its last writes to the dispatcher ({@link CommandHandler#apply}): they
 * commit with the command's inbox row and its reply, or none of them does; a poll's commands share
 * one inbox statement, with their handlers' reads ahead in its round trip, and each is applied
 * once.
 */
class CommandDispatcherIT {

  private static final String TYPE = "test.leaves_writes";
  private static final String READS_AHEAD = "test.reads_ahead";

  private static TestDatabase database;
  private static Transactions transactions;
  private static CommandDispatcher dispatcher;

  @BeforeAll
  static void createDatabase() throws Exception {
    database = TestDatabase.create("command_dispatcher");
    Fixtures.applyPlatformSchema(database.dataSource());
    Fixtures.createWritesTable(database.dataSource());
    transactions = new JdbcTransactions(database.dataSource());
    Clock clock = Clock.systemUTC();
    dispatcher =
        new CommandDispatcher(
            "test-owner",
            List.of(new LeavesWrites(), new ReadsAhead()),
            new IdempotentConsumer(clock),
            new OutboxWriter(clock, "outbox_command_dispatcher"));
  }

  @AfterAll
  static void dropDatabase() {
    database.close();
  }

  /** Writes {@code <id>-own} itself and leaves {@code <id>-left} and {@code body.also}. */
  private static final class LeavesWrites implements CommandHandler {

    @Override
    public String type() {
      return TYPE;
    }

    @Override
    public CommandReply handle(Connection connection, Command command) {
      throw new AssertionError("the dispatcher applies through apply");
    }

    @Override
    public Applied apply(Connection connection, Command command) throws SQLException {
      String id = command.resourceId();
      Fixtures.insertWrite(id + "-own").execute(connection);
      return new Applied(
          CommandReplies.ok(command, 201, Json.mapper().createObjectNode().put("id", id)),
          List.of(
              Fixtures.insertWrite(id + "-left"),
              Fixtures.insertWrite(command.body().get("also").asText())));
    }
  }

  /**
   * Replies whether the row {@code body.also} names exists in {@code writes}: from its poll's read
   * ahead when there is one, else by a read of its own; {@code read_ahead} says which.
   */
  private static final class ReadsAhead implements CommandHandler {

    @Override
    public String type() {
      return READS_AHEAD;
    }

    @Override
    public CommandReply handle(Connection connection, Command command) throws SQLException {
      return reply(
          command, exists(connection, List.of(also(command))).contains(also(command)), false);
    }

    @Override
    public ReadAhead readAhead(List<Command> poll) {
      List<String> named =
          poll.stream().filter(c -> c.type().equals(READS_AHEAD)).map(ReadsAhead::also).toList();
      return named.isEmpty() ? null : new Rows(named);
    }

    @Override
    public Applied apply(Connection connection, Command command, ReadAhead readAhead)
        throws SQLException {
      if (readAhead == null) {
        return new Applied(handle(connection, command), List.of());
      }
      return new Applied(
          reply(command, ((Rows) readAhead).found.contains(also(command)), true), List.of());
    }

    private static String also(Command command) {
      return command.body().get("also").asText();
    }

    private static CommandReply reply(Command command, boolean seen, boolean readAhead) {
      return CommandReplies.ok(
          command,
          200,
          Json.mapper().createObjectNode().put("seen", seen).put("read_ahead", readAhead));
    }

    private static List<String> exists(Connection connection, List<String> ids)
        throws SQLException {
      try (PreparedStatement select = connection.prepareStatement(Rows.SQL)) {
        select.setArray(1, connection.createArrayOf("text", ids.toArray()));
        Rows rows = new Rows(ids);
        try (ResultSet rs = select.executeQuery()) {
          rows.read(rs);
        }
        return rows.found;
      }
    }

    private static final class Rows implements ReadAhead {
      static final String SQL = "SELECT id FROM writes WHERE id = ANY(?::text[])";
      final List<String> named;
      final List<String> found = new ArrayList<>();

      Rows(List<String> named) {
        this.named = named;
      }

      @Override
      public String sql() {
        return SQL;
      }

      @Override
      public int bind(PreparedStatement statement, int first) throws SQLException {
        statement.setArray(first, statement.getConnection().createArrayOf("text", named.toArray()));
        return 1;
      }

      @Override
      public void read(ResultSet rows) throws SQLException {
        while (rows.next()) {
          found.add(rows.getString(1));
        }
      }
    }
  }

  /**
   * A handler's read ahead goes to the database in the inbox statement's round trip, for the poll's
   * commands of its type only, and each of them gets what it read; a command dispatched on its own
   * reads for itself.
   */
  @Test
  void aPollsReadAheadGoesWithItsInboxStatement() throws SQLException {
    String id = "r" + System.nanoTime();
    try (Connection connection = connection()) {
      Fixtures.insertWrite(id + "-present").execute(connection);
    }
    Command present = command(READS_AHEAD, id + "-a", id + "-present");
    Command absent = command(READS_AHEAD, id + "-b", id + "-absent");
    Command other = command(id + "-c", id + "-c-also");
    List<String> statements = new ArrayList<>();

    assertEquals(3, dispatchPoll(List.of(present, other, absent), statements));

    assertEquals(
        "{\"seen\":true,\"read_ahead\":true}", reply(present.commandId()).body().toString());
    assertEquals(
        "{\"seen\":false,\"read_ahead\":true}", reply(absent.commandId()).body().toString());
    assertTrue(written(id + "-c-left"), "the other type's command applied");
    assertTrue(
        statements.get(0).startsWith("INSERT INTO inbox")
            && statements.get(0).contains(ReadsAhead.Rows.SQL),
        "the read ahead sent with the inbox statement: " + statements.get(0));
    assertEquals(
        1,
        statements.stream().filter(s -> s.contains(ReadsAhead.Rows.SQL)).count(),
        statements.toString());

    Command alone = command(READS_AHEAD, id + "-d", id + "-present");
    assertTrue(dispatch(alone));
    assertEquals(
        "{\"seen\":true,\"read_ahead\":false}", reply(alone.commandId()).body().toString());
  }

  @Test
  void theLeftWritesCommitWithTheReplyAndTheInboxRow() {
    String id = "w" + System.nanoTime();
    Command command = command(id, id + "-also");

    assertTrue(dispatch(command));

    assertTrue(written(id + "-own"));
    assertTrue(written(id + "-left"));
    assertTrue(written(id + "-also"));
    assertEquals(201, reply(command.commandId()).status());
    assertTrue(consumed(command.commandId()));
    // Delivered again, it changes nothing and sends no second reply.
    assertFalse(dispatch(command));
    assertEquals(1, replies(command.commandId()));
  }

  @Test
  void aLeftWriteThatFailsUndoesTheCommandAndItCanBeAppliedAgain() throws SQLException {
    String id = "f" + System.nanoTime();
    String taken = id + "-taken";
    try (Connection connection = connection()) {
      Fixtures.insertWrite(taken).execute(connection);
    }
    Command command = command(id, taken);

    assertThrows(TransactionFailedException.class, () -> dispatch(command));

    assertFalse(written(id + "-own"), "the handler's own write rolled back");
    assertFalse(written(id + "-left"));
    assertEquals(0, replies(command.commandId()));
    assertFalse(consumed(command.commandId()), "not consumed: the command is retried");

    try (Connection connection = connection()) {
      try (PreparedStatement delete =
          connection.prepareStatement("DELETE FROM writes WHERE id = ?")) {
        delete.setString(1, taken);
        delete.executeUpdate();
      }
    }
    assertTrue(dispatch(command));
    assertTrue(written(id + "-own"));
    assertTrue(written(id + "-left"));
    assertTrue(written(taken));
    assertEquals(1, replies(command.commandId()));
  }

  /**
   * A poll's command ids go into the inbox in one statement: twenty commands take only their own
   * statements more than one does (two each here: the handler's own write, and the left writes with
   * the reply), not an inbox insert each.
   */
  @Test
  void aPollsCommandsShareOneInboxStatement() {
    int one = statementsForPoll(1);
    int twenty = statementsForPoll(20);

    assertEquals(one + 19 * 2, twenty, "a poll of 20 against a poll of 1");
  }

  /** What a poll repeats, or an earlier poll applied, is applied and answered once. */
  @Test
  void aPollAppliesEachCommandOnce() {
    String earlier = "e" + System.nanoTime();
    Command before = command(earlier, earlier + "-also");
    assertEquals(1, dispatchPoll(List.of(before), new AtomicInteger()));
    String id = "p" + System.nanoTime();
    Command twice = command(id, id + "-also");

    assertEquals(1, dispatchPoll(List.of(twice, before, twice), new AtomicInteger()));

    assertEquals(1, replies(twice.commandId()));
    assertEquals(1, replies(before.commandId()));
    assertTrue(written(id + "-left"));
  }

  private static int statementsForPoll(int size) {
    List<Command> poll = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      String id = "s" + System.nanoTime() + "-" + i;
      poll.add(command(id, id + "-also"));
    }
    AtomicInteger statements = new AtomicInteger();
    assertEquals(size, dispatchPoll(poll, statements));
    return statements.get();
  }

  /** The commands as one poll's records, dispatched in one transaction, counting its statements. */
  private static int dispatchPoll(List<Command> commands, AtomicInteger statements) {
    return dispatchPoll(commands, connection -> CountingConnection.wrap(connection, statements));
  }

  /** The same, recording its statements' SQL. */
  private static int dispatchPoll(List<Command> commands, List<String> statements) {
    return dispatchPoll(
        commands, connection -> CountingConnection.recording(connection, statements));
  }

  private static int dispatchPoll(List<Command> commands, UnaryOperator<Connection> watched) {
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    for (Command command : commands) {
      ProducerRecord<String, byte[]> produced =
          KafkaEnvelopes.toRecord("commands", envelope(command));
      ConsumerRecord<String, byte[]> record =
          new ConsumerRecord<>("commands", 0, records.size(), produced.key(), produced.value());
      produced.headers().forEach(header -> record.headers().add(header));
      records.add(record);
    }
    return transactions.inTransaction(
        connection -> dispatcher.dispatchAll(watched.apply(connection), records));
  }

  private static Command command(String resourceId, String also) {
    return command(TYPE, resourceId, also);
  }

  private static Command command(String type, String resourceId, String also) {
    return new Command(
        "cmd_" + resourceId,
        type,
        "mer_1",
        "test",
        resourceId,
        Json.mapper().createObjectNode().put("also", also),
        Instant.now());
  }

  private static boolean dispatch(Command command) {
    return transactions.inTransaction(
        connection -> dispatcher.dispatch(connection, envelope(command)));
  }

  private static Envelope envelope(Command command) {
    return new Envelope(
        "msg_" + command.commandId(),
        "command." + command.type(),
        command.commandId(),
        Instant.now(),
        Json.toBytes(command),
        Map.of());
  }

  private static Connection connection() throws SQLException {
    return database.dataSource().getConnection();
  }

  private static boolean written(String id) {
    return count("SELECT count(*) FROM writes WHERE id = ?", id) == 1;
  }

  private static boolean consumed(String commandId) {
    return count("SELECT count(*) FROM inbox WHERE message_id = ?", commandId) == 1;
  }

  private static int replies(String commandId) {
    return count(
        "SELECT count(*) FROM outbox WHERE message_key = ? AND message_type = 'command.reply'",
        commandId);
  }

  private static CommandReply reply(String commandId) {
    return transactions.inTransaction(
        connection -> {
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT payload FROM outbox WHERE message_key = ?"
                      + " AND message_type = 'command.reply'")) {
            select.setString(1, commandId);
            try (ResultSet rs = select.executeQuery()) {
              assertTrue(rs.next());
              return Json.fromBytes(rs.getBytes(1), CommandReply.class);
            }
          }
        });
  }

  private static int count(String sql, String parameter) {
    return transactions.inTransaction(
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(sql)) {
            select.setString(1, parameter);
            try (ResultSet rs = select.executeQuery()) {
              rs.next();
              return rs.getInt(1);
            }
          }
        });
  }
}
