package ph.payments.gateway.commands;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.gateway.ratelimit.DeferredRateLimit;
import ph.payments.gateway.ratelimit.RateLimitDecision;
import ph.payments.gateway.ratelimit.RateLimiter;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.outbox.OutboxMessage;
import ph.payments.platform.outbox.OutboxWriter;
import ph.payments.platform.tracing.MessageContext;
import ph.payments.platform.tx.BatchWriter;
import ph.payments.platform.tx.Transactions;

/**
 * The gateway side of the command path, and the only place commands are written. {@link #accept}
 * writes the command row and its outbox row in one statement, or in one transaction together with
 * whatever an {@link Admission} writes first; {@link #acceptGuarded} writes them in one statement
 * with a guard that decides (a new idempotency key's claim); a {@link Waiter} then waits for the
 * owner's reply. Replies reach the waiting request through {@link #complete}, called by this
 * instance's reply recorder for the partitions it owns and by its {@link ReplyWaker} for the
 * others; a reply that arrives after the deadline is still recorded in the command log, where a
 * retry finds it.
 */
@Singleton
public class CommandBus {

  /** How often a wait for another request's command looks into the command log. */
  static final Duration LOG_POLL = Duration.ofMillis(250);

  /** The most commands written in one statement ({@link #accept(Command, String)}). */
  static final int MAX_GROUP = 64;

  /** Retry-After of a 503 (or a 202) for a command whose outcome is not known yet. */
  public static final Duration RETRY_AFTER = Duration.ofSeconds(1);

  private final Transactions transactions;
  private final OutboxWriter outbox;
  private final Clock clock;
  private final Duration replyTimeout;
  private final Map<String, List<CompletableFuture<CommandReply>>> waiting =
      new ConcurrentHashMap<>();
  private final Timer replied;
  private final Timer late;
  private final RateLimiter limiter;
  private final BatchWriter<Accepted, Written> accepting;

  public CommandBus(
      Transactions transactions,
      OutboxWriter outbox,
      RateLimiter limiter,
      Clock clock,
      @Value("${gateway.commands.reply-timeout:10s}") Duration replyTimeout,
      MeterRegistry metrics) {
    this.transactions = transactions;
    this.outbox = outbox;
    this.limiter = limiter;
    this.clock = clock;
    this.replyTimeout = replyTimeout;
    // From registering for the reply (before the command commits) to the reply or the deadline.
    this.replied = roundTrip(metrics, "replied");
    this.late = roundTrip(metrics, "late");
    DistributionSummary groups =
        DistributionSummary.builder("gateway.command.accept.group")
            .description("Commands written in one statement and commit")
            .register(metrics);
    this.accepting =
        new BatchWriter<>(
            "command-writer",
            MAX_GROUP,
            // New rows with fresh keys lock nothing another group waits for; the rate limit's rows
            // are locked in RateLimiter's order whatever the group's (RateLimiter.requireAll).
            (a, b) -> 0,
            new BatchWriter.Work<>() {
              @Override
              public List<Written> all(List<Accepted> group) {
                return writeGroup(group);
              }

              @Override
              public Written one(Accepted accepted) {
                return writeAlone(accepted);
              }
            },
            groups::record);
  }

  private static Timer roundTrip(MeterRegistry metrics, String outcome) {
    return Timer.builder("gateway.command.roundtrip")
        .description("A command's way from the gateway to its owner and its reply back")
        .tag("outcome", outcome)
        .register(metrics);
  }

  /** A command to send; the bus allocates its id and time. */
  public record Request(
      String topic,
      String type,
      String merchantId,
      String environment,
      String resourceId,
      JsonNode body) {}

  /**
   * Runs first in the transaction that accepts a command and decides whether the command is
   * written. Whatever it writes commits with the command, or alone when it declines; when it
   * throws, nothing commits.
   */
  @FunctionalInterface
  public interface Admission {

    /**
     * @return true to write {@code command} and its outbox row in this transaction
     */
    boolean admit(Connection connection, Command command) throws SQLException;
  }

  /**
   * The {@code topic} recorded for a command the gateway applies itself ({@link #applyLocally}): no
   * message is published for it.
   */
  public static final String LOCAL_TOPIC = "gateway.local";

  /**
   * The gateway's own application of a command (an embed token is made here, not by an owner): runs
   * in the transaction that records the command and answers its reply.
   */
  @FunctionalInterface
  public interface LocalApplication {
    CommandReply apply(Connection connection, Command command) throws SQLException;
  }

  /** How long a request waits for a reply before answering 503. */
  public Duration replyTimeout() {
    return replyTimeout;
  }

  /**
   * Accepts {@code request} and waits for its reply.
   *
   * @throws ApiException 503 {@code internal_error} with {@code Retry-After} when no reply came
   *     within the deadline; the command stays accepted and will still be applied
   */
  public CommandReply submit(Request request) {
    return send(request).orElseThrow(CommandBus::late);
  }

  /**
   * Accepts {@code request} and waits for its reply; empty when no reply came within the deadline
   * (the command stays accepted and will still be applied).
   */
  public Optional<CommandReply> send(Request request) {
    return send(request, null);
  }

  /**
   * As {@link #send(Request)}, with the request's rate-limit decision taken in the transaction that
   * writes the command ({@link #accept(Command, String, DeferredRateLimit)}).
   *
   * @param rateLimit the decision to take, or null when it was taken
   * @throws ApiException 429 {@code rate_limited} when the rate limit refused the request: nothing
   *     was written
   */
  public Optional<CommandReply> send(Request request, @Nullable DeferredRateLimit rateLimit) {
    Command command = prepare(request);
    try (Waiter waiter = expect(command.commandId())) {
      accept(command, request.topic(), rateLimit);
      return waiter.awaitReply();
    }
  }

  /** The command for {@code request}, with a fresh {@code cmd_} id; nothing is written yet. */
  public Command prepare(Request request) {
    return new Command(
        IdType.COMMAND.generate(),
        request.type(),
        request.merchantId(),
        request.environment(),
        request.resourceId(),
        request.body(),
        clock.instant());
  }

  /**
   * Registers interest in the reply to {@code commandId}. Register before the command commits, so
   * the reply cannot overtake the registration; close the waiter when done.
   */
  public Waiter expect(String commandId) {
    CompletableFuture<CommandReply> future = new CompletableFuture<>();
    waiting.compute(
        commandId,
        (id, waiters) -> {
          List<CompletableFuture<CommandReply>> list =
              waiters == null ? new CopyOnWriteArrayList<>() : waiters;
          list.add(future);
          return list;
        });
    return new Waiter(commandId, future);
  }

  /**
   * Writes the command and its outbox row in one statement, auto-committed: one round trip to the
   * database; nothing is published before it commits. Commands accepted at the same time share that
   * statement and its commit ({@link #MAX_GROUP} at most; {@link BatchWriter}): under load the
   * gateway commits a group of commands where it committed each, and a command alone is written on
   * its caller's thread as before. If a group's statement fails for a reason that may be one
   * command's, each is written again on its own.
   */
  public void accept(Command command, String topic) {
    accept(command, topic, (DeferredRateLimit) null);
  }

  /**
   * As {@link #accept(Command, String)}, with the rate-limit decision of the request that sends the
   * command taken in the same statement and the same commit ({@link RateLimiter#requireAll}): one
   * round trip and one transaction instead of two of each. When the decisions of a group admit all
   * of its commands, they are written with them; when one is refused, nothing of the group is, and
   * each of its commands is decided on its own and written if admitted ({@link #writeAlone}).
   *
   * @param rateLimit the decision to take, or null when it was taken (or none is)
   * @throws ApiException 429 {@code rate_limited} when the rate limit refused the request: the
   *     command was not written
   * @throws RuntimeException what kept the command from being written; a decision taken for it
   *     before that is recorded in {@code rateLimit} all the same (it was counted)
   */
  public void accept(Command command, String topic, @Nullable DeferredRateLimit rateLimit) {
    Written written =
        accepting.submit(
            new Accepted(
                command,
                topic,
                message(command, topic, MessageContext.withCurrent(Map.of())),
                rateLimit == null ? null : rateLimit.request()));
    if (written.failure() != null) {
      // A decision taken before the write failed was counted: it stands for the request's answer.
      if (rateLimit != null) {
        written.decision().ifPresent(rateLimit::record);
      }
      throw written.failure();
    }
    if (rateLimit != null) {
      rateLimit.decided(written.decision().orElseThrow());
    }
  }

  /** Commands queued for a group and not yet taken by a writer (tests). */
  int queuedAccepts() {
    return accepting.queued();
  }

  /**
   * A command to write with its topic and its outbox message, which carries the trace and request
   * of the thread that accepted it: the group may be written by another request's thread.
   */
  private record Accepted(
      Command command,
      String topic,
      OutboxMessage message,
      RateLimiter.@Nullable Request rateLimit) {}

  /**
   * What became of an accepted command: the rate-limit decision taken for it (empty when it carried
   * none, or none could be taken), and the failure that kept it from being written (null when it
   * was written, or refused). Each command of a group answers for itself, so one that fails neither
   * hides nor undoes what its neighbours wrote.
   */
  private record Written(Optional<RateLimitDecision> decision, @Nullable RuntimeException failure) {
    /** Written, with no decision to report. */
    static final Written WRITTEN = new Written(Optional.empty(), null);
  }

  /**
   * Writes a group's commands in one statement with the rate-limit decisions they carry; what
   * became of each command, in the group's order.
   */
  private List<Written> writeGroup(List<Accepted> group) {
    List<Integer> limited = new ArrayList<>();
    for (int i = 0; i < group.size(); i++) {
      if (group.get(i).rateLimit() != null) {
        limited.add(i);
      }
    }
    List<RateLimiter.Request> requests =
        limited.stream().map(i -> group.get(i).rateLimit()).toList();
    try {
      return MessageContext.detached(
          () ->
              transactions.autoCommitted(
                  connection -> {
                    List<Written> written =
                        new ArrayList<>(Collections.nCopies(group.size(), Written.WRITTEN));
                    if (requests.isEmpty()) {
                      insert(connection, group, null);
                      return written;
                    }
                    List<RateLimitDecision> taken =
                        insert(connection, group, RateLimiter.requireAll(requests, clock.millis()));
                    for (int k = 0; k < limited.size(); k++) {
                      written.set(limited.get(k), new Written(Optional.of(taken.get(k)), null));
                    }
                    return written;
                  }));
    } catch (RuntimeException e) {
      if (!RateLimiter.refusedOne(e)) {
        throw e;
      }
    }
    // One of them is over its limit, and nothing was written: decide and write each on its own.
    // What one of them writes is committed before the next is tried, so a later one's failure is
    // its own: it must not fail the group, whose caller would write the others again. Once the
    // database is away, the rest fail with it at once, as BatchWriter fails a batch.
    List<Written> written = new ArrayList<>(group.size());
    RuntimeException away = null;
    for (Accepted accepted : group) {
      Written alone = away == null ? writeAlone(accepted) : new Written(Optional.empty(), away);
      if (alone.failure() != null && BatchWriter.databaseAway(alone.failure())) {
        away = alone.failure();
      }
      written.add(alone);
    }
    return written;
  }

  /**
   * Decides a command's rate limit on its own, if it carries one, and writes the command alone if
   * admitted. Never throws: a failure is the result's, with the decision taken before it, which was
   * counted.
   */
  private Written writeAlone(Accepted accepted) {
    Optional<RateLimitDecision> decision = Optional.empty();
    try {
      decision = Optional.ofNullable(accepted.rateLimit()).map(limiter::request);
      if (!(decision.orElse(null) instanceof RateLimitDecision.Refused)) {
        MessageContext.detached(
            () ->
                transactions.autoCommitted(
                    connection -> insert(connection, List.of(accepted), null)));
      }
      return new Written(decision, null);
    } catch (RuntimeException e) {
      return new Written(decision, e);
    }
  }

  /**
   * The commands of {@code group} and their outbox rows in one statement, after {@code lead} when
   * there is one; what the lead returned. A group of one without a lead is the statement a command
   * alone always had: the same SQL text.
   */
  private <T> T insert(
      Connection connection, List<Accepted> group, OutboxWriter.@Nullable Lead<T> lead)
      throws SQLException {
    List<OutboxWriter.Write> writes =
        List.of(
            OutboxWriter.Insert.rows(
                group.stream()
                    .map(accepted -> CommandLog.insertion(accepted.command(), accepted.topic()))
                    .toList()));
    List<OutboxMessage> messages = group.stream().map(Accepted::message).toList();
    if (lead == null) {
      outbox.appendAllWith(connection, writes, messages);
      return null;
    }
    return outbox.appendAllAfter(connection, lead, writes, messages);
  }

  /**
   * Runs {@code admission}, then, if it agrees, writes the command and its outbox row, all in one
   * transaction.
   *
   * @return true when the command was written
   */
  public boolean accept(Command command, String topic, Admission admission) {
    return transactions.inTransaction(
        connection -> {
          if (!admission.admit(connection, command)) {
            return false;
          }
          write(connection, command, topic);
          return true;
        });
  }

  /**
   * Runs {@code guard} and, only when it returns a row, writes the command and its outbox row, all
   * in one auto-committed statement: one round trip, as {@link #accept(Command, String)}, where the
   * {@link Admission} form takes three (the admission, the write, the commit). The idempotency
   * record of a new key is claimed this way; a key that exists writes nothing here and goes through
   * the admission, which tells why.
   *
   * @param guard a data-modifying statement with {@code RETURNING} that returns at most one row
   *     ({@link OutboxWriter#appendGuarded})
   * @return true when the command was written
   */
  public boolean acceptGuarded(Command command, String topic, OutboxWriter.Write guard) {
    return transactions.autoCommitted(
        connection ->
            outbox.appendGuarded(
                connection, guard, CommandLog.insertion(command, topic), message(command, topic)));
  }

  /** The command's row and its outbox row, in one statement. */
  private void write(Connection connection, Command command, String topic) throws SQLException {
    outbox.appendWith(
        connection, CommandLog.insertion(command, topic).write(), message(command, topic));
  }

  private static OutboxMessage message(Command command, String topic) {
    return message(command, topic, Map.of());
  }

  private static OutboxMessage message(
      Command command, String topic, Map<String, String> attributes) {
    return new OutboxMessage(
        command.commandId(),
        topic,
        command.commandId(),
        CommandTypes.messageType(command.type()),
        Json.toBytes(command),
        attributes);
  }

  /**
   * Runs {@code admission}, then, if it agrees, records the command, applies it with {@code
   * application} and records the reply, all in one transaction: nothing goes to an outbox, and no
   * request ever waits for the reply. The command log keeps it like any other (purged with them).
   *
   * @return the reply, or empty when {@code admission} declined
   */
  public Optional<CommandReply> applyLocally(
      Command command, Admission admission, LocalApplication application) {
    return transactions.inTransaction(
        connection -> {
          if (!admission.admit(connection, command)) {
            return Optional.empty();
          }
          CommandLog.insert(connection, command, LOCAL_TOPIC);
          CommandReply reply = application.apply(connection, command);
          CommandLog.recordReply(
              connection,
              command.commandId(),
              reply.status(),
              Json.toText(reply.body()),
              clock.instant());
          return Optional.of(reply);
        });
  }

  /**
   * Hands the reply in a record of the reply topic to the requests waiting for it on this instance.
   * Replies are keyed by their command id (CommandDispatcher), so one nobody here waits for (most,
   * with several instances) is skipped without being parsed.
   *
   * @throws RuntimeException when {@code value} is not a reply
   */
  public void complete(String key, byte[] value) {
    if (key != null && !waiting.containsKey(key)) {
      return;
    }
    complete(Json.fromBytes(value, CommandReply.class));
  }

  /** Hands a reply to the requests waiting for it on this instance, if any. */
  public void complete(CommandReply reply) {
    List<CompletableFuture<CommandReply>> waiters = waiting.get(reply.commandId());
    if (waiters != null) {
      waiters.forEach(waiter -> waiter.complete(reply));
    }
  }

  /**
   * Where the creation of {@code resourceId} by a command of {@code commandType} stands in the
   * command log, seen by its own merchant and environment only; empty when no such command was
   * accepted (or its row was purged).
   */
  public Optional<Creation> creation(
      String commandType, String resourceId, String merchantId, String environment) {
    return transactions.inTransaction(
        connection ->
            CommandLog.findCreation(connection, commandType, resourceId, merchantId, environment));
  }

  /**
   * A creating command in the log.
   *
   * @param reply the owner's reply, or empty while the command waits
   */
  public record Creation(String commandId, Optional<CommandReply> reply) {}

  /** An accepted command as it was written. */
  public Optional<Command> command(String commandId) {
    return transactions.inTransaction(connection -> CommandLog.find(connection, commandId));
  }

  /** The recorded reply of a command, if the owner has answered. */
  public Optional<CommandReply> recordedReply(String commandId) {
    return transactions.inTransaction(connection -> CommandLog.findReply(connection, commandId));
  }

  /**
   * The answer to a command that is accepted but unanswered, for commands that create nothing the
   * client could look up (a creation answers 202 with the new id instead).
   */
  public static ApiException late() {
    return ApiException.unavailable(
        "The request was accepted but is still being processed. Retry with the"
            + " same Idempotency-Key to get its result.",
        RETRY_AFTER);
  }

  /** A request's wait for one command's reply; see {@link #expect}. */
  public final class Waiter implements AutoCloseable {

    private final String commandId;
    private final CompletableFuture<CommandReply> reply;
    private final long startedNanos = System.nanoTime();

    private Waiter(String commandId, CompletableFuture<CommandReply> reply) {
      this.commandId = commandId;
      this.reply = reply;
    }

    /**
     * The reply, waiting up to the reply timeout for it.
     *
     * @throws ApiException 503 {@code internal_error} with {@code Retry-After} when no reply came
     *     within the deadline; the command stays accepted and will still be applied
     */
    public CommandReply await() {
      return awaitReply().orElseThrow(CommandBus::late);
    }

    /**
     * The reply, waiting up to the reply timeout for it; empty when none came within the deadline
     * (the command stays accepted and will still be applied).
     */
    public Optional<CommandReply> awaitReply() {
      Optional<CommandReply> answer = awaitReplyWithin(replyTimeout);
      (answer.isPresent() ? replied : late)
          .record(System.nanoTime() - startedNanos, TimeUnit.NANOSECONDS);
      return answer;
    }

    /**
     * The reply, waiting up to {@code within} for it and looking in the command log every {@link
     * #LOG_POLL} meanwhile: a reply published before this instance listened (a gateway that just
     * restarted) reaches the log through the durable recorder only. Empty when none came.
     */
    public Optional<CommandReply> awaitReply(Duration within) {
      long deadline = System.nanoTime() + within.toNanos();
      while (true) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return recordedReply(commandId);
        }
        Optional<CommandReply> reply =
            awaitReplyWithin(Duration.ofNanos(Math.min(left, LOG_POLL.toNanos())));
        if (reply.isPresent()) {
          return reply;
        }
      }
    }

    private Optional<CommandReply> awaitReplyWithin(Duration timeout) {
      try {
        return Optional.of(reply.get(timeout.toNanos(), TimeUnit.NANOSECONDS));
      } catch (TimeoutException e) {
        // The broadcast may have been missed (e.g. right after start-up); the log is the truth.
        return recordedReply(commandId);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw ApiException.unavailable("Interrupted while waiting.", RETRY_AFTER);
      } catch (ExecutionException e) {
        throw new IllegalStateException("reply future never fails", e);
      }
    }

    @Override
    public void close() {
      waiting.computeIfPresent(
          commandId,
          (id, waiters) -> {
            waiters.remove(reply);
            return waiters.isEmpty() ? null : waiters;
          });
    }
  }
}
