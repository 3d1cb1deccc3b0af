package ph.payments.gateway.balance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;
import ph.payments.platform.micronaut.InternalHeaders;

/**
 * {@code GET /v1/balance} and the ledger's operator routes at the gateway: the currency rule, the
 * scope, and forwarding to ledger-service (a stand-in here that records what it was asked and
 * answers like the ledger) with the key's merchant and environment.
 */
@MicronautTest
class BalanceIT extends GatewayTest {

  private static final String INTERNAL_TOKEN = "internal-token-for-balance-it";
  private static HttpServer ledger;
  private static final Map<String, String> seen = new ConcurrentHashMap<>();

  private Operator.Merchant merchant;

  @Override
  protected Map<String, String> extraProperties() {
    try {
      ledger = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    ledger.createContext(
        "/internal/",
        exchange -> {
          seen.clear();
          exchange
              .getRequestHeaders()
              .forEach((name, values) -> seen.put(name.toLowerCase(), values.get(0)));
          seen.put("path", exchange.getRequestURI().getPath());
          seen.put("query", String.valueOf(exchange.getRequestURI().getRawQuery()));
          String path = exchange.getRequestURI().getPath();
          String query = String.valueOf(exchange.getRequestURI().getRawQuery());
          int status = 200;
          String type = "application/json";
          String body;
          if (path.equals("/internal/balances")) {
            String environment = exchange.getRequestHeaders().getFirst(InternalHeaders.ENVIRONMENT);
            body =
                query.startsWith("currency=")
                    ? "{\"object\":\"balance\",\"environment\":\""
                        + environment
                        + "\",\"currency\":\""
                        + query.substring(9)
                        + "\",\"available\":0.00}"
                    : "{\"object\":\"balance_list\",\"environment\":\""
                        + environment
                        + "\",\"available\":{\"PHP\":1462.50,\"USD\":-3.10}}";
          } else if (path.equals("/internal/audit")) {
            body = "{\"object\":\"ledger_audit\",\"ok\":true}";
          } else if (path.equals("/internal/negative_balances")) {
            body = "{\"object\":\"list\",\"data\":[]}";
          } else if (query.contains("environment=test")) {
            type = "text/csv; charset=utf-8";
            body =
                "posted_at,effective_at,posting_id\n2026-01-01T00:00:00Z,2026-01-01T00:00:00Z,1\n";
          } else {
            status = 400;
            body =
                "{\"error\":{\"code\":\"invalid_request\",\"message\":\"x\","
                    + "\"issues\":{\"environment\":\"must be test or live\"}}}";
          }
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", type);
          exchange.sendResponseHeaders(status, bytes.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
          }
        });
    ledger.start();
    return Map.of(
        "gateway.services.ledger-url",
        "http://127.0.0.1:" + ledger.getAddress().getPort(),
        "internal.token",
        INTERNAL_TOKEN);
  }

  @BeforeAll
  void merchant() {
    merchant = operator().createMerchant("Balance Reader");
  }

  @AfterAll
  void stopLedger() {
    ledger.stop(0);
  }

  @Test
  void theListIsTheLedgersAnswerForTheKeysMerchantAndEnvironment() {
    Http.Response response =
        http()
            .get(
                "/v1/balance?environment=live&merchant_id=mer_x",
                merchant.testSecret(),
                "X-Merchant-Id",
                "mer_00000000000000000000000000",
                "X-Environment",
                "live");
    assertEquals(200, response.status(), response.body());
    assertEquals(
        "{\"object\":\"balance_list\",\"environment\":\"test\","
            + "\"available\":{\"PHP\":1462.50,\"USD\":-3.10}}",
        response.body());
    assertEquals("/internal/balances", seen.get("path"));
    assertEquals("null", seen.get("query"), "only currency passes");
    assertEquals(merchant.id(), seen.get("x-merchant-id"));
    assertEquals("test", seen.get("x-environment"));
    assertEquals(INTERNAL_TOKEN, seen.get(InternalHeaders.TOKEN.toLowerCase()));
    assertFalse(seen.containsKey("authorization"));
  }

  @Test
  void oneCurrencyIsForwardedAndALiveKeyReadsLive() {
    Operator.Key live = operator().activate(operator().createMerchant("Live Balance").id());
    Http.Response response = http().get("/v1/balance?currency=USD", live.secret());
    assertEquals(200, response.status(), response.body());
    assertEquals(
        "{\"object\":\"balance\",\"environment\":\"live\",\"currency\":\"USD\",\"available\":0.00}",
        response.body());
    assertEquals("currency=USD", seen.get("query"));
  }

  @ParameterizedTest(name = "currency={0} is refused")
  @ValueSource(
      strings = {"PH", "PHPX", "php", "Php", "P1P", "", "%20PHP", "PHP%20", "PHP&currency=USD"})
  void aCurrencyThatIsNotThreeUpperCaseLettersIs400(String currency) {
    seen.clear();
    Http.Response response = http().get("/v1/balance?currency=" + currency, merchant.testSecret());
    assertEquals(400, response.status(), response.body());
    assertEquals("invalid_request", response.errorCode());
    assertTrue(response.json().at("/error/issues/currency").isTextual(), response.body());
    assertTrue(seen.isEmpty(), "never reaches the ledger");
  }

  @Test
  void theBalanceNeedsTheBalanceReadScope() {
    Operator.Key payments =
        operator().createKey(merchant.id(), "test", List.of("payments:read", "payments:write"));
    Http.Response refused = http().get("/v1/balance", payments.secret());
    assertEquals(403, refused.status(), refused.body());
    assertEquals("insufficient_scope", refused.errorCode());
    Operator.Key balance = operator().createKey(merchant.id(), "test", List.of("balance:read"));
    assertEquals(200, http().get("/v1/balance", balance.secret()).status());
    assertEquals(401, http().get("/v1/balance", null).status());
  }

  @Test
  void operatorsListNegativeBalancesWithTheAdminTokenOnly() {
    Http.Response list =
        http().get("/admin/v1/ledger/negative_balances?environment=live&limit=5", ADMIN_TOKEN);
    assertEquals(200, list.status(), list.body());
    assertEquals("{\"object\":\"list\",\"data\":[]}", list.body());
    assertEquals("/internal/negative_balances", seen.get("path"));
    assertEquals("environment=live&limit=5", seen.get("query"));
    assertFalse(seen.containsKey("x-merchant-id"));
    assertEquals(
        401, http().get("/admin/v1/ledger/negative_balances", merchant.testSecret()).status());
    assertEquals(401, http().get("/admin/v1/ledger/negative_balances", null).status());
  }

  @Test
  void operatorsReadTheAuditAndStatementsWithTheAdminToken() {
    Http.Response audit = http().get("/admin/v1/ledger/audit", ADMIN_TOKEN);
    assertEquals(200, audit.status(), audit.body());
    assertEquals("{\"object\":\"ledger_audit\",\"ok\":true}", audit.body());
    assertEquals("/internal/audit", seen.get("path"));
    assertFalse(seen.containsKey("x-merchant-id"));
    assertEquals(401, http().get("/admin/v1/ledger/audit", merchant.testSecret()).status());

    Http.Response statement =
        http()
            .get(
                "/admin/v1/merchants/"
                    + merchant.id()
                    + "/statement?environment=test&from=2026-01-01&to=1767225600&other=x",
                ADMIN_TOKEN);
    assertEquals(200, statement.status(), statement.body());
    assertTrue(statement.header("Content-Type").orElseThrow().startsWith("text/csv"));
    assertTrue(statement.header("Content-Disposition").orElseThrow().contains("attachment"));
    assertTrue(statement.body().startsWith("posted_at,effective_at,posting_id\n"));
    assertEquals("/internal/statements", seen.get("path"));
    // ledger-service produces text/csv only and answers 406 to a request that does not accept it.
    assertTrue(seen.get("accept").contains("text/csv"), seen.get("accept"));
    assertEquals(
        "merchant_id=" + merchant.id() + "&environment=test&from=2026-01-01&to=1767225600",
        seen.get("query"));

    Http.Response invalid =
        http().get("/admin/v1/merchants/" + merchant.id() + "/statement", ADMIN_TOKEN);
    assertEquals(400, invalid.status(), invalid.body());
    assertTrue(invalid.json().at("/error/issues/environment").isTextual(), invalid.body());
    assertEquals(
        404,
        http()
            .get("/admin/v1/merchants/mer_nope/statement?environment=test", ADMIN_TOKEN)
            .status());
  }
}
