package ph.payments.gateway.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Operator;
import ph.payments.testkit.RawHttp;

/**
 * Spellings of a path that HTTP clients would normalise, sent as they are over a raw socket: none
 * reaches the operator API without the operator token, and none reaches it with a merchant's API
 * key. Each request must be refused (401, 400 or 404), never answered by the operator route.
 */
@MicronautTest
class PathTricksIT extends GatewayTest {

  @Test
  void noSpellingOfAnOperatorPathSkipsTheOperatorToken() {
    Operator.Merchant merchant = operator().createMerchant("Tricky Store");
    String target = "merchants/" + merchant.id();
    // The real route answers the operator, and nobody else.
    assertEquals(200, raw("/admin/v1/" + target, "Bearer " + ADMIN_TOKEN).status());
    assertEquals(401, raw("/admin/v1/" + target, null).status());

    List<String> tricks =
        List.of(
            "//admin/v1/" + target,
            "///admin/v1/" + target,
            "/admin//v1/" + target,
            "/admin/v1//" + target,
            "/admin/v1/../v1/" + target,
            "/admin/v1/../admin/v1/" + target,
            "/admin/./v1/" + target,
            "/./admin/v1/" + target,
            "/x/../admin/v1/" + target,
            "/v1/../admin/v1/" + target,
            "/health/../admin/v1/" + target,
            "/%2e%2e/admin/v1/" + target,
            "/v1/%2e%2e/admin/v1/" + target,
            "/v1/%2E%2E/admin/v1/" + target,
            "/v1/..%2fadmin/v1/" + target,
            "/v1%2f..%2fadmin/v1/" + target,
            "/%61dmin/v1/" + target,
            "/admin%2fv1/" + target,
            "/admin/v1%2f" + target,
            "/admin/v1/" + target + "/",
            "/admin/v1/" + target + "/.",
            "/ADMIN/v1/" + target,
            "/Admin/v1/" + target,
            "/admin/V1/" + target,
            "/admin;x=1/v1/" + target,
            "/admin/v1;x=1/" + target,
            "/admin/v1/" + target + ";x=1",
            "/admin/v1/" + target + "%00",
            "/admin/v1/" + target + "?x=/../",
            "/admin\\v1\\" + target,
            "http://localhost/admin/v1/" + target);
    List<String> leaks = new ArrayList<>();
    for (String path : tricks) {
      for (String authorization : new String[] {null, "Bearer " + merchant.testSecret()}) {
        RawHttp.Reply reply = raw(path, authorization);
        if (reply.status() < 400 || reply.body().contains(merchant.id())) {
          leaks.add(path + " (" + (authorization == null ? "no key" : "API key") + "): " + reply);
        }
      }
    }
    assertTrue(leaks.isEmpty(), "reached the operator API: " + leaks);
  }

  private RawHttp.Reply raw(String path, String authorization) {
    return RawHttp.get(
        server.getPort(),
        path,
        authorization == null ? Map.of() : Map.of("Authorization", authorization));
  }
}
