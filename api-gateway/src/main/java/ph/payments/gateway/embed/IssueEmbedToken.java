package ph.payments.gateway.embed;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.gateway.embed.keys.SigningKeys;
import ph.payments.gateway.embed.tokens.EmbedClaims;
import ph.payments.gateway.embed.tokens.EmbedTokenSigner;
import ph.payments.gateway.embed.tokens.Tab;
import ph.payments.platform.commands.CommandReplies;
import ph.payments.platform.json.Json;
import ph.payments.platform.sealing.ReplySealer;

/**
 * Makes an embed token for the key's merchant and environment and answers the {@code embed_token}
 * resource, inside the transaction that records the command ({@code CommandEndpoint#applyLocally}).
 * The token is sealed in the reply ({@link ReplySealer}, field {@value #TOKEN}) so that the command
 * log and the idempotency record never hold it in clear; it is opened only into the HTTP response.
 */
@Singleton
public class IssueEmbedToken {

  static final String TOKEN = "token";

  private static final SecureRandom RANDOM = new SecureRandom();

  private final SigningKeys keys;
  private final EmbedTokenSigner signer;
  private final ReplySealer sealer;
  private final Clock clock;

  public IssueEmbedToken(
      SigningKeys keys, EmbedTokenSigner signer, ReplySealer sealer, Clock clock) {
    this.keys = keys;
    this.signer = signer;
    this.sealer = sealer;
    this.clock = clock;
  }

  /**
   * @param scope the customer the token is scoped to, its refusal, or null when unscoped
   */
  public CommandReply issue(
      Connection connection,
      Command command,
      EmbedTokenRequest asked,
      @Nullable ScopedCustomers.Resolution scope)
      throws SQLException {
    if (scope instanceof ScopedCustomers.Resolution.Refused refused) {
      return CommandReplies.rejected(command, refused.code(), refused.message());
    }
    String customerId =
        scope instanceof ScopedCustomers.Resolution.Found found ? found.customerId() : null;
    Instant issued = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    Instant expires = issued.plusSeconds(asked.ttlSeconds());
    EmbedClaims claims =
        new EmbedClaims(
            command.merchantId(),
            command.environment(),
            asked.audience(),
            asked.surface(),
            asked.effectiveTabs(),
            customerId,
            asked.projectUuid(),
            issued,
            expires,
            tokenId());
    String token = signer.sign(claims, keys.active(connection));

    ObjectNode body = Json.mapper().createObjectNode();
    body.put("object", "embed_token");
    body.put(TOKEN, sealer.seal(token, command.commandId(), TOKEN));
    body.put("expires_at", DateTimeFormatter.ISO_INSTANT.format(expires));
    body.put("project_uuid", asked.projectUuid().toString());
    body.put("surface", asked.surface().wire());
    body.put("audience", asked.audience().wire());
    body.put("scope_field", asked.scopeField() == null ? null : asked.scopeField().wire());
    if (asked.tabs() == null) {
      body.putNull("tabs");
    } else {
      ArrayNode tabs = body.putArray("tabs");
      asked.tabs().stream().map(Tab::wire).forEach(tabs::add);
    }
    body.put("ttl_seconds", asked.ttlSeconds());
    return CommandReplies.ok(command, 201, body);
  }

  /** {@code jti}: 128 random bits, base64url. */
  private static String tokenId() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
