package ph.payments.gateway.admin;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.time.Instant;
import ph.payments.gateway.embed.keys.SigningKey;
import ph.payments.gateway.embed.keys.SigningKeys;
import ph.payments.platform.json.Json;

/**
 * The operator's view of the embed-token signing keys, behind {@link AdminTokenFilter}: list them,
 * and rotate (a new active key; the old one verifies the tokens it signed until they expire). Only
 * public parts and times are shown.
 */
@Controller("/admin/v1/embed_keys")
@ExecuteOn(TaskExecutors.BLOCKING)
public class EmbedKeysController {

  private final SigningKeys keys;

  public EmbedKeysController(SigningKeys keys) {
    this.keys = keys;
  }

  @Get
  public ObjectNode list() {
    ObjectNode list = Json.mapper().createObjectNode();
    list.put("object", "list");
    ArrayNode data = list.putArray("data");
    keys.all().forEach(key -> data.add(json(key)));
    list.put("has_more", false);
    return list;
  }

  /** Makes a new active key and retires the one before; answers the new key. */
  @Post("/rotate")
  public ObjectNode rotate() {
    return json(keys.rotate());
  }

  private static ObjectNode json(SigningKey key) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("kid", key.kid());
    json.put("object", "embed_signing_key");
    json.put("algorithm", "ES256");
    json.put("status", key.active() ? "active" : "retired");
    json.put("created", key.createdAt().getEpochSecond());
    json.put("retired_at", seconds(key.retiredAt()));
    json.put("verifiable_until", seconds(key.verifiableUntil()));
    return json;
  }

  private static Long seconds(Instant instant) {
    return instant == null ? null : instant.getEpochSecond();
  }
}
