package ph.payments.gateway.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.testkit.TestDatabase;

/**
 * While PostgreSQL refuses the gateway's database, a request that needs it answers 503 {@code
 * internal_error} with {@code Retry-After} in the envelope (it was 500): the refusal is made as
 * docs/reliability.md's fault injection makes it ({@code ALLOW_CONNECTIONS false} and the
 * database's sessions terminated), and lifted again.
 */
@MicronautTest
class DatabaseRefusedIT extends GatewayTest {

  @Override
  protected Map<String, String> extraProperties() {
    // Hikari's floor is 250 ms; 5 s (the default) would only make the test slower.
    return Map.of("datasources.default.connection-timeout", "1000");
  }

  @Test
  void aRefusingDatabaseIsServiceUnavailableWithRetryAfter() throws Exception {
    String key = operator().createMerchant("Refused Store").testSecret();
    TestDatabase database = TestDatabase.forClass(getClass());
    assertEquals(200, http().post("/v1/test_probe/body", key, "{\"amount\":1}").status());

    refuse(database, true);
    try {
      for (Http.Response response :
          new Http.Response[] {
            http().post("/v1/test_probe/body", key, "{\"amount\":1}"),
            http()
                .post(
                    "/v1/payments",
                    key,
                    "{\"amount\":100,\"method\":\"card\"}",
                    "Idempotency-Key",
                    "refused-1"),
            http().get("/v1/payments", key)
          }) {
        assertEquals(503, response.status(), response.toString());
        assertEquals("internal_error", response.errorCode(), response.toString());
        assertTrue(response.json().at("/error/message").isTextual(), response.toString());
        assertEquals("1", response.header("Retry-After").orElse(null), response.toString());
        assertTrue(
            response.header("Content-Type").orElse("").startsWith("application/json"),
            response.toString());
      }
    } finally {
      refuse(database, false);
    }
    // Nothing to restart: the pool reconnects.
    long deadline = System.nanoTime() + 30_000_000_000L;
    int status;
    do {
      status = http().post("/v1/test_probe/body", key, "{\"amount\":1}").status();
    } while (status != 200 && System.nanoTime() < deadline);
    assertEquals(200, status);
  }

  /** As the fault injection of docs/reliability.md: the server stays up, the database refuses. */
  private static void refuse(TestDatabase test, boolean refuse) throws SQLException {
    String database = test.name();
    try (Connection admin =
            DriverManager.getConnection(
                test.jdbcUrl().replace("/" + database, "/postgres"), test.user(), test.password());
        Statement statement = admin.createStatement()) {
      statement.execute("ALTER DATABASE \"" + database + "\" WITH ALLOW_CONNECTIONS " + !refuse);
      if (refuse) {
        statement.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
                + database
                + "' AND pid <> pg_backend_pid()");
      }
    }
  }
}
