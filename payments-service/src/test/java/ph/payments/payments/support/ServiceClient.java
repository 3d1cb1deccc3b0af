package ph.payments.payments.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * Drives payments-service as the gateway does: commands applied through the dispatcher (as the
 * command listener would, reply read from the outbox) and reads over internal HTTP with the
 * gateway's headers.
 */
public final class ServiceClient {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final CommandDispatcher dispatcher;
  private final Transactions transactions;
  private final String baseUrl;
  private final String token;

  public ServiceClient(
      CommandDispatcher dispatcher, Transactions transactions, String baseUrl, String token) {
    this.dispatcher = dispatcher;
    this.transactions = transactions;
    this.baseUrl = baseUrl;
    this.token = token;
  }

  /** A command as the gateway would send it for the merchant's environment. */
  public static Command command(
      String type, String merchant, String environment, String resourceId, String body) {
    return new Command(
        IdType.COMMAND.generate(),
        type,
        merchant,
        environment,
        resourceId,
        body == null ? Json.mapper().createObjectNode() : (ObjectNode) Json.tree(body),
        Instant.now());
  }

  /** Applies a command as the command listener would, and returns the reply it queued. */
  public CommandReply dispatch(Command command) {
    Envelope envelope =
        new Envelope(
            IdType.MESSAGE.generate(),
            "command." + command.type(),
            command.commandId(),
            Instant.now(),
            Json.toBytes(command));
    dispatcher.prepare(envelope); // as the listener does, before the transaction opens
    return transactions.inTransaction(
        connection -> {
          dispatcher.dispatch(connection, envelope);
          return reply(connection, command.commandId());
        });
  }

  /** The reply queued for a command, or null when none was. */
  public CommandReply replyTo(String commandId) {
    return transactions.inTransaction(connection -> reply(connection, commandId));
  }

  private static CommandReply reply(java.sql.Connection connection, String commandId)
      throws java.sql.SQLException {
    try (var select =
        connection.prepareStatement(
            "SELECT payload FROM outbox WHERE message_key = ? AND message_type = 'command.reply'")) {
      select.setString(1, commandId);
      try (var rs = select.executeQuery()) {
        return rs.next() ? Json.fromBytes(rs.getBytes(1), CommandReply.class) : null;
      }
    }
  }

  /** GET on the internal API for the merchant's environment. */
  public HttpResponse<String> get(String path, String merchant, String environment) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(baseUrl + path)).GET().header("X-Internal-Token", token);
    if (merchant != null) {
      request.header("X-Merchant-Id", merchant).header("X-Environment", environment);
    }
    try {
      return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  public JsonNode json(String path, String merchant, String environment) {
    HttpResponse<String> response = get(path, merchant, environment);
    if (response.statusCode() != 200) {
      throw new AssertionError(path + " answered " + response.statusCode() + " " + response.body());
    }
    return Json.tree(response.body());
  }

  /** POSTs a provider callback to the internal callback endpoint. */
  public HttpResponse<String> callback(String provider, byte[] body, String signature) {
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create(baseUrl + "/internal/providers/" + provider + "/callbacks"))
            .header("X-Internal-Token", token)
            .header("Content-Type", "application/json")
            .header("X-Provider-Signature", signature)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    try {
      return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Types of the events written about one resource, in log order (read from the event log). */
  public List<String> eventTypes(String resourceId) {
    return transactions.inTransaction(
        connection -> {
          List<String> types = new ArrayList<>();
          try (var select =
              connection.prepareStatement(
                  "SELECT type FROM events WHERE resource_id = ? ORDER BY txid, seq")) {
            select.setString(1, resourceId);
            try (var rs = select.executeQuery()) {
              while (rs.next()) {
                types.add(rs.getString(1));
              }
            }
          }
          return types;
        });
  }

  /** The stored events (bodies) about one resource, in log order. */
  public List<JsonNode> events(String resourceId) {
    return transactions.inTransaction(
        connection -> {
          List<JsonNode> events = new ArrayList<>();
          try (var select =
              connection.prepareStatement(
                  "SELECT body FROM events WHERE resource_id = ? ORDER BY txid, seq")) {
            select.setString(1, resourceId);
            try (var rs = select.executeQuery()) {
              while (rs.next()) {
                events.add(Json.tree(rs.getBytes(1)));
              }
            }
          }
          return events;
        });
  }

  /** The Kafka key of every event about the resource, from its outbox row: what orders it. */
  public List<String> eventKeys(String resourceId) {
    List<JsonNode> events = events(resourceId);
    return transactions.inTransaction(
        connection -> {
          List<String> keys = new ArrayList<>();
          for (JsonNode event : events) {
            try (var select =
                connection.prepareStatement(
                    "SELECT message_key FROM outbox WHERE message_id = ?")) {
              select.setString(1, event.get("id").asText());
              try (var rs = select.executeQuery()) {
                keys.add(rs.next() ? rs.getString(1) : null);
              }
            }
          }
          return keys;
        });
  }
}
