package ph.payments.gateway.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jwt.SignedJWT;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.MovableClock;
import ph.payments.gateway.support.Operator;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;

/**
 * Embed tokens over real sockets against the real gateway and its database (issue 18): {@code POST
 * /v1/embed_tokens} (body rules, defaults, scopes, idempotent replays with the token sealed at
 * rest), the JWKS and key rotation on a moved clock, and the {@code /embed/v1} gate: every bad
 * token 401 {@code invalid_token}, a missing tab 403, nothing mutates, CORS on {@code /embed/v1}
 * only. Reads that need payments-service's data (customer scope) are {@code EmbedE2EIT}'s; here the
 * owners are unreachable, so no test can pass by reaching one.
 */
@MicronautTest(transactional = false)
class EmbedTokensIT extends GatewayTest {

  private static final String ORIGIN = "https://shop.example.ph";

  @Inject MovableClock clock;
  @Inject Transactions transactions;

  private final Set<String> minted = ConcurrentHashMap.newKeySet();
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private Operator.Merchant merchant;

  @Factory
  @Requires(property = "spec.name", value = "EmbedTokensIT")
  static class Clocks {
    @Singleton
    MovableClock clock() {
      return new MovableClock();
    }
  }

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of(
        "spec.name", "EmbedTokensIT",
        // Nothing answers there: a read that reached an owner would fail, not pass.
        "gateway.services.payments-url", "http://127.0.0.1:1",
        "gateway.services.ledger-url", "http://127.0.0.1:1",
        "gateway.edge.embed-per-minute", "100000");
  }

  @BeforeAll
  void setUp() {
    logs.start();
    root().addAppender(logs);
    merchant = operator().createMerchant("Embed Store");
    operator().setRateLimit(merchant.testKeyId(), 10_000);
  }

  @AfterAll
  void tokensWereNeverLoggedNorStoredInClear() {
    root().detachAppender(logs);
    assertTrue(minted.size() >= 10, "tokens minted: " + minted.size());
    assertFalse(logs.list.isEmpty(), "the gateway's log was captured");
    for (ILoggingEvent event : logs.list) {
      String line = event.getFormattedMessage() + String.valueOf(event.getThrowableProxy());
      for (String token : minted) {
        assertFalse(line.contains(token), "a log line holds a token: " + event.getLoggerName());
        assertFalse(line.contains(token.substring(token.lastIndexOf('.'))), "a token's signature");
      }
    }
    List<String> rows = everyRowAsText();
    assertTrue(rows.size() > 20, "rows searched: " + rows.size());
    for (String row : rows) {
      for (String token : minted) {
        assertFalse(row.contains(token.substring(token.lastIndexOf('.') + 1)), "stored: " + row);
      }
    }
  }

  // ----- POST /v1/embed_tokens -------------------------------------------------------------------

  @Test
  void aTokenIsMadeWithTheDefaultsAndTheResponseEchoesWhatWasAskedButNeverTheScopeValue()
      throws Exception {
    String project = UUID.randomUUID().toString();
    Http.Response made =
        mint(merchant.testSecret(), Map.of("project_uuid", project, "audience", "merchant"));
    assertEquals(201, made.status(), made.body());
    List<String> fields = new ArrayList<>();
    made.json().fieldNames().forEachRemaining(fields::add);
    assertEquals(
        List.of(
            "object",
            "token",
            "expires_at",
            "project_uuid",
            "surface",
            "audience",
            "scope_field",
            "tabs",
            "ttl_seconds"),
        fields);
    assertEquals("embed_token", made.json().get("object").asText());
    assertEquals(project, made.json().get("project_uuid").asText());
    assertEquals("payments", made.json().get("surface").asText());
    assertEquals("merchant", made.json().get("audience").asText());
    assertTrue(made.json().get("scope_field").isNull());
    assertTrue(made.json().get("tabs").isNull(), "tabs echo what was asked: nothing");
    assertEquals(1800, made.json().get("ttl_seconds").asInt());

    SignedJWT jwt = SignedJWT.parse(made.json().get("token").asText());
    Map<String, Object> claims = jwt.getJWTClaimsSet().toJSONObject();
    assertEquals(List.of("payments"), claims.get("tabs"), "the token carries the effective tabs");
    assertEquals(merchant.id(), claims.get("mer"));
    assertEquals(merchant.id(), claims.get("sub"));
    assertEquals("test", claims.get("env"));
    assertEquals("merchant", claims.get("aud"));
    assertEquals("http://localhost:8080", claims.get("iss"));
    assertEquals(project, claims.get("prj"));
    assertFalse(claims.containsKey("scp"));
    Instant expiresAt = Instant.parse(made.json().get("expires_at").asText());
    assertEquals(jwt.getJWTClaimsSet().getExpirationTime().toInstant(), expiresAt);
    assertEquals(
        Duration.ofSeconds(1800),
        Duration.between(jwt.getJWTClaimsSet().getIssueTime().toInstant(), expiresAt));
    assertTrue(made.json().get("expires_at").asText().endsWith("Z"), "ISO-8601 in UTC");
    assertTrue(
        jwks().stream().anyMatch(k -> k.get("kid").asText().equals(jwt.getHeader().getKeyID())));

    Http.Response session = embed("/embed/v1/session", made.json().get("token").asText());
    assertEquals(200, session.status(), session.body());
    assertEquals(
        Json.tree(
            "{\"object\":\"embed_session\",\"merchant\":{\"id\":\""
                + merchant.id()
                + "\",\"name\":\"Embed Store\"},\"environment\":\"test\",\"audience\":\"merchant\","
                + "\"surface\":\"payments\",\"tabs\":[\"payments\"],\"expires_at\":\""
                + made.json().get("expires_at").asText()
                + "\"}"),
        session.json());
  }

  @Test
  void thePanelWithoutTabsGetsEveryTabOfTheAudienceAndGivenTabsAreKeptInTheirOrder()
      throws Exception {
    Http.Response panel = mint(merchant.testSecret(), body("surface", "panel", "ttl_seconds", 60));
    assertEquals(201, panel.status(), panel.body());
    assertEquals(60, panel.json().get("ttl_seconds").asInt());
    assertEquals(
        List.of("payments", "payouts", "balance", "invoices", "customers", "events"), tabs(panel));

    Http.Response chosen =
        mint(merchant.testSecret(), body("surface", "panel", "tabs", List.of("events", "balance")));
    assertEquals(201, chosen.status(), chosen.body());
    assertEquals(List.of("events", "balance"), tabs(chosen));
    assertEquals("[\"events\",\"balance\"]", chosen.json().get("tabs").toString());
    Http.Response session = embed("/embed/v1/session", chosen.json().get("token").asText());
    assertEquals("[\"events\",\"balance\"]", session.json().get("tabs").toString());

    Http.Response longest = mint(merchant.testSecret(), body("ttl_seconds", 86_400));
    assertEquals(201, longest.status(), longest.body());
  }

  @Test
  void everyBodyRuleIsA400NamingItsField() {
    Map<String, Map<String, Object>> cases = new LinkedHashMap<>();
    cases.put("project_uuid", without("project_uuid"));
    cases.put("project_uuid ", with("project_uuid", "not-a-uuid-but-36-characters-long-xx"));
    cases.put("project_uuid  ", with("project_uuid", 12));
    cases.put("audience", without("audience"));
    cases.put("audience ", with("audience", "staff"));
    cases.put("surface", with("surface", "dashboard"));
    cases.put("scope_field", with("scope_field", "email", "scope_value", "a@b.c"));
    cases.put("scope_value", with("scope_field", "customer_id"));
    cases.put("scope_field ", with("scope_value", "cus_x"));
    cases.put("scope_value ", with("scope_field", "external_id", "scope_value", ""));
    cases.put("scope_value  ", with("scope_field", "external_id", "scope_value", "x".repeat(256)));
    cases.put("scope_field  ", with("audience", "customer"));
    cases.put("tabs", with("tabs", List.of()));
    cases.put("tabs ", with("tabs", List.of("payments", "payments")));
    cases.put("tabs  ", with("tabs", List.of("payments", "refunds")));
    cases.put("tabs   ", with("tabs", "payments"));
    cases.put(
        "tabs    ",
        with(
            "audience",
            "customer",
            "scope_field",
            "customer_id",
            "scope_value",
            "cus_x",
            "tabs",
            List.of("payments", "payouts")));
    cases.put("ttl_seconds", with("ttl_seconds", 59));
    cases.put("ttl_seconds ", with("ttl_seconds", 86_401));
    cases.put("ttl_seconds  ", with("ttl_seconds", 60.5));
    cases.put("colour", with("colour", "blue"));
    cases.put("scope_value   ", with("scope_field", "customer_id", "scope_value", 7));
    cases.forEach(
        (field, body) -> {
          Http.Response refused = mint(merchant.testSecret(), body);
          assertEquals(400, refused.status(), field + ": " + refused.body());
          assertEquals("invalid_request", refused.errorCode());
          assertTrue(
              refused.json().at("/error/issues").has(field.strip()), field + ": " + refused.body());
        });
    Http.Response notJson = http().post("/v1/embed_tokens", merchant.testSecret(), "[1,2]");
    assertEquals(400, notJson.status(), notJson.body());
    // Nothing was recorded for a refused body.
    assertEquals(
        0,
        count(
            "SELECT count(*) FROM commands WHERE command_type = 'embed_tokens.create'"
                + " AND reply_status = 400"));
  }

  @Test
  void aCustomerIdThatCannotBeACustomerIsNotFoundWithoutAskingTheOwner() {
    Http.Response refused =
        mint(
            merchant.testSecret(),
            body("audience", "customer", "scope_field", "customer_id", "scope_value", "juan"));
    assertEquals(404, refused.status(), refused.body());
    assertEquals("customer_not_found", refused.errorCode());
    assertFalse(refused.body().contains("juan"), "the scope value is never echoed");
  }

  @Test
  void aKeyNeedsEmbedWriteOrEmbedTokensWriteOrStar() {
    for (String scope : List.of("embed:write", "embed_tokens:write")) {
      Operator.Key key = operator().createKey(merchant.id(), "test", List.of(scope));
      Http.Response made = mint(key.secret(), body());
      assertEquals(201, made.status(), scope + ": " + made.body());
    }
    Operator.Key reader =
        operator().createKey(merchant.id(), "test", List.of("payments:read", "customers:read"));
    Http.Response refused = mint(reader.secret(), body());
    assertEquals(403, refused.status(), refused.body());
    assertEquals("insufficient_scope", refused.errorCode());
    assertTrue(refused.body().contains("embed:write or embed_tokens:write"), refused.body());
    assertEquals(401, http().post("/v1/embed_tokens", null, Json.toText(body())).status());
  }

  @Test
  void aDuplicateWithTheSameIdempotencyKeyAnswersTheOriginalTokenAndTheTokenRestsSealed() {
    String key = "embed-" + System.nanoTime();
    Map<String, Object> body = body("surface", "panel");
    Http.Response first = mint(merchant.testSecret(), body, "Idempotency-Key", key);
    assertEquals(201, first.status(), first.body());
    Http.Response again = mint(merchant.testSecret(), body, "Idempotency-Key", key);
    assertEquals(201, again.status(), again.body());
    assertEquals(first.body(), again.body(), "byte for byte, the same token");
    assertEquals("true", again.header("Idempotent-Replayed").orElse(null));
    assertTrue(first.header("Idempotent-Replayed").isEmpty());

    Http.Response other =
        mint(merchant.testSecret(), body("surface", "payments"), "Idempotency-Key", key);
    assertEquals(409, other.status(), other.body());
    assertEquals("conflict", other.errorCode());

    String token = first.json().get("token").asText();
    assertEquals(
        1,
        count(
            "SELECT count(*) FROM idempotency_keys WHERE idempotency_key = ?"
                + " AND response_body::text LIKE '%sealed:v1:%'",
            key));
    assertEquals(
        0,
        count(
            "SELECT count(*) FROM commands WHERE reply_body::text LIKE ?",
            "%" + token.substring(token.lastIndexOf('.') + 1) + "%"));
    assertEquals(
        1,
        count(
            "SELECT count(*) FROM commands c JOIN idempotency_keys i USING (command_id)"
                + " WHERE i.idempotency_key = ? AND c.topic = 'gateway.local'"
                + " AND c.reply_status = 201",
            key));
  }

  // ----- JWKS and rotation
  // ------------------------------------------------------------------------

  @Test
  void theJwksIsPublicCacheableAndHoldsPublicKeysOnly() {
    Http.Response jwks = http().get("/.well-known/jwks.json", null);
    assertEquals(200, jwks.status(), jwks.body());
    assertEquals("public, max-age=300", jwks.header("Cache-Control").orElse(null));
    assertTrue(jwks.header("Content-Type").orElse("").startsWith("application/json"));
    assertFalse(jwks.json().get("keys").isEmpty());
    for (JsonNode key : jwks.json().get("keys")) {
      assertEquals("EC", key.get("kty").asText());
      assertEquals("P-256", key.get("crv").asText());
      assertEquals("ES256", key.get("alg").asText());
      assertEquals("sig", key.get("use").asText());
      assertTrue(key.get("kid").asText().startsWith("ek_"));
      assertFalse(key.has("d"), "never the private part");
      assertEquals(Set.of("kty", "crv", "x", "y", "kid", "use", "alg"), names(key));
    }
    assertEquals(
        0,
        count("SELECT count(*) FROM embed_signing_keys WHERE private_jwk NOT LIKE 'sealed:v1:%'"));
    assertEquals(
        0, count("SELECT count(*) FROM embed_signing_keys WHERE private_jwk LIKE '%\"d\"%'"));
  }

  @Test
  void rotationMakesANewKeyAndTheRetiredOneVerifiesItsTokensUntilItsWindowEnds() throws Exception {
    String before =
        mint(merchant.testSecret(), body("ttl_seconds", 86_400)).json().get("token").asText();
    String oldKid = SignedJWT.parse(before).getHeader().getKeyID();

    assertEquals(401, http().post("/admin/v1/embed_keys/rotate", null, null).status());
    assertEquals(401, http().post("/admin/v1/embed_keys/rotate", "wrong", null).status());
    Http.Response rotated = http().post("/admin/v1/embed_keys/rotate", ADMIN_TOKEN, null);
    assertEquals(200, rotated.status(), rotated.body());
    String newKid = rotated.json().get("kid").asText();
    assertNotEquals(oldKid, newKid);
    assertEquals("active", rotated.json().get("status").asText());
    Instant rotatedAt = Instant.ofEpochSecond(rotated.json().get("created").asLong());

    String after = mint(merchant.testSecret(), body()).json().get("token").asText();
    assertEquals(newKid, SignedJWT.parse(after).getHeader().getKeyID());
    assertEquals(200, embed("/embed/v1/session", before).status(), "the old key still verifies");
    assertEquals(200, embed("/embed/v1/session", after).status());
    assertEquals(Set.of(oldKid, newKid), kids(jwks()));

    Http.Response listed = http().get("/admin/v1/embed_keys", ADMIN_TOKEN);
    assertEquals(200, listed.status(), listed.body());
    JsonNode old = null;
    for (JsonNode key : listed.json().get("data")) {
      if (key.get("kid").asText().equals(oldKid)) {
        old = key;
      }
      assertFalse(key.has("d") || key.toString().contains("sealed:"), key.toString());
    }
    assertEquals("retired", old.get("status").asText());
    assertEquals(
        old.get("retired_at").asLong() + 86_400 + 60, old.get("verifiable_until").asLong());
    assertTrue(Math.abs(old.get("retired_at").asLong() - rotatedAt.getEpochSecond()) <= 1);

    clock.advance(Duration.ofSeconds(86_400 + 61));
    assertEquals(Set.of(newKid), kids(jwks()), "the retired key left the JWKS");
    assertEquals(401, embed("/embed/v1/session", before).status(), "and its tokens are gone");
    String later = mint(merchant.testSecret(), body()).json().get("token").asText();
    assertEquals(newKid, SignedJWT.parse(later).getHeader().getKeyID());
    assertEquals(200, embed("/embed/v1/session", later).status());
  }

  // ----- /embed/v1
  // ---------------------------------------------------------------------------------

  @Test
  void everyBadTokenIs401InvalidTokenAndTheAnswerNeverRepeatsIt() {
    String token = token(body("ttl_seconds", 120));
    char last = token.charAt(token.length() - 2);
    String tampered =
        token.substring(0, token.length() - 2)
            + (last == 'A' ? 'B' : 'A')
            + token.charAt(token.length() - 1);
    List<String> bad =
        List.of(
            "",
            "not-a-token",
            tampered,
            merchant.testSecret(),
            token.substring(0, token.lastIndexOf('.')) + ".");
    for (String presented : bad) {
      Http.Response refused = embed("/embed/v1/session", presented);
      assertEquals(401, refused.status(), refused.body());
      assertEquals("invalid_token", refused.errorCode());
      assertFalse(!presented.isEmpty() && refused.body().contains(presented), refused.body());
    }
    Http.Response none = http().get("/embed/v1/payments", null);
    assertEquals(401, none.status(), none.body());
    assertEquals("invalid_token", none.errorCode());
    Http.Response basic = http().get("/embed/v1/session", null, "Authorization", "Basic " + token);
    assertEquals(401, basic.status());
    Http.Response query = http().get("/embed/v1/session?token=" + token, null);
    assertEquals(401, query.status(), "only the Authorization header carries a token");

    assertEquals(200, embed("/embed/v1/session", token).status());
    clock.advance(Duration.ofSeconds(120));
    Http.Response expired = embed("/embed/v1/session", token);
    assertEquals(401, expired.status(), expired.body());
    assertEquals("invalid_token", expired.errorCode());
  }

  @Test
  void aDeactivatedMerchantsTokensAre401UntilItIsReactivated() {
    Operator.Merchant shop = operator().createMerchant("Closing Store");
    String token = token(shop.testSecret(), body());
    assertEquals(200, embed("/embed/v1/session", token).status());
    operator().deactivate(shop.id());
    Http.Response refused = embed("/embed/v1/session", token);
    assertEquals(401, refused.status(), refused.body());
    assertEquals("invalid_token", refused.errorCode());
    operator().reactivate(shop.id());
    assertEquals(200, embed("/embed/v1/session", token).status());
  }

  @Test
  void aTabTheTokenLacksIs403AndTheCustomerAudienceNeverHasMerchantTabs() {
    String token = token(body("tabs", List.of("payments")));
    for (String path :
        List.of(
            "/embed/v1/payouts",
            "/embed/v1/balance",
            "/embed/v1/invoices",
            "/embed/v1/customers",
            "/embed/v1/events")) {
      Http.Response refused = embed(path, token);
      assertEquals(403, refused.status(), path + ": " + refused.body());
      assertEquals("insufficient_scope", refused.errorCode(), path);
      assertEquals("*", refused.header("Access-Control-Allow-Origin").orElse(null));
    }
    // Reading a tab it has reaches the owner (unreachable here: 503, not a refusal).
    assertEquals(503, embed("/embed/v1/payments", token).status());
    Http.Response badPage = embed("/embed/v1/payments?limit=101", token);
    assertEquals(400, badPage.status(), badPage.body());
    assertEquals(404, embed("/embed/v1/payments/po_123", token).status());
  }

  @Test
  void nothingMutatesOtherMethodsAre405AndUnknownPaths404InTheEnvelope() {
    String token = token(body("surface", "panel"));
    for (String method : List.of("POST", "PUT", "PATCH", "DELETE")) {
      for (String path : List.of("/embed/v1/payments", "/embed/v1/session", "/embed/v1/balance")) {
        Http.Response refused =
            http().send(method, path, token, "{\"amount\":1}", "Origin", ORIGIN);
        assertEquals(405, refused.status(), method + " " + path + ": " + refused.body());
        assertTrue(refused.json().has("error"), refused.body());
      }
    }
    Http.Response unknown = embed("/embed/v1/refunds", token);
    assertEquals(404, unknown.status(), unknown.body());
    assertEquals("not_found", unknown.errorCode());
    Http.Response noToken = http().post("/embed/v1/payments", null, "{}");
    assertEquals(401, noToken.status(), noToken.body());
  }

  @Test
  void corsAllowsAnyOriginOnTheEmbedApiOnlyAndNeverCredentials() {
    Http.Response preflight =
        http()
            .send(
                "OPTIONS",
                "/embed/v1/payments",
                null,
                null,
                "Origin",
                ORIGIN,
                "Access-Control-Request-Method",
                "GET",
                "Access-Control-Request-Headers",
                "authorization");
    assertEquals(204, preflight.status(), preflight.body());
    assertEquals("*", preflight.header("Access-Control-Allow-Origin").orElse(null));
    assertEquals("GET", preflight.header("Access-Control-Allow-Methods").orElse(null));
    assertEquals("Authorization", preflight.header("Access-Control-Allow-Headers").orElse(null));
    assertTrue(preflight.header("Access-Control-Allow-Credentials").isEmpty());

    String token = token(body());
    Http.Response read = http().get("/embed/v1/session", token, "Origin", ORIGIN);
    assertEquals(200, read.status());
    assertEquals(List.of("*"), read.headers().allValues("Access-Control-Allow-Origin"));
    assertEquals(
        "Retry-After, X-Request-Id",
        read.header("Access-Control-Expose-Headers").orElse(null),
        "a panel on another origin can read the request id to quote it to support");
    assertTrue(read.header("Access-Control-Allow-Credentials").isEmpty());
    assertEquals("no-store", read.header("Cache-Control").orElse(null));
    assertTrue(read.header("Set-Cookie").isEmpty(), "no cookies");
    Http.Response refused = http().get("/embed/v1/session", "nope", "Origin", ORIGIN);
    assertEquals(401, refused.status());
    assertEquals("*", refused.header("Access-Control-Allow-Origin").orElse(null));

    Http.Response api = http().get("/v1/payments", merchant.testSecret(), "Origin", ORIGIN);
    assertTrue(api.header("Access-Control-Allow-Origin").isEmpty(), api.headers().toString());
    Http.Response apiPreflight =
        http()
            .send(
                "OPTIONS",
                "/v1/payments",
                null,
                null,
                "Origin",
                ORIGIN,
                "Access-Control-Request-Method",
                "GET");
    assertTrue(apiPreflight.header("Access-Control-Allow-Origin").isEmpty());
    Http.Response tokens =
        http()
            .send(
                "OPTIONS",
                "/v1/embed_tokens",
                null,
                null,
                "Origin",
                ORIGIN,
                "Access-Control-Request-Method",
                "POST");
    assertTrue(tokens.header("Access-Control-Allow-Origin").isEmpty(), "minting stays server-side");
    Http.Response jwks = http().get("/.well-known/jwks.json", null, "Origin", ORIGIN);
    assertTrue(jwks.header("Access-Control-Allow-Origin").isEmpty());
  }

  // ---------------------------------------------------------------------------------------------

  private Map<String, Object> body(Object... extra) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("project_uuid", "123e4567-e89b-12d3-a456-426614174000");
    body.put("audience", "merchant");
    for (int i = 0; i + 1 < extra.length; i += 2) {
      body.put((String) extra[i], extra[i + 1]);
    }
    return body;
  }

  private Map<String, Object> with(Object... extra) {
    return body(extra);
  }

  private Map<String, Object> without(String field) {
    Map<String, Object> body = body();
    body.remove(field);
    return body;
  }

  private Http.Response mint(String secret, Map<String, Object> body, String... headers) {
    Http.Response response = http().post("/v1/embed_tokens", secret, Json.toText(body), headers);
    if (response.status() == 201) {
      minted.add(response.json().get("token").asText());
    }
    return response;
  }

  private String token(Map<String, Object> body) {
    return token(merchant.testSecret(), body);
  }

  private String token(String secret, Map<String, Object> body) {
    Http.Response made = mint(secret, body);
    assertEquals(201, made.status(), made.body());
    return made.json().get("token").asText();
  }

  private Http.Response embed(String path, String token) {
    return http().get(path, token, "Origin", ORIGIN);
  }

  private static List<String> tabs(Http.Response made) {
    try {
      return SignedJWT.parse(made.json().get("token").asText())
          .getJWTClaimsSet()
          .getStringListClaim("tabs");
    } catch (java.text.ParseException e) {
      throw new IllegalStateException(e);
    }
  }

  private List<JsonNode> jwks() {
    Http.Response jwks = http().get("/.well-known/jwks.json", null);
    assertEquals(200, jwks.status(), jwks.body());
    List<JsonNode> keys = new ArrayList<>();
    jwks.json().get("keys").forEach(keys::add);
    return keys;
  }

  private static Set<String> kids(List<JsonNode> keys) {
    Set<String> kids = new java.util.HashSet<>();
    keys.forEach(key -> kids.add(key.get("kid").asText()));
    return kids;
  }

  private static Set<String> names(JsonNode node) {
    Set<String> names = new java.util.HashSet<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  private long count(String query, Object... parameters) {
    return new ph.payments.gateway.support.Sql(transactions).number(query, parameters);
  }

  /** Every row of every table of the gateway's database, as text. */
  private List<String> everyRowAsText() {
    return transactions.inTransaction(
        connection -> {
          List<String> tables = new ArrayList<>();
          try (PreparedStatement select =
                  connection.prepareStatement(
                      "SELECT quote_ident(table_name) FROM information_schema.tables"
                          + " WHERE table_schema = 'public' AND table_type = 'BASE TABLE'");
              ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
              tables.add(rs.getString(1));
            }
          }
          List<String> rows = new ArrayList<>();
          for (String table : tables) {
            try (PreparedStatement select =
                    connection.prepareStatement("SELECT t::text FROM " + table + " t");
                ResultSet rs = select.executeQuery()) {
              while (rs.next()) {
                rows.add(rs.getString(1));
              }
            }
          }
          return rows;
        });
  }

  private static Logger root() {
    return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }
}
