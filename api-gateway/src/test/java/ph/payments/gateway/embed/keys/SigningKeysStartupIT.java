package ph.payments.gateway.embed.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jwt.SignedJWT;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;
import ph.payments.platform.sealing.ReplySealer;
import ph.payments.platform.tx.Transactions;

/**
 * The key ring at start-up: a gateway whose {@code REPLY_SEALING_KEY} cannot open the active
 * signing key (the key was changed, or another checkout's bin/run made the database) retires that
 * key and makes a new one, instead of answering 500 to every token request; a key that opens is
 * kept.
 */
@MicronautTest(transactional = false)
class SigningKeysStartupIT extends GatewayTest {

  @Inject SigningKeys keys;
  @Inject Transactions transactions;

  @Test
  void anActiveKeyThisGatewayCannotOpenIsRetiredAtStartUpAndANewOneSigns() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Key Ring Store");
    String first = kidOf(mint(merchant));

    keys.onStartup(null);
    assertEquals(first, kidOf(mint(merchant)), "a key that opens is kept");

    // The row as another gateway, with another sealing key, would have written it.
    ReplySealer another =
        new ReplySealer("another-gateway-sealing-key-32by".getBytes(StandardCharsets.US_ASCII));
    transactions.inTransaction(
        connection -> {
          try (PreparedStatement update =
              connection.prepareStatement(
                  "UPDATE embed_signing_keys SET private_jwk = ? WHERE kid = ?")) {
            update.setString(1, another.seal("{\"kty\":\"EC\"}", first, SigningKeys.SEALED_FIELD));
            update.setString(2, first);
            assertEquals(1, update.executeUpdate());
          }
          return null;
        });

    keys.onStartup(null);

    String token = mint(merchant);
    String made = kidOf(token);
    assertNotEquals(first, made, "a new key signs");
    Http.Response listed = http().get("/admin/v1/embed_keys", ADMIN_TOKEN);
    assertEquals(200, listed.status(), listed.body());
    Set<String> retired = new HashSet<>();
    Set<String> active = new HashSet<>();
    for (JsonNode key : listed.json().get("data")) {
      (key.get("status").asText().equals("active") ? active : retired).add(key.get("kid").asText());
    }
    assertEquals(Set.of(made), active);
    assertEquals(Set.of(first), retired);
    Set<String> published = new HashSet<>();
    http()
        .get("/.well-known/jwks.json", null)
        .json()
        .get("keys")
        .forEach(key -> published.add(key.get("kid").asText()));
    assertTrue(
        published.containsAll(Set.of(first, made)), "the old key still verifies: " + published);
    Http.Response session = http().get("/embed/v1/session", token);
    assertEquals(200, session.status(), session.body());
  }

  private String mint(Operator.Merchant merchant) {
    Http.Response response =
        http()
            .post(
                "/v1/embed_tokens",
                merchant.testSecret(),
                "{\"project_uuid\":\"123e4567-e89b-12d3-a456-426614174000\",\"audience\":\"merchant\"}");
    assertEquals(201, response.status(), response.body());
    return response.json().get("token").asText();
  }

  private static String kidOf(String token) throws Exception {
    return SignedJWT.parse(token).getHeader().getKeyID();
  }
}
