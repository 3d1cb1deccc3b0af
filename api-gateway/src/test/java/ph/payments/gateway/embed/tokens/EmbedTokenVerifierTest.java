package ph.payments.gateway.embed.tokens;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.embed.tokens.EmbedTokenVerifier.PublicKey;
import ph.payments.gateway.embed.tokens.EmbedTokenVerifier.Standing;
import ph.payments.gateway.embed.tokens.Verification.Reason;
import ph.payments.gateway.ratelimit.MovableClock;
import ph.payments.platform.ids.IdType;

/**
 * The claims an embed token carries, and every refusal of {@link EmbedTokenVerifier}, each for its
 * own reason: a token that is good but for one thing is refused for that thing, and the same token
 * without it verifies.
 */
class EmbedTokenVerifierTest {

  private static final String ISSUER = "https://pay.example.ph";
  private static final Instant NOW = Instant.parse("2026-11-21T08:00:00Z");

  private final MovableClock clock = new MovableClock();
  private final ECKey keyA = key();
  private final ECKey keyB = key();
  private final Map<String, PublicKey> keys = new HashMap<>();
  private final Map<String, Standing> merchants = new HashMap<>();
  private final String merchant = IdType.MERCHANT.generate();
  private final String customer = IdType.CUSTOMER.generate();
  private final EmbedTokenSigner signer = new EmbedTokenSigner(ISSUER);
  private final EmbedTokenVerifier verifier =
      new EmbedTokenVerifier(
          kid -> Optional.ofNullable(keys.get(kid)),
          id -> Optional.ofNullable(merchants.get(id)),
          ISSUER,
          clock);

  EmbedTokenVerifierTest() {
    clock.set(NOW);
    keys.put(keyA.getKeyID(), new PublicKey(keyA.toPublicJWK(), null));
    keys.put(keyB.getKeyID(), new PublicKey(keyB.toPublicJWK(), NOW.minus(Duration.ofHours(1))));
    merchants.put(merchant, new Standing("Sari-sari Store", true, false));
  }

  @Test
  void aGoodTokenCarriesEveryClaimAndVerifiesToThem() throws Exception {
    EmbedClaims claims = claims(Audience.CUSTOMER, List.of(Tab.INVOICES, Tab.PAYMENTS), customer);
    String token = signer.sign(claims, keyA);

    SignedJWT jwt = SignedJWT.parse(token);
    assertEquals(JWSAlgorithm.ES256, jwt.getHeader().getAlgorithm());
    assertEquals(keyA.getKeyID(), jwt.getHeader().getKeyID());
    assertEquals(JOSEObjectType.JWT, jwt.getHeader().getType());
    Map<String, Object> body = jwt.getJWTClaimsSet().toJSONObject();
    assertEquals(
        java.util.Set.of(
            "iss", "sub", "aud", "iat", "exp", "jti", "mer", "env", "srf", "tabs", "scp", "prj"),
        body.keySet());
    assertEquals(ISSUER, body.get("iss"));
    assertEquals(merchant, body.get("sub"));
    assertEquals(merchant, body.get("mer"));
    assertEquals("test", body.get("env"));
    assertEquals("customer", body.get("aud"));
    assertEquals("panel", body.get("srf"));
    assertEquals(List.of("invoices", "payments"), body.get("tabs"));
    assertEquals(Map.of("field", "customer_id", "value", customer), body.get("scp"));
    assertEquals(claims.projectUuid().toString(), body.get("prj"));
    assertEquals(NOW.getEpochSecond(), body.get("iat"));
    assertEquals(NOW.plusSeconds(1800).getEpochSecond(), body.get("exp"));

    Verification.Verified verified = assertInstanceOf(Verification.Verified.class, verify(token));
    assertEquals(claims, verified.claims());
    assertEquals("Sari-sari Store", verified.merchantName());

    String unscoped = signer.sign(claims(Audience.MERCHANT, List.of(Tab.values()), null), keyA);
    assertFalse(SignedJWT.parse(unscoped).getJWTClaimsSet().getClaims().containsKey("scp"));
    assertNull(
        assertInstanceOf(Verification.Verified.class, verify(unscoped)).claims().customerId());
  }

  @Test
  void anExpiredTokenIsRefusedFromItsExpWithoutLeeway() {
    String token = good();
    clock.set(NOW.plusSeconds(1800).minusMillis(1));
    assertInstanceOf(Verification.Verified.class, verify(token));
    clock.set(NOW.plusSeconds(1800));
    assertRefused(Reason.EXPIRED, token);
  }

  @Test
  void aTamperedPayloadIsRefused() throws Exception {
    String token = good();
    String[] parts = token.split("\\.");
    String payload = new String(Base64URL.from(parts[1]).decode(), StandardCharsets.UTF_8);
    String live = payload.replace("\"env\":\"test\"", "\"env\":\"live\"");
    assertTrue(!live.equals(payload), payload);
    String tampered =
        parts[0] + "." + Base64URL.encode(live.getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
    assertRefused(Reason.SIGNATURE, tampered);
  }

  @Test
  void aTamperedSignatureIsRefused() {
    String token = good();
    int last = token.lastIndexOf('.') + 5;
    char flipped = token.charAt(last) == 'A' ? 'B' : 'A';
    assertRefused(Reason.SIGNATURE, token.substring(0, last) + flipped + token.substring(last + 1));
    // No signature at all does not even parse as a JWS.
    assertRefused(Reason.MALFORMED, token.substring(0, token.lastIndexOf('.') + 1));
  }

  @Test
  void aTokenNamingAnUnknownKeyOrNoKeyOrAnotherKeyIsRefused() throws Exception {
    EmbedClaims claims = claims(Audience.MERCHANT, List.of(Tab.PAYMENTS), null);
    ECKey stranger = key();
    assertRefused(Reason.UNKNOWN_KEY, signer.sign(claims, stranger));
    assertRefused(Reason.UNKNOWN_KEY, signed(header(keyA).keyID(null), claimsOf(good()), keyA));
    // Signed with A but naming B, which we hold: B's key does not verify it.
    ECKey aNamedB = new ECKey.Builder(keyA).keyID(keyB.getKeyID()).build();
    keys.put(keyB.getKeyID(), new PublicKey(keyB.toPublicJWK(), null));
    assertRefused(Reason.SIGNATURE, signer.sign(claims, aNamedB));
  }

  @Test
  void algNoneIsRefused() throws Exception {
    String payload = good().split("\\.")[1];
    String none =
        Base64URL.encode("{\"alg\":\"none\",\"typ\":\"JWT\",\"kid\":\"" + keyA.getKeyID() + "\"}")
            + "."
            + payload
            + ".";
    assertRefused(Reason.MALFORMED, none);
  }

  @Test
  void hs256WithThePublicKeyAsTheSecretIsRefused() throws Exception {
    JWSHeader header =
        new JWSHeader.Builder(JWSAlgorithm.HS256)
            .keyID(keyA.getKeyID())
            .type(JOSEObjectType.JWT)
            .build();
    SignedJWT jwt = new SignedJWT(header, claimsOf(good()));
    jwt.sign(new MACSigner(keyA.toPublicJWK().toECPublicKey().getEncoded()));
    assertRefused(Reason.ALGORITHM, jwt.serialize());

    SignedJWT asJwk = new SignedJWT(header, claimsOf(good()));
    asJwk.sign(new MACSigner(keyA.toPublicJWK().toJSONString().getBytes(StandardCharsets.UTF_8)));
    assertRefused(Reason.ALGORITHM, asJwk.serialize());
  }

  @Test
  void aTypOtherThanJwtIsRefused() throws Exception {
    assertRefused(Reason.ALGORITHM, signed(header(keyA).type(null), claimsOf(good()), keyA));
    assertRefused(
        Reason.ALGORITHM,
        signed(header(keyA).type(new JOSEObjectType("at+jwt")), claimsOf(good()), keyA));
  }

  @Test
  void anotherIssuerIsRefused() throws Exception {
    String token = new EmbedTokenSigner("https://evil.example").sign(standard(), keyA);
    assertRefused(Reason.ISSUER, token);
    assertRefused(Reason.ISSUER, new EmbedTokenSigner(ISSUER + "/").sign(standard(), keyA));
  }

  @Test
  void anInactiveUnknownOrNotLiveMerchantsTokenIsRefused() {
    String token = good();
    merchants.put(merchant, new Standing("Sari-sari Store", false, true));
    assertRefused(Reason.MERCHANT, token);
    merchants.remove(merchant);
    assertRefused(Reason.MERCHANT, token);

    String liveToken = signer.sign(paymentsTab("live", NOW, NOW.plusSeconds(60)), keyA);
    merchants.put(merchant, new Standing("Sari-sari Store", true, false));
    assertRefused(Reason.MERCHANT, liveToken);
    merchants.put(merchant, new Standing("Sari-sari Store", true, true));
    assertInstanceOf(Verification.Verified.class, verify(liveToken));
  }

  @Test
  void aRotatedKeyStillVerifiesTheTokensItSigned() {
    // keyB was retired an hour ago; what it signed before still verifies.
    EmbedClaims signedBefore =
        paymentsTab("test", NOW.minus(Duration.ofHours(2)), NOW.plus(Duration.ofHours(20)));
    assertInstanceOf(Verification.Verified.class, verify(signer.sign(signedBefore, keyB)));
  }

  @Test
  void aRetiredKeyPastItsWindowVerifiesNothingEvenAFreshlySignedToken() {
    Instant retired = NOW;
    keys.put(keyB.getKeyID(), new PublicKey(keyB.toPublicJWK(), retired));
    // A token signed with the retired key after its retirement (a stale replica, or a leaked
    // retired key): accepted only while the key's window lasts.
    clock.set(retired.plusSeconds(86_400 + 59));
    assertInstanceOf(Verification.Verified.class, verify(freshlySigned(keyB)));
    clock.set(retired.plusSeconds(86_400 + 60));
    assertRefused(Reason.KEY_RETIRED, freshlySigned(keyB));
    assertInstanceOf(Verification.Verified.class, verify(freshlySigned(keyA)));
  }

  @Test
  void anIssuedAtMoreThanFiveSecondsAheadIsRefused() throws Exception {
    assertInstanceOf(
        Verification.Verified.class, verify(signedAt(NOW.plusSeconds(5), NOW.plusSeconds(65))));
    assertRefused(Reason.NOT_YET_VALID, signedAt(NOW.plusSeconds(6), NOW.plusSeconds(66)));
  }

  @Test
  void aLifetimeBeyond86400SecondsOrNoneIsRefused() throws Exception {
    assertInstanceOf(Verification.Verified.class, verify(signedAt(NOW, NOW.plusSeconds(86_400))));
    assertRefused(Reason.LIFETIME, signedAt(NOW, NOW.plusSeconds(86_401)));
    clock.set(NOW.minusSeconds(3));
    assertRefused(Reason.LIFETIME, signedAt(NOW, NOW));
  }

  @Test
  void claimsNoTokenOfOursCarriesAreRefused() throws Exception {
    JWTClaimsSet base = claimsOf(good());
    List<UnaryOperator<JWTClaimsSet.Builder>> wrongs =
        List.of(
            b -> b.claim("scp", null).audience("customer").claim("tabs", List.of("payments")),
            b ->
                b.audience("customer")
                    .claim("tabs", List.of("payments", "payouts"))
                    .claim("scp", Map.of("field", "customer_id", "value", customer)),
            b -> b.claim("tabs", List.of("payments", "payments")),
            b -> b.claim("tabs", List.of("payments", "refunds")),
            b -> b.claim("tabs", List.of()),
            b -> b.claim("tabs", null),
            b -> b.subject(IdType.MERCHANT.generate()),
            b -> b.claim("mer", "mer_nope"),
            b -> b.claim("env", "staging"),
            b -> b.audience(List.of("merchant", "customer")),
            b -> b.audience((String) null),
            b -> b.claim("srf", "dashboard"),
            b -> b.claim("scp", Map.of("field", "external_id", "value", customer)),
            b -> b.claim("scp", Map.of("field", "customer_id", "value", "someone")),
            b -> b.claim("prj", "not-a-uuid"),
            b -> b.claim("prj", null),
            b -> b.jwtID(null));
    for (UnaryOperator<JWTClaimsSet.Builder> wrong : wrongs) {
      JWTClaimsSet claims = wrong.apply(new JWTClaimsSet.Builder(base)).build();
      assertRefused(Reason.CLAIMS, signed(header(keyA), claims, keyA), claims.toString());
    }
    assertRefused(
        Reason.CLAIMS,
        signed(header(keyA), new JWTClaimsSet.Builder(base).expirationTime(null).build(), keyA));
    assertInstanceOf(Verification.Verified.class, verify(signed(header(keyA), base, keyA)));
  }

  @Test
  void whatIsNotACompactJwsOfOursIsMalformed() {
    assertRefused(Reason.MALFORMED, "");
    assertRefused(Reason.MALFORMED, "not.a.token");
    assertRefused(Reason.MALFORMED, "a".repeat(5000));
    assertRefused(Reason.MALFORMED, good() + "x".repeat(EmbedTokenVerifier.MAX_LENGTH));
  }

  // ---------------------------------------------------------------------------------------------

  private Verification verify(String token) {
    return verifier.verify(token);
  }

  private void assertRefused(Reason reason, String token) {
    assertRefused(reason, token, "");
  }

  private void assertRefused(Reason reason, String token, String what) {
    Verification verification = verify(token);
    assertEquals(new Verification.Refused(reason), verification, what);
  }

  private String good() {
    return signer.sign(standard(), keyA);
  }

  private EmbedClaims standard() {
    return claims(Audience.MERCHANT, List.of(Tab.PAYMENTS, Tab.EVENTS), null);
  }

  private EmbedClaims claims(Audience audience, List<Tab> tabs, String customerId) {
    return new EmbedClaims(
        merchant,
        "test",
        audience,
        Surface.PANEL,
        tabs,
        customerId,
        UUID.randomUUID(),
        NOW,
        NOW.plusSeconds(1800),
        "jti-" + UUID.randomUUID());
  }

  private String freshlySigned(ECKey key) {
    Instant now = clock.instant();
    return signer.sign(paymentsTab("test", now, now.plusSeconds(600)), key);
  }

  /** An unscoped merchant token of the payments tab. */
  private EmbedClaims paymentsTab(String environment, Instant issued, Instant expires) {
    return new EmbedClaims(
        merchant,
        environment,
        Audience.MERCHANT,
        Surface.PAYMENTS,
        List.of(Tab.PAYMENTS),
        null,
        UUID.randomUUID(),
        issued,
        expires,
        "jti-" + UUID.randomUUID());
  }

  private String signedAt(Instant issued, Instant expires) throws Exception {
    JWTClaimsSet claims =
        new JWTClaimsSet.Builder(claimsOf(good()))
            .issueTime(Date.from(issued))
            .expirationTime(Date.from(expires))
            .build();
    return signed(header(keyA), claims, keyA);
  }

  private static JWTClaimsSet claimsOf(String token) {
    try {
      return SignedJWT.parse(token).getJWTClaimsSet();
    } catch (java.text.ParseException e) {
      throw new IllegalStateException(e);
    }
  }

  private static JWSHeader.Builder header(ECKey key) {
    return new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(key.getKeyID()).type(JOSEObjectType.JWT);
  }

  private static String signed(JWSHeader.Builder header, JWTClaimsSet claims, ECKey key)
      throws Exception {
    SignedJWT jwt = new SignedJWT(header.build(), claims);
    jwt.sign(new ECDSASigner(key));
    return jwt.serialize();
  }

  private static ECKey key() {
    try {
      return new ECKeyGenerator(Curve.P_256).keyID(IdType.EMBED_KEY.generate()).generate();
    } catch (com.nimbusds.jose.JOSEException e) {
      throw new IllegalStateException(e);
    }
  }
}
