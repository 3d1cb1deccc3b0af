package ph.payments.gateway.embed.keys;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import ph.payments.gateway.edge.ClientAddressLimitFilter;
import ph.payments.gateway.edge.ClientAddressLimited;
import ph.payments.gateway.edge.ClientAddressLimits;
import ph.payments.platform.json.Json;

/**
 * The public keys of embed tokens (RFC 7517 JWK Set): the active key and the retired ones that
 * still verify. Public, no key needed; cacheable for five minutes; limited per client address
 * ({@link ClientAddressLimitFilter}). Never a private part: only the stored public JWKs are read.
 */
@Controller("/.well-known")
@ExecuteOn(TaskExecutors.BLOCKING)
public class JwksController {

  private final SigningKeys keys;

  public JwksController(SigningKeys keys) {
    this.keys = keys;
  }

  @Get(value = "/jwks.json", produces = MediaType.APPLICATION_JSON)
  @ClientAddressLimited(ClientAddressLimits.Kind.EMBED)
  public HttpResponse<String> jwks() {
    ObjectNode set = Json.mapper().createObjectNode();
    ArrayNode list = set.putArray("keys");
    for (SigningKey key : keys.published()) {
      list.add(Json.tree(key.publicKey().toPublicJWK().toJSONString()));
    }
    return HttpResponse.ok(Json.toText(set)).header("Cache-Control", "public, max-age=300");
  }
}
