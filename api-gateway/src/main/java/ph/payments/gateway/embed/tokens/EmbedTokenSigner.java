package ph.payments.gateway.embed.tokens;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes embed tokens: compact JWS, ES256, header {@code kid} and {@code typ: JWT}, the claims of
 * {@link EmbedClaims}. Plain Java over nimbus-jose-jwt.
 */
public final class EmbedTokenSigner {

  private final String issuer;

  /**
   * @param issuer {@code iss}: the gateway's public base URL
   */
  public EmbedTokenSigner(String issuer) {
    this.issuer = issuer;
  }

  /**
   * @param key the active private key; its {@code kid} goes into the header
   */
  public String sign(EmbedClaims claims, ECKey key) {
    JWSHeader header =
        new JWSHeader.Builder(JWSAlgorithm.ES256)
            .keyID(key.getKeyID())
            .type(JOSEObjectType.JWT)
            .build();
    JWTClaimsSet.Builder body =
        new JWTClaimsSet.Builder()
            .issuer(issuer)
            .subject(claims.merchantId())
            .audience(claims.audience().wire())
            .issueTime(Date.from(claims.issuedAt()))
            .expirationTime(Date.from(claims.expiresAt()))
            .jwtID(claims.tokenId())
            .claim(EmbedClaims.MERCHANT, claims.merchantId())
            .claim(EmbedClaims.ENVIRONMENT, claims.environment())
            .claim(EmbedClaims.SURFACE, claims.surface().wire())
            .claim(EmbedClaims.TABS, claims.tabs().stream().map(Tab::wire).toList())
            .claim(EmbedClaims.PROJECT, claims.projectUuid().toString());
    if (claims.scoped()) {
      Map<String, Object> scope = new LinkedHashMap<>();
      scope.put(EmbedClaims.SCOPE_FIELD, EmbedClaims.CUSTOMER_ID);
      scope.put(EmbedClaims.SCOPE_VALUE, claims.customerId());
      body.claim(EmbedClaims.SCOPE, scope);
    }
    SignedJWT jwt = new SignedJWT(header, body.build());
    try {
      jwt.sign(new ECDSASigner(key));
    } catch (JOSEException e) {
      throw new IllegalStateException("an EC P-256 key signs ES256", e);
    }
    return jwt.serialize();
  }
}
