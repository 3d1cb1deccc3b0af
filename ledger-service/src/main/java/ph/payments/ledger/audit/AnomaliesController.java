package ph.payments.ledger.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import ph.payments.platform.errors.ApiException;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * Parked ledger anomalies on the internal API, for the gateway's operator API ({@code
 * /admin/v1/ledger/anomalies}): list them (open ones by default) and resolve one with the
 * operator's note of what was done. Resolving re-applies nothing: an event parked here could not be
 * posted as it stands, and a correction is the operator's decision (docs/runbook.md).
 */
@Controller("/internal/anomalies")
@ExecuteOn(TaskExecutors.BLOCKING)
public class AnomaliesController {

  private static final String COLUMNS =
      "id, message_id, message_type, message_key, merchant_id, reason, payload, recorded_at,"
          + " resolved_at, resolution";

  private final Transactions transactions;
  private final Clock clock;

  public AnomaliesController(Transactions transactions, Clock clock) {
    this.transactions = transactions;
    this.clock = clock;
  }

  /**
   * {@code status} {@code open} (default), {@code resolved} or {@code all}; ascending by id, with
   * {@code limit} (1–100, default 25) and {@code starting_after} (an anomaly id); {@code open} is
   * the total of open anomalies.
   */
  @Get
  public ObjectNode list(
      @Nullable @QueryValue String status,
      @Nullable @QueryValue String limit,
      @Nullable @QueryValue("starting_after") String startingAfter) {
    String filter =
        switch (status == null ? "open" : status) {
          case "open" -> " AND resolved_at IS NULL";
          case "resolved" -> " AND resolved_at IS NOT NULL";
          case "all" -> "";
          default -> throw ApiException.invalid(Map.of("status", "must be open, resolved or all"));
        };
    int size = number(limit, "limit", 25, 1, 100);
    long after = startingAfter == null ? 0 : id(startingAfter, "starting_after");
    return transactions.inTransaction(
        connection -> {
          ObjectNode page = Json.mapper().createObjectNode();
          page.put("object", "list");
          ArrayNode data = page.putArray("data");
          try (PreparedStatement select =
              connection.prepareStatement(
                  "SELECT "
                      + COLUMNS
                      + " FROM ledger_anomalies WHERE id > ?"
                      + filter
                      + " ORDER BY id LIMIT ?")) {
            select.setLong(1, after);
            select.setInt(2, size + 1);
            try (ResultSet rs = select.executeQuery()) {
              while (rs.next()) {
                data.add(view(rs));
              }
            }
          }
          boolean more = data.size() > size;
          if (more) {
            data.remove(size);
          }
          page.put("has_more", more);
          try (PreparedStatement count =
                  connection.prepareStatement(
                      "SELECT count(*) FROM ledger_anomalies WHERE resolved_at IS NULL");
              ResultSet rs = count.executeQuery()) {
            rs.next();
            page.put("open", rs.getLong(1));
          }
          return page;
        });
  }

  /**
   * {@code {"resolution": "…"}} (required, up to 500 characters): what the operator did. Resolving
   * again keeps the first resolution and answers the anomaly as it is.
   */
  @Post("/{id}/resolve")
  public ObjectNode resolve(String id, @Nullable @Body JsonNode body) {
    long anomalyId = id(id, "id");
    JsonNode note = body == null ? null : body.get("resolution");
    if (note == null
        || !note.isTextual()
        || note.asText().isBlank()
        || note.asText().length() > 500) {
      throw ApiException.invalid(Map.of("resolution", "is required (1 to 500 characters)"));
    }
    return transactions
        .inTransaction(
            connection -> {
              try (PreparedStatement update =
                  connection.prepareStatement(
                      "UPDATE ledger_anomalies SET resolved_at = ?, resolution = ?"
                          + " WHERE id = ? AND resolved_at IS NULL")) {
                update.setTimestamp(1, Timestamp.from(clock.instant()));
                update.setString(2, note.asText());
                update.setLong(3, anomalyId);
                update.executeUpdate();
              }
              try (PreparedStatement select =
                  connection.prepareStatement(
                      "SELECT " + COLUMNS + " FROM ledger_anomalies WHERE id = ?")) {
                select.setLong(1, anomalyId);
                try (ResultSet rs = select.executeQuery()) {
                  return Optional.ofNullable(rs.next() ? view(rs) : null);
                }
              }
            })
        .orElseThrow(() -> ApiException.notFound("anomaly"));
  }

  private static ObjectNode view(ResultSet rs) throws SQLException {
    ObjectNode row = Json.mapper().createObjectNode();
    row.put("id", String.valueOf(rs.getLong("id")));
    row.put("object", "ledger_anomaly");
    row.put("message_id", rs.getString("message_id"));
    row.put("message_type", rs.getString("message_type"));
    row.put("message_key", rs.getString("message_key"));
    row.put("merchant_id", rs.getString("merchant_id"));
    row.put("reason", rs.getString("reason"));
    byte[] payload = rs.getBytes("payload");
    try {
      row.set("payload", Json.tree(payload));
    } catch (RuntimeException notJson) {
      row.put("payload", new String(payload, StandardCharsets.UTF_8));
    }
    row.put("recorded_at", rs.getTimestamp("recorded_at").toInstant().getEpochSecond());
    Timestamp resolvedAt = rs.getTimestamp("resolved_at");
    if (resolvedAt == null) {
      row.putNull("resolved_at");
    } else {
      row.put("resolved_at", resolvedAt.toInstant().getEpochSecond());
    }
    row.put("resolution", rs.getString("resolution"));
    return row;
  }

  private static long id(String value, String name) {
    if (value == null || !value.matches("[1-9][0-9]{0,17}")) {
      if ("id".equals(name)) {
        throw ApiException.notFound("anomaly");
      }
      throw ApiException.invalid(Map.of(name, "must be an anomaly id"));
    }
    return Long.parseLong(value);
  }

  private static int number(String value, String name, int fallback, int min, int max) {
    if (value == null) {
      return fallback;
    }
    if (!value.matches("[0-9]{1,3}")
        || Integer.parseInt(value) < min
        || Integer.parseInt(value) > max) {
      throw ApiException.invalid(Map.of(name, "must be an integer between " + min + " and " + max));
    }
    return Integer.parseInt(value);
  }
}
