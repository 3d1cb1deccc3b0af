package ph.payments.platform.micronaut;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.List;
import java.util.Map;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.ParkedMessages;
import ph.payments.platform.tx.Transactions;

/**
 * The service's parked records on its internal API, for the gateway's operator API ({@code
 * /admin/v1/parked_commands}). Only where the internal token is required, so never on the gateway's
 * public port.
 */
@Controller("/internal/parked_messages")
@Requires(property = "internal.require-token", value = "true")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ParkedMessagesController {

  private final Transactions transactions;
  private final ParkedMessages parked;
  private final String service;

  public ParkedMessagesController(
      Transactions transactions,
      ParkedMessages parked,
      @Value("${micronaut.application.name}") String service) {
    this.transactions = transactions;
    this.parked = parked;
    this.service = service;
  }

  /** {@code {object:"list", data, has_more, unresolved}}, ascending by id. */
  @Get
  public ObjectNode list(
      @Nullable @QueryValue Integer limit, @Nullable @QueryValue("starting_after") String after) {
    int size = limit == null ? 25 : limit;
    if (size < 1 || size > 100) {
      throw ApiException.invalid(Map.of("limit", "must be an integer between 1 and 100"));
    }
    return transactions.inTransaction(
        connection -> {
          List<ParkedMessages.Parked> rows = parked.page(connection, size + 1, after);
          return page(
              rows.subList(0, Math.min(size, rows.size())),
              rows.size() > size,
              parked.unresolved(connection),
              service);
        });
  }

  /**
   * Marks a parked record as dealt with by an operator (body {@code {"resolution": "…"}},
   * optional). Nothing is re-applied: see docs/runbook.md.
   */
  @Post("/{id}/resolve")
  public ObjectNode resolve(String id, @Nullable @Body JsonNode body) {
    String resolution = resolution(body);
    return transactions
        .inTransaction(connection -> parked.resolve(connection, id, resolution))
        .map(row -> view(row, service))
        .orElseThrow(() -> ApiException.notFound("parked message"));
  }

  /** The note an operator gave, or a default. */
  public static String resolution(@Nullable JsonNode body) {
    JsonNode note = body == null ? null : body.get("resolution");
    return note != null && note.isTextual() && !note.asText().isBlank()
        ? note.asText()
        : "resolved by an operator";
  }

  public static ObjectNode page(
      List<ParkedMessages.Parked> rows, boolean hasMore, long unresolved, String service) {
    ObjectNode page = Json.mapper().createObjectNode();
    page.put("object", "list");
    ArrayNode data = page.putArray("data");
    rows.forEach(row -> data.add(view(row, service)));
    page.put("has_more", hasMore);
    page.put("unresolved", unresolved);
    return page;
  }

  /** One parked record as the operator API shows it. */
  public static ObjectNode view(ParkedMessages.Parked row, String service) {
    ObjectNode node = Json.mapper().createObjectNode();
    node.put("id", row.id());
    node.put("object", "parked_message");
    node.put("service", service);
    node.put("consumer", row.consumer());
    node.put("topic", row.topic());
    node.put("partition", row.partition());
    node.put("offset", row.offset());
    node.put("key", row.key());
    node.put("message_id", row.messageId());
    node.put("type", row.messageType());
    node.put(
        "payload",
        row.payload() == null
            ? null
            : new String(row.payload(), java.nio.charset.StandardCharsets.UTF_8));
    node.put("last_error", row.lastError());
    node.put("attempts", row.attempts());
    node.put("first_failed_at", row.firstFailedAt().toString());
    node.put("last_failed_at", row.lastFailedAt().toString());
    node.put("parked_at", row.parkedAt().toString());
    node.put("reply_sent", row.replySent());
    node.put("resolved_at", row.resolvedAt() == null ? null : row.resolvedAt().toString());
    node.put("resolution", row.resolution());
    return node;
  }
}
