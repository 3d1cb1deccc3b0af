package ph.payments.gateway.commands;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.Topics;
import ph.payments.contracts.commands.Command;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Sql;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.KafkaSettings;
import ph.payments.platform.tx.TransactionFailedException;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.TestKafka;

/**
 * The durable reply recorder takes a poll's replies in one statement: a burst of replies is
 * recorded in the command log and completes the idempotency records that admitted the commands,
 * each command keeps its first reply (a second, different one and a redelivery change nothing), and
 * a command nobody admitted under a key is recorded all the same. The test plays the command owner:
 * it writes commands through the bus (to a topic nobody reads) and sends their replies on the reply
 * topic itself, as an owner's outbox would.
 */
@MicronautTest(transactional = false)
class ReplyRecorderIT extends GatewayTest {

  private static final String COMMANDS = "test.reply-recorder.commands";
  private static final int BURST = 40;

  @Inject CommandBus bus;
  @Inject Transactions transactions;
  @Inject List<ReplyHook> hooks;

  private KafkaProducer<String, byte[]> producer;

  @BeforeAll
  void startProducer() {
    TestKafka.createTopics(3, COMMANDS, Topics.COMMAND_REPLIES);
    producer =
        new KafkaProducer<>(
            KafkaSettings.producer(TestKafka.bootstrapServers(), "reply-recorder-it"));
  }

  @AfterAll
  void stopProducer() {
    producer.close();
  }

  @Test
  void aBurstOfRepliesIsRecordedOnceEachWithItsIdempotencyRecords() throws Exception {
    List<Command> commands = new ArrayList<>();
    for (int i = 0; i < BURST; i++) {
      Command command = command();
      bus.accept(command, COMMANDS);
      // Every other command was admitted under an Idempotency-Key.
      if (i % 2 == 0) {
        admitUnderKey(command, "recorder-" + command.commandId());
      }
      commands.add(command);
    }
    Command first = commands.get(0);

    // All replies at once, on one partition: a few polls of the recorder take them all. The first
    // command's reply comes again right behind it (a relay's redelivery, under a new message id),
    // then a second, different one; a last reply marks the end of the burst.
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    for (int i = 0; i < BURST; i++) {
      sent.add(send(commands.get(i).commandId(), 201, i));
      if (i == 0) {
        sent.add(send(first.commandId(), 201, 0));
        sent.add(send(first.commandId(), 500, -1));
      }
    }
    Command last = command();
    bus.accept(last, COMMANDS);
    sent.add(send(last.commandId(), 201, BURST));
    for (Future<RecordMetadata> future : sent) {
      future.get(10, TimeUnit.SECONDS);
    }

    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                sql()
                        .text(
                            "SELECT replied_at::text FROM commands WHERE command_id = ?",
                            last.commandId())
                    != null);

    for (int i = 0; i < BURST; i++) {
      String commandId = commands.get(i).commandId();
      assertEquals(
          201,
          sql().number("SELECT reply_status FROM commands WHERE command_id = ?", commandId),
          "the first reply is kept for " + commandId);
      assertEquals(
          i,
          sql()
              .number(
                  "SELECT (reply_body->>'n')::int FROM commands WHERE command_id = ?", commandId));
      if (i % 2 == 0) {
        assertEquals(
            "completed",
            sql().text("SELECT status FROM idempotency_keys WHERE command_id = ?", commandId));
        assertEquals(
            201,
            sql()
                .number(
                    "SELECT response_status FROM idempotency_keys WHERE command_id = ?",
                    commandId));
        assertEquals(
            sql().text("SELECT reply_body::text FROM commands WHERE command_id = ?", commandId),
            sql()
                .text(
                    "SELECT response_body::text FROM idempotency_keys WHERE command_id = ?",
                    commandId),
            "the record stores the very bytes of the command log");
      }
    }
  }

  @Test
  void aPollsRepliesAndWhatTheHooksDoCommitTogetherOrNotAtAll() {
    Command command = command();
    bus.accept(command, COMMANDS);
    admitUnderKey(command, "recorder-whole-" + command.commandId());
    List<ReplyHook.Reply> replies = List.of(new ReplyHook.Reply(command.commandId(), 201, "{}"));
    // A hook that fails at run time, in the statement with the log's and the other hooks' parts.
    ReplyHook failing =
        () ->
            "UPDATE idempotency_keys k SET response_status = 1 / (replies.status - replies.status)"
                + " FROM replies WHERE k.command_id = replies.command_id";
    List<ReplyHook> withFailing = new ArrayList<>(hooks);
    withFailing.add(failing);

    assertThrows(
        TransactionFailedException.class,
        () ->
            transactions.autoCommitted(
                c -> {
                  CommandLog.recordReplies(
                      c, CommandLog.replyRecording(withFailing), replies, Instant.now());
                  return null;
                }));
    assertNull(
        sql()
            .text(
                "SELECT replied_at::text FROM commands WHERE command_id = ?", command.commandId()),
        "nothing of a failed recording is kept");
    assertEquals(
        "in_progress",
        sql()
            .text("SELECT status FROM idempotency_keys WHERE command_id = ?", command.commandId()));

    transactions.autoCommitted(
        c -> {
          CommandLog.recordReplies(c, CommandLog.replyRecording(hooks), replies, Instant.now());
          return null;
        });
    assertEquals(
        201,
        sql()
            .number("SELECT reply_status FROM commands WHERE command_id = ?", command.commandId()));
    assertEquals(
        "completed",
        sql()
            .text("SELECT status FROM idempotency_keys WHERE command_id = ?", command.commandId()));
  }

  private Command command() {
    return bus.prepare(
        new CommandBus.Request(
            COMMANDS,
            "test_recorder.ping",
            "mer_recorder",
            "test",
            null,
            Json.mapper().createObjectNode().put("ping", true)));
  }

  /** An idempotency record in progress for {@code command}, as a keyed request leaves it. */
  private void admitUnderKey(Command command, String key) {
    transactions.inTransaction(
        connection -> {
          try (PreparedStatement insert =
              connection.prepareStatement(
                  "INSERT INTO idempotency_keys (merchant_id, environment, idempotency_key,"
                      + " route, fingerprint, command_id, status, locked_until, created_at)"
                      + " VALUES (?, 'test', ?, 'POST /v1/test', 'f', ?, 'in_progress', ?, ?)")) {
            insert.setString(1, command.merchantId());
            insert.setString(2, key);
            insert.setString(3, command.commandId());
            insert.setTimestamp(4, Timestamp.from(Instant.now().plusSeconds(10)));
            insert.setTimestamp(5, Timestamp.from(Instant.now()));
            insert.executeUpdate();
          }
          return null;
        });
  }

  /** Sends a reply to {@code commandId} as an owner's outbox would, to partition 0. */
  private Future<RecordMetadata> send(String commandId, int status, int n) {
    return producer.send(
        ReplyRecords.reply(
            Topics.COMMAND_REPLIES,
            0,
            commandId,
            status,
            Json.mapper().createObjectNode().put("n", n)));
  }

  private Sql sql() {
    return new Sql(transactions);
  }
}
