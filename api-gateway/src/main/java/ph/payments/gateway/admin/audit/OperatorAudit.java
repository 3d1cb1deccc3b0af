package ph.payments.gateway.admin.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import ph.payments.platform.json.Json;

/**
 * The {@code operator_audit} table: one row per audited operator request (see {@link
 * OperatorAuditFilter} for which). Ids on the API are {@code audit_<n>}, ascending.
 */
@Singleton
public class OperatorAudit {

  public static final String ID_PREFIX = "audit_";

  /** One audited request. {@code request} is the body with secrets redacted, or null. */
  public record Entry(
      Instant recordedAt,
      String tokenHash,
      String operatorName,
      String method,
      String route,
      String path,
      String target,
      int status,
      String errorCode,
      JsonNode request) {}

  public void record(Connection connection, Entry entry) throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO operator_audit (recorded_at, token_hash, operator_name, method, route,"
                + " path, target, status, error_code, request)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::json)")) {
      insert.setTimestamp(1, Timestamp.from(entry.recordedAt()));
      insert.setString(2, entry.tokenHash());
      insert.setString(3, entry.operatorName());
      insert.setString(4, entry.method());
      insert.setString(5, entry.route());
      insert.setString(6, entry.path());
      insert.setString(7, entry.target());
      insert.setInt(8, entry.status());
      insert.setString(9, entry.errorCode());
      if (entry.request() == null) {
        insert.setNull(10, Types.VARCHAR);
      } else {
        insert.setString(10, entry.request().toString());
      }
      insert.executeUpdate();
    }
  }

  /**
   * A page ascending by id after {@code afterId}, optionally only rows of {@code target}; one row
   * more than {@code limit} tells the caller there is more.
   */
  public List<ObjectNode> page(Connection connection, long afterId, String target, int limit)
      throws SQLException {
    List<ObjectNode> rows = new ArrayList<>();
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT id, recorded_at, token_hash, operator_name, method, route, path, target,"
                + " status, error_code, request FROM operator_audit WHERE id > ?"
                + (target == null ? "" : " AND target = ?")
                + " ORDER BY id LIMIT ?")) {
      int i = 1;
      select.setLong(i++, afterId);
      if (target != null) {
        select.setString(i++, target);
      }
      select.setInt(i, limit);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          ObjectNode row = Json.mapper().createObjectNode();
          row.put("id", ID_PREFIX + rs.getLong("id"));
          row.put("object", "operator_audit");
          row.put("recorded_at", rs.getTimestamp("recorded_at").toInstant().getEpochSecond());
          ObjectNode operator = row.putObject("operator");
          operator.put("token_hash", rs.getString("token_hash"));
          operator.put("name", rs.getString("operator_name"));
          row.put("method", rs.getString("method"));
          row.put("route", rs.getString("route"));
          row.put("path", rs.getString("path"));
          row.put("target", rs.getString("target"));
          ObjectNode outcome = row.putObject("outcome");
          int status = rs.getInt("status");
          outcome.put("status", status);
          outcome.put("result", status < 400 ? "succeeded" : status < 500 ? "refused" : "failed");
          outcome.put("error_code", rs.getString("error_code"));
          String request = rs.getString("request");
          if (request == null) {
            row.putNull("request");
          } else {
            row.set("request", Json.tree(request));
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  /** Field names whose values never reach the audit. */
  static boolean secret(String field) {
    String name = field.toLowerCase(java.util.Locale.ROOT);
    return name.contains("secret")
        || name.contains("token")
        || name.contains("password")
        || name.contains("private");
  }

  /** {@code body} with the values of secret-looking fields replaced, at every depth. */
  static JsonNode redacted(JsonNode body) {
    if (body == null) {
      return null;
    }
    JsonNode copy = body.deepCopy();
    redact(copy);
    return copy;
  }

  private static void redact(JsonNode node) {
    if (node instanceof ObjectNode object) {
      List<String> names = new ArrayList<>();
      object.fieldNames().forEachRemaining(names::add);
      for (String name : names) {
        if (secret(name)) {
          object.put(name, "[redacted]");
        } else {
          redact(object.get(name));
        }
      }
    } else if (node instanceof ArrayNode array) {
      array.forEach(OperatorAudit::redact);
    }
  }
}
