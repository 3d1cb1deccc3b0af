package ph.payments.gateway.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;

/**
 * A few hundred malformed, oversized, deeply nested, duplicated-key and type-confused bodies (from
 * a fixed seed, so a failure repeats) against several endpoints of both APIs: each answer is a 4xx
 * in the JSON error envelope, never a 5xx and never an HTML page (issue 19). Every body is invalid
 * for every endpoint, so no command reaches an owner (none runs here).
 */
@MicronautTest
class MalformedBodiesFuzzIT extends GatewayTest {

  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private static final String BASE =
      "{\"amount\":100,\"method\":\"card\",\"currency\":\"PHP\",\"description\":\"d\","
          + "\"metadata\":{\"order\":\"o-1\"},\"customer\":{\"email\":\"a@example.com\"}}";

  private String key;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("gateway.rate-limit.per-minute", "1000000");
  }

  @BeforeAll
  void merchant() {
    key = operator().createMerchant("Fuzz Store").testSecret();
  }

  @Test
  void aDuplicatedKeyIsInvalidRequestEverywhere() {
    String payment = IdType.PAYMENT.generate();
    for (String[] target :
        new String[][] {
          {"/v1/payments", "{\"amount\":100,\"amount\":200,\"method\":\"card\"}"},
          {
            "/v1/payments",
            "{\"amount\":100,\"method\":\"card\",\"metadata\":{\"a\":\"1\",\"a\":\"2\"}}"
          },
          {"/v1/refunds", "{\"payment\":\"" + payment + "\",\"amount\":1,\"amount\":2}"},
          {"/v1/customers", "{\"name\":\"A\",\"name\":\"B\"}"},
          {"/v1/test_helpers/payments/" + payment + "/fail", "{\"code\":\"a\",\"code\":\"b\"}"},
          {"/admin/v1/merchants", "{\"name\":\"A\",\"email\":\"a@example.com\",\"name\":\"B\"}"}
        }) {
      String bearer = target[0].startsWith("/admin") ? ADMIN_TOKEN : key;
      Http.Response response =
          http().post(target[0], bearer, target[1], "Idempotency-Key", "dup-" + System.nanoTime());
      assertEquals(400, response.status(), target[0] + " " + target[1] + " → " + response);
      assertEquals("invalid_request", response.errorCode(), response.toString());
      // Said plainly, without the parser's location ("at [Source: REDACTED …; line: 1 …]").
      assertTrue(
          response
              .body()
              .matches(
                  ".*\"body\":\"Invalid JSON: Duplicate field '\\w+' \\(line 1, column \\d+\\)\".*"),
          response.body());
    }
  }

  @Test
  void malformedBodiesGetACleanFourHundredEnvelope() throws Exception {
    String payment = IdType.PAYMENT.generate();
    List<String> targets =
        List.of(
            "/v1/payments",
            "/v1/refunds",
            "/v1/payouts",
            "/v1/customers",
            "/v1/products",
            "/v1/webhooks/endpoints",
            "/v1/test_helpers/payments/" + payment + "/fail",
            "/admin/v1/merchants");
    List<byte[]> bodies = bodies(new Random(19));
    assertTrue(bodies.size() >= 300, "bodies: " + bodies.size());
    int sent = 0;
    for (int i = 0; i < bodies.size(); i++) {
      // Every body against one endpoint, and every endpoint gets a share of every kind.
      String target = targets.get(i % targets.size());
      check(target, bodies.get(i));
      sent++;
    }
    // The oversized and the deepest bodies once against every endpoint.
    byte[] oversized =
        ("{\"amount\":1,\"metadata\":{\"x\":\"" + "a".repeat(1_100_000) + "\"}}")
            .getBytes(StandardCharsets.UTF_8);
    byte[] deep = ("[".repeat(100_000) + "]".repeat(100_000)).getBytes(StandardCharsets.UTF_8);
    for (String target : targets) {
      check(target, oversized);
      check(target, deep);
      sent += 2;
    }
    assertTrue(sent > 300);
  }

  private void check(String target, byte[] body) throws Exception {
    String bearer = target.startsWith("/admin") ? ADMIN_TOKEN : key;
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(server.getURL() + target))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + bearer)
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", "fuzz-" + System.nanoTime())
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build();
    HttpResponse<String> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    String shown =
        body.length > 200
            ? new String(body, 0, 200, StandardCharsets.ISO_8859_1)
            : new String(body, StandardCharsets.ISO_8859_1);
    String what = target + " " + shown + " → " + response.statusCode() + " " + response.body();
    assertTrue(response.statusCode() >= 400 && response.statusCode() < 500, what);
    assertTrue(
        response.headers().firstValue("Content-Type").orElse("").startsWith("application/json"),
        what);
    var json = Json.tree(response.body());
    assertTrue(json.at("/error/code").isTextual(), what);
    assertTrue(json.at("/error/message").isTextual(), what);
    if (response.statusCode() == 400) {
      assertEquals("invalid_request", json.at("/error/code").asText(), what);
    }
  }

  /** The bodies, every one invalid for every endpoint above. */
  private static List<byte[]> bodies(Random random) {
    List<String> texts = new ArrayList<>();
    // Truncated: never complete JSON.
    for (int length = 1; length < BASE.length(); length += 1 + random.nextInt(3)) {
      texts.add(BASE.substring(0, length));
    }
    // Duplicated keys, top level and nested.
    for (String field : new String[] {"amount", "method", "currency", "description"}) {
      texts.add(BASE.replace("{\"amount\"", "{\"" + field + "\":\"x\",\"amount\""));
    }
    texts.add(BASE.replace("{\"order\":\"o-1\"}", "{\"order\":\"o-1\",\"order\":\"o-2\"}"));
    texts.add(
        BASE.replace(
            "{\"email\":\"a@example.com\"}", "{\"email\":\"a@b.co\",\"email\":\"c@d.co\"}"));
    texts.add("{\"name\":\"A\",\"email\":\"a@example.com\",\"email\":\"b@example.com\"}");
    texts.add("{\"url\":\"https://example.com\",\"url\":\"https://evil.example\"}");
    // Type-confused values of the amount (and of other fields, for the other endpoints).
    String[] wrong = {
      "\"100\"",
      "true",
      "false",
      "[]",
      "{}",
      "[100]",
      "{\"value\":100}",
      "1e400",
      "-1",
      "0",
      "1.001",
      "\"NaN\"",
      "-0.0",
      "1" + "0".repeat(2000),
      "0x10",
      "Infinity",
      "NaN",
      "01",
      "100.",
      ".5",
      "+1",
      "1e-400",
      "\"\\u0000\"",
      "\"\\ud800\"",
      "\"" + "9".repeat(500) + "\""
    };
    for (String value : wrong) {
      texts.add("{\"amount\":" + value + ",\"method\":\"card\",\"name\":" + value + "}");
      texts.add("{\"amount\":100,\"method\":" + value + ",\"email\":" + value + "}");
      texts.add("{\"url\":" + value + ",\"payment\":" + value + ",\"code\":" + value + "}");
    }
    // Bodies that are not objects.
    for (String scalar : new String[] {"null", "42", "\"text\"", "true", "[]", "[{}]", "[1,2]"}) {
      texts.add(scalar);
    }
    // Nesting, wrong everywhere.
    for (int depth : new int[] {10, 100, 999, 1001, 5000}) {
      texts.add("{\"amount\":" + "[".repeat(depth) + "]".repeat(depth) + "}");
      texts.add(
          "{\"metadata\":"
              + "{\"a\":".repeat(depth)
              + "1"
              + "}".repeat(depth)
              + ",\"amount\":\"x\"}");
    }
    // Syntax oddities.
    for (String odd :
        new String[] {
          "{amount:100}",
          "{'amount':100}",
          "{\"amount\":100,}",
          "{\"amount\" 100}",
          "{\"amount\":100}}",
          "{\"amount\":100} {}",
          "{\"a\":\"\\x\"}",
          "{\"a\":\"\n\"}",
          "{\"amount\":100 /* c */}",
          "{\"amount\":100}garbage",
          "\uFEFF{\"amount\":",
          "{\"\":1,\"\":2}",
          "{\"amount\":\"" + "\\u12".repeat(3) + "\"}",
          " ",
          "\t\n"
        }) {
      texts.add(odd);
    }
    // Random mutations of the base: a character replaced by one JSON treats specially, or cut.
    String specials = "{}[]\",:\\0-e.ntf ";
    while (texts.size() < 330) {
      char[] chars = BASE.toCharArray();
      int at = 1 + random.nextInt(chars.length - 2);
      chars[at] = specials.charAt(random.nextInt(specials.length()));
      String mutated = new String(chars);
      if (!mutated.equals(BASE) && !parses(mutated)) {
        texts.add(mutated);
      }
    }
    List<byte[]> bodies = new ArrayList<>();
    for (String text : texts) {
      bodies.add(text.getBytes(StandardCharsets.UTF_8));
    }
    // Bytes that are not UTF-8 at all.
    for (int i = 0; i < 10; i++) {
      byte[] garbage = new byte[1 + random.nextInt(64)];
      random.nextBytes(garbage);
      garbage[0] = (byte) 0xff;
      bodies.add(garbage);
    }
    return bodies;
  }

  private static boolean parses(String text) {
    try {
      Json.tree(text);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }
}
