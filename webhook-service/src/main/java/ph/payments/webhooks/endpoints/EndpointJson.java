package ph.payments.webhooks.endpoints;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import ph.payments.platform.json.Json;

/**
 * The endpoint as SPEC part 2 lists its fields, in that order. {@code secret} appears only in the
 * responses that create it (creation and rotation); everywhere else the field is omitted.
 */
public final class EndpointJson {

  /** The field that carries the signing secret, sealed with {@code REPLY_SEALING_KEY}. */
  public static final String SECRET = "secret";

  public static ObjectNode of(WebhookEndpoint endpoint) {
    return of(endpoint, null);
  }

  /**
   * @param secret the signing secret as the reply carries it: sealed for the gateway ({@link
   *     #SECRET} of the reply to the command), never in clear
   */
  public static ObjectNode of(WebhookEndpoint endpoint, String secret) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("id", endpoint.id());
    json.put("object", "webhook_endpoint");
    json.put("url", endpoint.url());
    ArrayNode events = json.putArray("events");
    endpoint.events().forEach(events::add);
    if (secret != null) {
      json.put(SECRET, secret);
    }
    json.put("description", endpoint.description());
    json.put("enabled", endpoint.enabled());
    json.put("created", endpoint.createdAt().getEpochSecond());
    return json;
  }

  /** The answer to a deletion. */
  public static ObjectNode deleted(String id) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("id", id);
    json.put("object", "webhook_endpoint");
    json.put("deleted", true);
    return json;
  }

  private EndpointJson() {}
}
