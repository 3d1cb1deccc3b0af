package ph.payments.gateway.embed.tokens;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.micronaut.core.annotation.Nullable;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import ph.payments.gateway.embed.tokens.Verification.Reason;
import ph.payments.gateway.embed.tokens.Verification.Refused;
import ph.payments.platform.ids.IdType;

/**
 * Decides whether an embed token is good, all in one place (docs/security.md "Embed tokens"):
 *
 * <ol>
 *   <li>a compact JWS of at most {@value #MAX_LENGTH} characters whose header says {@code alg:
 *       ES256} and {@code typ: JWT} (so {@code none}, HS256 with the public key as the secret, or
 *       any other algorithm never reaches a verifier);
 *   <li>a {@code kid} naming one of our keys; a retired key only until {@link #RETIRED_KEY_WINDOW}
 *       after its retirement;
 *   <li>the ES256 signature under that key;
 *   <li>{@code iss} ours; {@code exp} after the injected clock's now, with no leeway; {@code iat}
 *       at most {@link #ISSUED_AT_LEEWAY} ahead of now (gateway replicas' clocks may differ that
 *       much); a lifetime of at most {@link #LONGEST_LIFETIME};
 *   <li>every claim present with a value a token of ours can carry (tabs allowed for the audience,
 *       a customer id for the customer audience, …);
 *   <li>the merchant known and active, and live for a live token (as API-key authentication
 *       checks), so deactivating a merchant stops its tokens at once.
 * </ol>
 *
 * Plain Java: the keys and merchants come through the two small ports below.
 */
public final class EmbedTokenVerifier {

  /** Longer than any token of ours: a bigger header or body is not ours. */
  public static final int MAX_LENGTH = 4096;

  /** SPEC part 8: {@code ttl_seconds} at most 86400. */
  public static final Duration LONGEST_LIFETIME = Duration.ofSeconds(86_400);

  /**
   * How long a retired key still verifies: every token it signed before retirement has expired by
   * then; the extra minute covers replicas that signed with it just as it was retired.
   */
  public static final Duration RETIRED_KEY_WINDOW = LONGEST_LIFETIME.plusSeconds(60);

  /** How far {@code iat} may lie ahead of this gateway's clock (another replica's clock). */
  public static final Duration ISSUED_AT_LEEWAY = Duration.ofSeconds(5);

  /** The keys tokens may be signed with. */
  @FunctionalInterface
  public interface Keys {
    /** The key with {@code kid}, if we have (or had) it. */
    Optional<PublicKey> find(String kid);
  }

  /**
   * A public key of ours.
   *
   * @param retiredAt null while it is the active key
   */
  public record PublicKey(ECKey key, @Nullable Instant retiredAt) {

    /** Whether tokens signed with this key are still accepted at {@code now}. */
    public boolean verifiesAt(Instant now) {
      return retiredAt == null || now.isBefore(retiredAt.plus(RETIRED_KEY_WINDOW));
    }
  }

  /** Where merchants stand, as API-key authentication sees them. */
  @FunctionalInterface
  public interface Merchants {
    Optional<Standing> find(String merchantId);
  }

  /**
   * @param active false once deactivated
   * @param live true once activated for live payments
   */
  public record Standing(String name, boolean active, boolean live) {}

  private final Keys keys;
  private final Merchants merchants;
  private final String issuer;
  private final Clock clock;

  public EmbedTokenVerifier(Keys keys, Merchants merchants, String issuer, Clock clock) {
    this.keys = keys;
    this.merchants = merchants;
    this.issuer = issuer;
    this.clock = clock;
  }

  public Verification verify(String token) {
    if (token == null || token.isEmpty() || token.length() > MAX_LENGTH) {
      return new Refused(Reason.MALFORMED);
    }
    SignedJWT jwt;
    try {
      jwt = SignedJWT.parse(token);
    } catch (ParseException | RuntimeException e) {
      // alg "none" does not parse as a JWS either.
      return new Refused(Reason.MALFORMED);
    }
    JWSHeader header = jwt.getHeader();
    if (!JWSAlgorithm.ES256.equals(header.getAlgorithm())
        || !JOSEObjectType.JWT.equals(header.getType())) {
      return new Refused(Reason.ALGORITHM);
    }
    String kid = header.getKeyID();
    Optional<PublicKey> key = kid == null ? Optional.empty() : keys.find(kid);
    if (key.isEmpty()) {
      return new Refused(Reason.UNKNOWN_KEY);
    }
    Instant now = clock.instant();
    if (!key.get().verifiesAt(now)) {
      return new Refused(Reason.KEY_RETIRED);
    }
    try {
      if (!jwt.verify(new ECDSAVerifier(key.get().key().toECPublicKey()))) {
        return new Refused(Reason.SIGNATURE);
      }
    } catch (JOSEException | IllegalStateException e) {
      return new Refused(Reason.SIGNATURE);
    }
    JWTClaimsSet body;
    try {
      body = jwt.getJWTClaimsSet();
    } catch (ParseException e) {
      return new Refused(Reason.MALFORMED);
    }
    if (!issuer.equals(body.getIssuer())) {
      return new Refused(Reason.ISSUER);
    }
    Date expires = body.getExpirationTime();
    Date issued = body.getIssueTime();
    if (expires == null || issued == null) {
      return new Refused(Reason.CLAIMS);
    }
    if (!now.isBefore(expires.toInstant())) {
      return new Refused(Reason.EXPIRED);
    }
    if (issued.toInstant().isAfter(now.plus(ISSUED_AT_LEEWAY))) {
      return new Refused(Reason.NOT_YET_VALID);
    }
    Duration lifetime = Duration.between(issued.toInstant(), expires.toInstant());
    if (lifetime.compareTo(Duration.ofSeconds(1)) < 0 || lifetime.compareTo(LONGEST_LIFETIME) > 0) {
      return new Refused(Reason.LIFETIME);
    }
    Optional<EmbedClaims> claims = claims(body);
    if (claims.isEmpty()) {
      return new Refused(Reason.CLAIMS);
    }
    Optional<Standing> merchant = merchants.find(claims.get().merchantId());
    if (merchant.isEmpty()
        || !merchant.get().active()
        || ("live".equals(claims.get().environment()) && !merchant.get().live())) {
      return new Refused(Reason.MERCHANT);
    }
    return new Verification.Verified(claims.get(), merchant.get().name());
  }

  /** The claims, if every one is present and has a value a token of ours carries. */
  private static Optional<EmbedClaims> claims(JWTClaimsSet body) {
    try {
      String merchant = body.getStringClaim(EmbedClaims.MERCHANT);
      String environment = body.getStringClaim(EmbedClaims.ENVIRONMENT);
      List<String> audiences = body.getAudience();
      Optional<Audience> audience =
          audiences.size() == 1 ? Audience.fromWire(audiences.get(0)) : Optional.empty();
      Optional<Surface> surface = Surface.fromWire(body.getStringClaim(EmbedClaims.SURFACE));
      String tokenId = body.getJWTID();
      String project = body.getStringClaim(EmbedClaims.PROJECT);
      if (!IdType.MERCHANT.matches(merchant)
          || !merchant.equals(body.getSubject())
          || !("test".equals(environment) || "live".equals(environment))
          || audience.isEmpty()
          || surface.isEmpty()
          || tokenId == null
          || tokenId.isEmpty()
          || tokenId.length() > 64
          || project == null) {
        return Optional.empty();
      }
      Optional<List<Tab>> tabs = tabs(body.getStringListClaim(EmbedClaims.TABS), audience.get());
      if (tabs.isEmpty()) {
        return Optional.empty();
      }
      String customer = null;
      Map<String, Object> scope = body.getJSONObjectClaim(EmbedClaims.SCOPE);
      if (scope != null) {
        if (scope.size() != 2
            || !EmbedClaims.CUSTOMER_ID.equals(scope.get(EmbedClaims.SCOPE_FIELD))
            || !(scope.get(EmbedClaims.SCOPE_VALUE) instanceof String value)
            || !IdType.CUSTOMER.matches(value)) {
          return Optional.empty();
        }
        customer = value;
      } else if (audience.get() == Audience.CUSTOMER) {
        return Optional.empty();
      }
      return Optional.of(
          new EmbedClaims(
              merchant,
              environment,
              audience.get(),
              surface.get(),
              tabs.get(),
              customer,
              UUID.fromString(project),
              body.getIssueTime().toInstant(),
              body.getExpirationTime().toInstant(),
              tokenId));
    } catch (ParseException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static Optional<List<Tab>> tabs(@Nullable List<String> names, Audience audience) {
    if (names == null || names.isEmpty()) {
      return Optional.empty();
    }
    List<Tab> tabs = new ArrayList<>();
    Set<Tab> seen = new HashSet<>();
    for (String name : names) {
      Optional<Tab> tab = Tab.fromWire(name);
      if (tab.isEmpty() || !audience.allows(tab.get()) || !seen.add(tab.get())) {
        return Optional.empty();
      }
      tabs.add(tab.get());
    }
    return Optional.of(tabs);
  }
}
