package ph.payments.gateway.embed.keys;

import com.nimbusds.jose.jwk.ECKey;
import io.micronaut.core.annotation.Nullable;
import java.time.Instant;
import ph.payments.gateway.embed.tokens.EmbedTokenVerifier;

/**
 * One key of the embed-token key ring, public part only.
 *
 * @param kid {@code ek_…}
 * @param publicKey the EC P-256 public JWK, as the JWKS publishes it
 * @param retiredAt null for the active key
 */
public record SigningKey(
    String kid, ECKey publicKey, Instant createdAt, @Nullable Instant retiredAt) {

  public boolean active() {
    return retiredAt == null;
  }

  /** When tokens signed with this key stop being accepted, or null while it is active. */
  public @Nullable Instant verifiableUntil() {
    return retiredAt == null ? null : retiredAt.plus(EmbedTokenVerifier.RETIRED_KEY_WINDOW);
  }

  EmbedTokenVerifier.PublicKey forVerification() {
    return new EmbedTokenVerifier.PublicKey(publicKey, retiredAt);
  }
}
