package ph.payments.gateway.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.util.Map;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Operator;

/**
 * The unauthenticated surface is limited per client address: hosted pages and QR images, the pages'
 * forms (a limit of their own), provider callbacks, and requests with a refused API key (key
 * guessing). The gateway trusts {@code X-Forwarded-For} from 127.0.0.1 here, so each forwarded
 * address is a client of its own.
 */
@MicronautTest
class ClientAddressLimitIT extends GatewayTest {

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of(
        "gateway.edge.checkout-per-minute", "3",
        "gateway.edge.callbacks-per-minute", "2",
        "gateway.edge.page-forms-per-minute", "2",
        "gateway.edge.failed-authentication-per-minute", "3",
        "gateway.edge.trusted-proxies", "127.0.0.0/8");
  }

  @Test
  void qrImagesAndCheckoutPagesShareALimitPerAddress() {
    String client = "203.0.113.10";
    assertEquals(404, from(client).get("/qr/ct_nosuchtoken.png", null).status());
    assertEquals(404, from(client).get("/checkout/pay_01guessedid", null).status());
    assertEquals(404, from(client).get("/qr/ct_nosuchtoken.svg", null).status());
    Http.Response limited = from(client).get("/checkout/ct_nosuchtoken", null);
    assertRateLimited(limited);

    // Another address has its own bucket.
    assertEquals(404, from("203.0.113.11").get("/qr/ct_nosuchtoken.png", null).status());
  }

  @Test
  void pageFormsHaveALimitOfTheirOwn() throws Exception {
    String client = "203.0.113.20";
    for (int i = 0; i < 2; i++) {
      assertEquals(403, pageForm(client).statusCode(), "no CSRF token, but counted");
    }
    java.net.http.HttpResponse<String> limited = pageForm(client);
    assertEquals(429, limited.statusCode(), limited.body());
    // Page views are counted apart.
    assertEquals(404, from(client).get("/checkout/ct_nosuchtoken", null).status());
  }

  private java.net.http.HttpResponse<String> pageForm(String address) throws Exception {
    return java.net.http.HttpClient.newHttpClient()
        .send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(server.getURL() + "/l/abcdefghijklmnop"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("X-Forwarded-For", "10.9.8.7, " + address)
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("amount=1&method=card"))
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void providerCallbacksAreLimitedPerAddress() {
    String client = "198.51.100.7";
    for (int i = 0; i < 2; i++) {
      assertTrue(
          from(client).post("/callbacks/providers/sandbox_card", null, "{}").status() != 429);
    }
    assertRateLimited(from(client).post("/callbacks/providers/sandbox_card", null, "{}"));
  }

  @Test
  void keyGuessingIsThrottledPerAddressAndThenEvenARightKeyWaits() {
    Operator.Merchant merchant = operator().createMerchant("Guarded Store");
    String guesser = "192.0.2.99";
    for (int i = 0; i < 3; i++) {
      Http.Response wrong = from(guesser).get("/v1/payments", "sk_test_wrong" + i);
      assertEquals(401, wrong.status(), wrong.body());
    }
    assertRateLimited(from(guesser).get("/v1/payments", "sk_test_wrong4"));
    assertRateLimited(from(guesser).get("/v1/balance", merchant.testSecret()));

    // Valid keys never use up the bucket, and other addresses are not affected.
    String honest = "192.0.2.100";
    for (int i = 0; i < 5; i++) {
      assertTrue(from(honest).get("/v1/balance", merchant.testSecret()).status() != 429);
    }
  }

  /** Requests as a proxy on 127.0.0.1 forwards them for {@code address}. */
  private Forwarded from(String address) {
    return new Forwarded(http(), "10.9.8.7, " + address);
  }

  private record Forwarded(Http http, String forwardedFor) {
    Http.Response get(String path, String bearer) {
      return http.send("GET", path, bearer, null, "X-Forwarded-For", forwardedFor);
    }

    Http.Response post(String path, String bearer, String body) {
      return http.send("POST", path, bearer, body, "X-Forwarded-For", forwardedFor);
    }
  }

  private static void assertRateLimited(Http.Response response) {
    assertEquals(429, response.status(), response.body());
    assertEquals("rate_limited", response.errorCode());
    assertTrue(response.header("Retry-After").orElse("").matches("[1-9][0-9]*"));
  }
}
