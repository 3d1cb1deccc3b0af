package ph.payments.gateway.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.uri.UriBuilder;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import ph.payments.contracts.Topics;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.gateway.admin.audit.OperatorAudit;
import ph.payments.gateway.commands.CommandBus;
import ph.payments.gateway.routing.Owner;
import ph.payments.gateway.routing.ReadRouter;
import ph.payments.gateway.web.Fields;
import ph.payments.gateway.web.ListParams;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.outbox.OutboxState;
import ph.payments.platform.tx.Transactions;

/**
 * Operator tools of issue 19 (behind {@link AdminTokenFilter}, each request audited by {@link
 * ph.payments.gateway.admin.audit.OperatorAuditFilter}): the audit itself, settling a live {@code
 * pending_manual} refund, the ledger's parked anomalies, one merchant's command log with each
 * command's outbox state, and every service's outbox state.
 */
@Controller("/admin/v1")
@ExecuteOn(TaskExecutors.BLOCKING)
public class OperatorToolsController {

  private static final Set<String> OUTCOMES = Set.of("succeeded", "failed");
  private static final Pattern FAILURE_CODE = Pattern.compile("[a-z][a-z0-9_]{0,49}");

  private final Transactions transactions;
  private final OperatorAudit audit;
  private final CommandBus commands;
  private final ReadRouter reads;
  private final Clock clock;
  private final String service;

  public OperatorToolsController(
      Transactions transactions,
      OperatorAudit audit,
      CommandBus commands,
      ReadRouter reads,
      Clock clock,
      @Value("${micronaut.application.name}") String service) {
    this.transactions = transactions;
    this.audit = audit;
    this.commands = commands;
    this.reads = reads;
    this.clock = clock;
    this.service = service;
  }

  /**
   * The operator audit, ascending, with {@code limit}, {@code starting_after} and {@code target}
   * (only rows whose route named that id).
   */
  @Get("/audit")
  public ObjectNode audit(HttpRequest<?> request, @Nullable @QueryValue String target) {
    ListParams params = ListParams.from(request);
    long after = 0;
    if (params.startingAfter() != null) {
      String raw = params.startingAfter();
      if (!raw.startsWith(OperatorAudit.ID_PREFIX)
          || !raw.substring(OperatorAudit.ID_PREFIX.length()).matches("[0-9]{1,18}")) {
        throw ApiException.invalid(
            Map.of("starting_after", "must be the id of the last object of the previous page"));
      }
      after = Long.parseLong(raw.substring(OperatorAudit.ID_PREFIX.length()));
    }
    if (target != null && (target.isEmpty() || target.length() > 255)) {
      throw ApiException.invalid(Map.of("target", "must be an id"));
    }
    long from = after;
    List<ObjectNode> rows =
        transactions.inTransaction(c -> audit.page(c, from, target, params.limit() + 1));
    return page(rows, params.limit());
  }

  /**
   * {@code {outcome: succeeded|failed, reference, failure_code?, failure_message?}}: the provider's
   * operators decided a live {@code pending_manual} refund. Applied by payments-service ({@code
   * refunds.settle_manual}), which refuses test-mode refunds, refunds in any other state and a
   * settlement contradicting the recorded one; the same settlement again answers 200.
   */
  @Post("/refunds/{id}/settle")
  public HttpResponse<JsonNode> settleRefund(String id, @Nullable @Body JsonNode json) {
    if (!IdType.REFUND.matches(id)) {
      throw ApiException.notFound("refund");
    }
    Fields body =
        Fields.of(json).allowOnly("outcome", "reference", "failure_code", "failure_message");
    String outcome = body.requiredString("outcome", 1, 20);
    body.requiredString("reference", 1, 200);
    body.optionalPattern("failure_code", FAILURE_CODE, "a snake_case code");
    body.optionalString("failure_message", 1, 500);
    body.validate();
    if (!OUTCOMES.contains(outcome)) {
      throw ApiException.invalid(Map.of("outcome", "must be succeeded or failed"));
    }
    if (!"failed".equals(outcome) && (body.has("failure_code") || body.has("failure_message"))) {
      throw ApiException.invalid(Map.of("failure_code", "only with outcome failed"));
    }
    CommandReply reply =
        commands.submit(
            new CommandBus.Request(
                Topics.PAYMENTS_COMMANDS, "refunds.settle_manual", null, null, id, json));
    return HttpResponse.<JsonNode>status(HttpStatus.valueOf(reply.status())).body(reply.body());
  }

  /** The ledger's parked anomalies: {@code status} open (default), resolved or all; paged. */
  @Get("/ledger/anomalies")
  public HttpResponse<String> anomalies(
      @Nullable @QueryValue String status,
      @Nullable @QueryValue String limit,
      @Nullable @QueryValue("starting_after") String startingAfter) {
    UriBuilder uri = UriBuilder.of("/internal/anomalies");
    if (status != null) {
      uri.queryParam("status", status);
    }
    if (limit != null) {
      uri.queryParam("limit", limit);
    }
    if (startingAfter != null) {
      uri.queryParam("starting_after", startingAfter);
    }
    return reads.getPublic(Owner.LEDGER, uri.build().toString());
  }

  /** {@code {"resolution": "…"}} (required): what the operator did about the anomaly. */
  @Post("/ledger/anomalies/{id}/resolve")
  public HttpResponse<String> resolveAnomaly(String id, @Nullable @Body JsonNode json) {
    if (!id.matches("[1-9][0-9]{0,17}")) {
      throw ApiException.notFound("anomaly");
    }
    Fields body = Fields.of(json).allowOnly("resolution");
    body.requiredString("resolution", 1, 500);
    body.validate();
    return reads.postRaw(
        Owner.LEDGER, "/internal/anomalies/" + id + "/resolve", Json.toBytes(json), Map.of());
  }

  /**
   * One merchant's command log, ascending by command id, with {@code limit}, {@code starting_after}
   * and {@code pending=true} (only commands without a reply): type, resource, environment, when,
   * the reply's status and error code (never the bodies: they hold the merchant's customers' data),
   * and the command's outbox row: {@code pending} (with attempts and last error), {@code
   * published}, {@code purged} (published and past the outbox's retention) or {@code none} (applied
   * by the gateway itself).
   */
  @Get("/merchants/{id}/commands")
  public ObjectNode merchantCommands(
      HttpRequest<?> request, String id, @Nullable @QueryValue String pending) {
    if (!IdType.MERCHANT.matches(id)) {
      throw ApiException.notFound("merchant");
    }
    if (pending != null && !pending.equals("true") && !pending.equals("false")) {
      throw ApiException.invalid(Map.of("pending", "must be true or false"));
    }
    ListParams params = ListParams.from(request);
    boolean onlyPending = "true".equals(pending);
    List<ObjectNode> rows =
        transactions.inTransaction(
            c -> {
              List<ObjectNode> found = new ArrayList<>();
              try (PreparedStatement select = c.prepareStatement(commandLogPage(onlyPending))) {
                select.setString(1, id);
                select.setString(2, params.startingAfter() == null ? "" : params.startingAfter());
                select.setInt(3, params.limit() + 1);
                try (ResultSet rs = select.executeQuery()) {
                  while (rs.next()) {
                    found.add(commandView(rs));
                  }
                }
              }
              return found;
            });
    return page(rows, params.limit());
  }

  /**
   * A page of a merchant's command log with each command's outbox row (parameters: the merchant,
   * {@code starting_after} or "", the limit). A command's outbox row carries the command id as its
   * message id ({@code CommandBus}), so the row is found through the outbox's unique index on
   * {@code message_id}: the outbox holds an hour of every merchant's commands, and a lookup by any
   * other column would read all of it for each command on the page.
   */
  static String commandLogPage(boolean onlyPending) {
    return "SELECT c.command_id, c.command_type, c.topic, c.environment,"
        + " c.resource_id, c.created_at, c.reply_status,"
        + " c.reply_body::jsonb #>> '{error,code}', c.replied_at,"
        + " o.published_at, o.attempts, o.last_error, o.id IS NOT NULL"
        + " FROM commands c LEFT JOIN outbox o ON o.message_id = c.command_id"
        + " WHERE c.merchant_id = ? AND c.command_id > ?"
        + (onlyPending ? " AND c.replied_at IS NULL" : "")
        + " ORDER BY c.command_id LIMIT ?";
  }

  /** The outbox of every service: pending rows per topic, the oldest's age, failing rows. */
  @Get("/outbox")
  public HttpResponse<?> outbox() {
    ObjectNode result = Json.mapper().createObjectNode();
    result.put("object", "list");
    ArrayNode data = result.putArray("data");
    ObjectNode own =
        transactions.inTransaction(c -> OutboxState.report(c, service, clock.instant()));
    data.add(own);
    for (Owner owner : Owner.values()) {
      HttpResponse<String> answer = reads.getPublic(owner, "/internal/outbox");
      if (answer.getStatus().getCode() != 200) {
        return answer; // the owner's error envelope: a partial picture would mislead
      }
      data.add(Json.tree(answer.body()));
    }
    return HttpResponse.ok(result);
  }

  private static ObjectNode commandView(ResultSet rs) throws SQLException {
    ObjectNode row = Json.mapper().createObjectNode();
    row.put("id", rs.getString(1));
    row.put("object", "command");
    row.put("type", rs.getString(2));
    row.put("topic", rs.getString(3));
    row.put("environment", rs.getString(4));
    row.put("resource_id", rs.getString(5));
    row.put("created", rs.getTimestamp(6).toInstant().getEpochSecond());
    ObjectNode reply = row.putObject("reply");
    int status = rs.getInt(7);
    if (rs.wasNull()) {
      reply.putNull("status");
    } else {
      reply.put("status", status);
    }
    reply.put("error_code", rs.getString(8));
    epoch(reply, "replied_at", rs.getTimestamp(9));
    ObjectNode outbox = row.putObject("outbox");
    boolean hasRow = rs.getBoolean(13);
    Timestamp publishedAt = rs.getTimestamp(10);
    String state;
    if (!hasRow) {
      state = "gateway.local".equals(rs.getString(3)) ? "none" : "purged";
    } else {
      state = publishedAt == null ? "pending" : "published";
    }
    outbox.put("state", state);
    epoch(outbox, "published_at", publishedAt);
    if (hasRow) {
      outbox.put("attempts", rs.getInt(11));
      outbox.put("last_error", rs.getString(12));
    }
    return row;
  }

  private static void epoch(ObjectNode node, String field, Timestamp at) {
    if (at == null) {
      node.putNull(field);
    } else {
      node.put(field, at.toInstant().getEpochSecond());
    }
  }

  private static ObjectNode page(List<ObjectNode> rows, int limit) {
    ObjectNode page = Json.mapper().createObjectNode();
    page.put("object", "list");
    page.putArray("data").addAll(rows.subList(0, Math.min(limit, rows.size())));
    page.put("has_more", rows.size() > limit);
    return page;
  }
}
