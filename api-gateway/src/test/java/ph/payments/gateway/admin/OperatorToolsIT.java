package ph.payments.gateway.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.tx.Transactions;

/**
 * The gateway's own operator tools of issue 19, on a real gateway over its socket with its
 * PostgreSQL and the Kafka fixture: every operator change and every read of a merchant's data is in
 * {@code GET /admin/v1/audit} with who (the token's hash prefix, never the token), what, the target
 * and the outcome, secrets redacted, a refused token not at all; a merchant's command log shows
 * each command's reply and outbox row. The owners are not running here: their routes are covered by
 * {@code OperatorToolsE2EIT}; commands here stay unanswered, which is what an operator looks for.
 */
@MicronautTest(transactional = false)
class OperatorToolsIT extends GatewayTest {

  @Inject Transactions transactions;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("gateway.commands.reply-timeout", "300ms");
  }

  @Test
  void operatorChangesAreAuditedWithoutTheTokenOrSecrets() throws Exception {
    Operator.Merchant merchant = operator().createMerchant("Audited Shop");
    Http.Response key =
        http()
            .post(
                "/admin/v1/merchants/" + merchant.id() + "/api_keys",
                ADMIN_TOKEN,
                "{\"environment\":\"test\",\"scopes\":[\"payments:read\"]}",
                "X-Operator",
                "ana.reyes");
    assertEquals(201, key.status(), key.body());
    String secret = key.json().get("secret").asText();
    Http.Response refused = http().post("/admin/v1/merchants/mer_nope/activate", "wrong", "");
    assertEquals(401, refused.status());
    Http.Response missing = http().post("/admin/v1/merchants/mer_nope/activate", ADMIN_TOKEN, "");
    assertEquals(404, missing.status());

    List<JsonNode> rows = all("/admin/v1/audit?target=" + merchant.id());
    assertEquals(1, rows.size(), "creating the merchant names no target: " + rows);
    JsonNode keyRow = rows.get(0);
    assertEquals("POST", keyRow.get("method").asText());
    assertEquals("/admin/v1/merchants/{id}/api_keys", keyRow.get("route").asText());
    assertEquals(merchant.id(), keyRow.get("target").asText());
    assertEquals("ana.reyes", keyRow.at("/operator/name").asText());
    assertEquals(tokenHash(ADMIN_TOKEN), keyRow.at("/operator/token_hash").asText());
    assertEquals(201, keyRow.at("/outcome/status").asInt());
    assertEquals("succeeded", keyRow.at("/outcome/result").asText());
    assertEquals("test", keyRow.at("/request/environment").asText());
    assertTrue(
        all("/admin/v1/audit").stream()
            .anyMatch(
                r ->
                    "/admin/v1/merchants".equals(r.get("route").asText())
                        && r.at("/operator/name").isNull()
                        && r.at("/outcome/status").asInt() == 201));

    List<JsonNode> everything = all("/admin/v1/audit");
    String text = everything.toString();
    assertFalse(text.contains(ADMIN_TOKEN), "never the token");
    assertFalse(text.contains(secret), "never a secret");
    assertFalse(text.contains("\"wrong\""));
    JsonNode notFound =
        everything.stream()
            .filter(r -> "mer_nope".equals(r.get("target").asText()))
            .findFirst()
            .orElseThrow();
    assertEquals(404, notFound.at("/outcome/status").asInt());
    assertEquals("refused", notFound.at("/outcome/result").asText());
    assertEquals("not_found", notFound.at("/outcome/error_code").asText());
    assertEquals(
        1,
        everything.stream().filter(r -> "mer_nope".equals(r.get("target").asText())).count(),
        "the 401 is not audited");
    // Reads of the audit itself are not audited; ids ascend.
    assertEquals(everything.size(), all("/admin/v1/audit").size());
    for (int i = 1; i < everything.size(); i++) {
      assertTrue(id(everything.get(i - 1)) < id(everything.get(i)));
    }
    assertEquals(400, http().get("/admin/v1/audit?starting_after=evt_1", ADMIN_TOKEN).status());
    assertEquals(401, http().get("/admin/v1/audit", "wrong").status());
  }

  @Test
  void aMerchantsCommandLogShowsRepliesAndOutboxRowsAndTheReadIsAudited() {
    Operator.Merchant merchant = operator().createMerchant("Commands Shop");
    // No payments-service runs here: the commands are accepted, published, and never answered.
    List<String> payments = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Http.Response created =
          http()
              .post(
                  "/v1/payments",
                  merchant.testSecret(),
                  "{\"amount\":100,\"method\":\"card\"}",
                  "Idempotency-Key",
                  "ops-" + i + "-" + System.nanoTime());
      assertTrue(created.status() == 202 || created.status() == 503, created.toString());
      payments.add(created.body());
    }
    JsonNode page = waitForPublished(merchant.id());
    assertEquals(3, page.get("data").size(), page.toString());
    JsonNode first = page.at("/data/0");
    assertEquals("command", first.get("object").asText());
    assertEquals("payments.create", first.get("type").asText());
    assertEquals("test", first.get("environment").asText());
    assertTrue(first.get("resource_id").asText().startsWith("pay_"));
    assertTrue(first.at("/reply/status").isNull(), "unanswered");
    assertEquals("published", first.at("/outbox/state").asText());
    assertFalse(first.toString().contains("\"amount\""), "no request bodies");

    Http.Response pending =
        http()
            .get(
                "/admin/v1/merchants/" + merchant.id() + "/commands?pending=true&limit=2",
                ADMIN_TOKEN);
    assertEquals(2, pending.json().get("data").size());
    assertTrue(pending.json().get("has_more").asBoolean());
    String after = pending.json().at("/data/1/id").asText();
    Http.Response rest =
        http()
            .get(
                "/admin/v1/merchants/" + merchant.id() + "/commands?starting_after=" + after,
                ADMIN_TOKEN);
    assertEquals(1, rest.json().get("data").size());
    assertFalse(rest.json().get("has_more").asBoolean());
    assertEquals(
        400,
        http()
            .get("/admin/v1/merchants/" + merchant.id() + "/commands?pending=maybe", ADMIN_TOKEN)
            .status());
    assertEquals(404, http().get("/admin/v1/merchants/nope/commands", ADMIN_TOKEN).status());

    List<JsonNode> audited = all("/admin/v1/audit?target=" + merchant.id());
    assertTrue(
        audited.stream()
            .anyMatch(r -> "/admin/v1/merchants/{id}/commands".equals(r.get("route").asText())),
        audited.toString());
  }

  /**
   * A page of the command log reads each command's outbox row through an index, never the whole
   * outbox (an hour of every merchant's commands): planned with sequential scans priced out, which
   * still leaves one where no index serves the lookup (as by {@code message_key}, which has none).
   */
  @Test
  void theCommandLogFindsEachOutboxRowThroughAnIndex() {
    for (boolean onlyPending : new boolean[] {false, true}) {
      List<String> plan =
          transactions.inTransaction(
              connection -> {
                try (Statement settings = connection.createStatement()) {
                  settings.execute("SET LOCAL enable_seqscan = off");
                }
                List<String> lines = new ArrayList<>();
                try (PreparedStatement explain =
                    connection.prepareStatement(
                        "EXPLAIN " + OperatorToolsController.commandLogPage(onlyPending))) {
                  explain.setString(1, "mer_planned");
                  explain.setString(2, "");
                  explain.setInt(3, 26);
                  try (ResultSet rows = explain.executeQuery()) {
                    while (rows.next()) {
                      lines.add(rows.getString(1));
                    }
                  }
                }
                return lines;
              });
      assertTrue(
          plan.stream().noneMatch(line -> line.contains("Seq Scan on outbox")),
          String.join("\n", plan));
      assertTrue(
          plan.stream().anyMatch(line -> line.contains("outbox_message_id_key")),
          String.join("\n", plan));
    }
  }

  @Test
  void settlingARefundValidatesBeforeAnyCommandIsSent() {
    String path = "/admin/v1/refunds/" + IdType.REFUND.generate() + "/settle";
    Http.Response noBody = http().post(path, ADMIN_TOKEN, "{}");
    assertEquals(400, noBody.status());
    assertEquals("invalid_request", noBody.errorCode());
    Http.Response badOutcome =
        http().post(path, ADMIN_TOKEN, "{\"outcome\":\"refunded\",\"reference\":\"X\"}");
    assertEquals(400, badOutcome.status());
    Http.Response codeOnSuccess =
        http()
            .post(
                path,
                ADMIN_TOKEN,
                "{\"outcome\":\"succeeded\",\"reference\":\"X\",\"failure_code\":\"x\"}");
    assertEquals(400, codeOnSuccess.status());
    Http.Response notARefund =
        http()
            .post(
                "/admin/v1/refunds/" + IdType.PAYMENT.generate() + "/settle",
                ADMIN_TOKEN,
                "{\"outcome\":\"succeeded\",\"reference\":\"X\"}");
    assertEquals(404, notARefund.status());
    assertNull(notARefund.json().get("status"));
  }

  private JsonNode waitForPublished(String merchantId) {
    JsonNode page = null;
    for (int i = 0; i < 100; i++) {
      page = http().get("/admin/v1/merchants/" + merchantId + "/commands", ADMIN_TOKEN).json();
      boolean allPublished = page.get("data").size() == 3;
      for (JsonNode row : page.get("data")) {
        allPublished &= "published".equals(row.at("/outbox/state").asText());
      }
      if (allPublished) {
        return page;
      }
      sleep(100);
    }
    return page;
  }

  private List<JsonNode> all(String path) {
    List<JsonNode> rows = new ArrayList<>();
    String after = null;
    for (int i = 0; i < 100; i++) {
      String separator = path.contains("?") ? "&" : "?";
      Http.Response page =
          http()
              .get(
                  path + separator + "limit=2" + (after == null ? "" : "&starting_after=" + after),
                  ADMIN_TOKEN);
      assertEquals(200, page.status(), page.body());
      page.json().get("data").forEach(rows::add);
      if (!page.json().get("has_more").asBoolean()) {
        return rows;
      }
      after = rows.get(rows.size() - 1).get("id").asText();
    }
    throw new AssertionError("too many pages");
  }

  private static long id(JsonNode row) {
    return Long.parseLong(row.get("id").asText().substring("audit_".length()));
  }

  private static String tokenHash(String token) throws Exception {
    byte[] digest =
        MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(digest, 0, 6);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
