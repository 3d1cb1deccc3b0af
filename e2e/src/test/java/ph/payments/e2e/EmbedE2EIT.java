package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Embed tokens across the real processes (issue 18): a merchant's server mints tokens with its API
 * key, and the embed API answers each token exactly what its tabs and customer scope allow, with
 * the data payments-service and ledger-service really hold. A customer-audience token sees its
 * customer's payments and invoices and nothing else (another customer's payment is 404, the
 * merchant's tabs 403, nothing mutates); a customer found by {@code metadata.external_id} is
 * resolved once, and none or two of them are refused; a merchant token reads every tab as {@code
 * /v1} answers it.
 */
@ExtendWith(SharedSystem.class)
class EmbedE2EIT {

  private static final String PROJECT = "0f8fad5b-d9cb-469f-a165-70867728950e";

  private static SystemUnderTest system;
  private static Merchant merchant;
  private static Merchant live;
  private static Customer ana;
  private static Customer ben;
  private static String loosePayment;

  /** A customer with its payments and invoices, ascending by id. */
  private record Customer(String id, List<String> payments, List<String> invoices) {}

  @BeforeAll
  static void start(SystemUnderTest shared) throws Exception {
    system = shared;
    Merchant operator = new Merchant(system.gatewayUrl(), system.adminToken);
    Merchant.Reply created =
        operator.post("/admin/v1/merchants", "{\"name\":\"Tindahan\",\"email\":\"e@example.ph\"}");
    assertEquals(201, created.status(), created.raw().body());
    merchant = new Merchant(system.gatewayUrl(), created.json().at("/api_keys/0/secret").asText());
    String merchantId = created.json().get("id").asText();
    Merchant.Reply activated =
        operator.post("/admin/v1/merchants/" + merchantId + "/activate", null);
    assertEquals(200, activated.status(), activated.raw().body());
    for (JsonNode key : activated.json().get("api_keys")) {
      if (key.path("secret").asText().startsWith("sk_live_")) {
        live = new Merchant(system.gatewayUrl(), key.get("secret").asText());
      }
    }

    ana = customer("Ana", "u-ana", 3, 2);
    ben = customer("Ben", "u-ben", 2, 1);
    customer("Twin One", "dup", 0, 0);
    customer("Twin Two", "dup", 0, 0);
    loosePayment = payment(null);
    // Money for a payout, so the payouts tab has a row.
    ok(merchant.post("/v1/test_helpers/payments/" + ana.payments().get(0) + "/succeed", null), 200);
    awaitTrue(
        () ->
            merchant.get("/v1/balance?currency=PHP").json().get("available").decimalValue().signum()
                > 0);
    ok(
        merchant.post(
            "/v1/payouts",
            "{\"amount\":100,\"method\":\"ewallet1\",\"destination\":{\"account_no\":\"09171234567\"}}"),
        201);
  }

  @Test
  void aCustomerTokenSeesExactlyItsCustomersPaymentsAndInvoicesAndNothingElse() {
    JsonNode made = mint(scoped("customer", "panel", "customer_id", ana.id()));
    assertEquals("customer_id", made.get("scope_field").asText());
    assertFalse(made.toString().contains(ana.id()), "the scope value is never echoed");
    Merchant panel = embed(made);

    JsonNode session = ok(panel.get("/embed/v1/session"), 200);
    assertEquals("customer", session.get("audience").asText());
    assertEquals("[\"payments\",\"invoices\"]", session.get("tabs").toString());
    assertEquals("Tindahan", session.at("/merchant/name").asText());

    assertEquals(ana.payments(), ids(panel, "/embed/v1/payments"));
    assertEquals(ana.invoices(), ids(panel, "/embed/v1/invoices"));
    JsonNode page = ok(panel.get("/embed/v1/payments?limit=2"), 200);
    assertEquals(ana.payments().subList(0, 2), idsOf(page));
    assertTrue(page.get("has_more").asBoolean());
    JsonNode rest =
        ok(panel.get("/embed/v1/payments?limit=2&starting_after=" + ana.payments().get(1)), 200);
    assertEquals(ana.payments().subList(2, 3), idsOf(rest));
    assertFalse(rest.get("has_more").asBoolean());

    String own = ana.payments().get(0);
    assertEquals(
        merchant.get("/v1/payments/" + own).json(),
        ok(panel.get("/embed/v1/payments/" + own), 200));
    JsonNode timeline = ok(panel.get("/embed/v1/payments/" + own + "/events"), 200);
    assertEquals("list", timeline.get("object").asText());
    assertEquals(
        merchant.get("/v1/payments/" + own + "?expand=events").json().get("events"),
        timeline.get("data"));
    List<String> types = new ArrayList<>();
    timeline.get("data").forEach(event -> types.add(event.get("type").asText()));
    assertTrue(types.contains("payment.succeeded"), types.toString());

    for (String theirs : List.of(ben.payments().get(0), loosePayment)) {
      expect(panel.get("/embed/v1/payments/" + theirs), 404, "not_found");
      expect(panel.get("/embed/v1/payments/" + theirs + "/events"), 404, "not_found");
    }
    for (String tab : List.of("payouts", "balance", "customers", "events")) {
      expect(panel.get("/embed/v1/" + tab), 403, "insufficient_scope");
    }
    expect(panel.get("/embed/v1/payments?customer_id=" + ben.id()), 200, null);
    assertEquals(
        ana.payments(),
        idsOf(panel.get("/embed/v1/payments?customer_id=" + ben.id()).json()),
        "the scope is the token's, never the query's");
    for (String path : List.of("/embed/v1/payments", "/embed/v1/payments/" + own + "/refund")) {
      Merchant.Reply post = panel.post(path, "{\"amount\":1}");
      assertTrue(post.status() == 405 || post.status() == 404, path + ": " + post.raw().body());
      assertTrue(post.json().has("error"));
    }
    assertEquals(
        ana.payments(),
        idsOf(ok(merchant.get("/v1/payments?limit=100&customer_id=" + ana.id()), 200)),
        "nothing was created");
  }

  @Test
  void anExternalIdIsResolvedToOneCustomerWhenTheTokenIsMadeAndNoneOrTwoAreRefused() {
    JsonNode made = mint(scoped("customer", "payments", "external_id", "u-ben"));
    assertEquals("external_id", made.get("scope_field").asText());
    assertFalse(made.toString().contains("u-ben"));
    Merchant panel = embed(made);
    assertEquals("[\"payments\"]", ok(panel.get("/embed/v1/session"), 200).get("tabs").toString());
    assertEquals(ben.payments(), ids(panel, "/embed/v1/payments"));
    expect(panel.get("/embed/v1/invoices"), 403, "insufficient_scope");

    expect(
        merchant.post("/v1/embed_tokens", scoped("customer", "payments", "external_id", "nobody")),
        404,
        "customer_not_found");
    Merchant.Reply twins =
        merchant.post("/v1/embed_tokens", scoped("customer", "payments", "external_id", "dup"));
    expect(twins, 409, "conflict");
    assertFalse(twins.raw().body().contains("dup"));
  }

  @Test
  void aCustomerOfAnotherEnvironmentOrMerchantIsNotFound() {
    String liveCustomer =
        ok(live.post("/v1/customers", "{\"name\":\"Live Ana\"}"), 201).get("id").asText();
    expect(
        merchant.post(
            "/v1/embed_tokens", scoped("customer", "payments", "customer_id", liveCustomer)),
        404,
        "customer_not_found");
    Merchant operator = new Merchant(system.gatewayUrl(), system.adminToken);
    Merchant other =
        new Merchant(
            system.gatewayUrl(),
            operator
                .post("/admin/v1/merchants", "{\"name\":\"Other\",\"email\":\"o@example.ph\"}")
                .json()
                .at("/api_keys/0/secret")
                .asText());
    expect(
        other.post("/v1/embed_tokens", scoped("customer", "payments", "customer_id", ana.id())),
        404,
        "customer_not_found");

    // A live token of the same merchant reads live data only.
    Merchant livePanel =
        embed(
            ok(
                live.post(
                    "/v1/embed_tokens",
                    "{\"project_uuid\":\"" + PROJECT + "\",\"audience\":\"merchant\"}"),
                201));
    assertEquals("live", ok(livePanel.get("/embed/v1/session"), 200).get("environment").asText());
    assertEquals(List.of(), ids(livePanel, "/embed/v1/payments"));
    expect(livePanel.get("/embed/v1/payments/" + ana.payments().get(0)), 404, "not_found");
  }

  @Test
  void aMerchantTokenReadsEveryTabAsV1AnswersItAndAScopedOneNarrowsWhatCanBeNarrowed() {
    Merchant panel =
        embed(
            mint(
                "{\"project_uuid\":\""
                    + PROJECT
                    + "\",\"audience\":\"merchant\","
                    + "\"surface\":\"panel\"}"));
    assertEquals(ids(merchant, "/v1/payments"), ids(panel, "/embed/v1/payments"));
    assertEquals(ids(merchant, "/v1/invoices"), ids(panel, "/embed/v1/invoices"));
    assertEquals(ids(merchant, "/v1/customers"), ids(panel, "/embed/v1/customers"));
    assertEquals(ids(merchant, "/v1/payouts"), ids(panel, "/embed/v1/payouts"));
    assertEquals(1, ids(panel, "/embed/v1/payouts").size());
    assertEquals(merchant.get("/v1/payouts").json(), ok(panel.get("/embed/v1/payouts"), 200));
    awaitTrue(
        () -> merchant.get("/v1/balance").json().equals(panel.get("/embed/v1/balance").json()));
    JsonNode events = ok(panel.get("/embed/v1/events?limit=3"), 200);
    assertEquals(merchant.get("/v1/events?limit=3").json(), events);
    assertEquals(3, events.get("data").size());

    Merchant scoped = embed(mint(scoped("merchant", "panel", "customer_id", ana.id())));
    assertEquals(ana.payments(), ids(scoped, "/embed/v1/payments"));
    assertEquals(ana.invoices(), ids(scoped, "/embed/v1/invoices"));
    assertEquals(List.of(ana.id()), ids(scoped, "/embed/v1/customers"));
    assertEquals(
        List.of(), idsOf(ok(scoped.get("/embed/v1/customers?starting_after=" + ana.id()), 200)));
    expect(scoped.get("/embed/v1/payments/" + ben.payments().get(0)), 404, "not_found");
    assertEquals(ids(merchant, "/v1/payouts"), ids(scoped, "/embed/v1/payouts"));
  }

  @Test
  void theEmbedApiAnswersAnyOriginWithoutCredentialsAndTheApiDoesNot() throws Exception {
    java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
    java.net.http.HttpResponse<String> preflight =
        client.send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(system.gatewayUrl() + "/embed/v1/payments"))
                .method("OPTIONS", java.net.http.HttpRequest.BodyPublishers.noBody())
                .header("Origin", "https://shop.example.ph")
                .header("Access-Control-Request-Method", "GET")
                .header("Access-Control-Request-Headers", "authorization")
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(204, preflight.statusCode());
    assertEquals("*", preflight.headers().firstValue("Access-Control-Allow-Origin").orElse(null));
    assertTrue(preflight.headers().firstValue("Access-Control-Allow-Credentials").isEmpty());
    Merchant panel =
        embed(mint("{\"project_uuid\":\"" + PROJECT + "\",\"audience\":\"merchant\"}"));
    Merchant.Reply read = panel.get("/embed/v1/payments");
    assertEquals("*", read.raw().headers().firstValue("Access-Control-Allow-Origin").orElse(null));
    assertTrue(
        merchant
            .get("/v1/payments")
            .raw()
            .headers()
            .firstValue("Access-Control-Allow-Origin")
            .isEmpty());
    JsonNode jwks = new Merchant(system.gatewayUrl(), null).get("/.well-known/jwks.json").json();
    assertFalse(jwks.get("keys").isEmpty());
  }

  // ---------------------------------------------------------------------------------------------

  private static Customer customer(String name, String externalId, int payments, int invoices) {
    String id =
        ok(
                merchant.post(
                    "/v1/customers",
                    "{\"name\":\""
                        + name
                        + "\",\"metadata\":{\"external_id\":\""
                        + externalId
                        + "\"}}"),
                201)
            .get("id")
            .asText();
    List<String> paid = new ArrayList<>();
    for (int i = 0; i < payments; i++) {
      paid.add(payment(id));
    }
    List<String> billed = new ArrayList<>();
    for (int i = 0; i < invoices; i++) {
      billed.add(
          ok(
                  merchant.post(
                      "/v1/invoices",
                      "{\"customer_id\":\""
                          + id
                          + "\",\"line_items\":[{\"description\":\"Item "
                          + i
                          + "\",\"quantity\":1,\"unit_amount\":250}]}"),
                  201)
              .get("id")
              .asText());
    }
    return new Customer(id, paid, billed);
  }

  private static String payment(String customerId) {
    String body =
        customerId == null
            ? "{\"amount\":1500,\"method\":\"card\"}"
            : "{\"amount\":1500,\"method\":\"card\",\"customer_id\":\"" + customerId + "\"}";
    return ok(merchant.post("/v1/payments", body), 201).get("id").asText();
  }

  /** A token request scoped to one customer. */
  private static String scoped(String audience, String surface, String field, String value) {
    return "{\"project_uuid\":\""
        + PROJECT
        + "\",\"audience\":\""
        + audience
        + "\",\"surface\":\""
        + surface
        + "\",\"scope_field\":\""
        + field
        + "\",\"scope_value\":\""
        + value
        + "\"}";
  }

  private static JsonNode mint(String body) {
    return ok(merchant.post("/v1/embed_tokens", body), 201);
  }

  /** A client of the embed API holding the token of {@code made}, as the panel would. */
  private static Merchant embed(JsonNode made) {
    return new Merchant(system.gatewayUrl(), made.get("token").asText());
  }

  private static List<String> ids(Merchant client, String path) {
    return client.listAll(path).stream().map(item -> item.get("id").asText()).toList();
  }

  private static List<String> idsOf(JsonNode page) {
    List<String> ids = new ArrayList<>();
    page.get("data").forEach(item -> ids.add(item.get("id").asText()));
    return ids;
  }

  private static JsonNode ok(Merchant.Reply reply, int status) {
    assertEquals(status, reply.status(), reply.raw().body());
    return reply.json();
  }

  private static void expect(Merchant.Reply reply, int status, String code) {
    assertEquals(status, reply.status(), reply.raw().body());
    if (code != null) {
      assertEquals(code, reply.code(), reply.raw().body());
    }
  }

  private static void awaitTrue(java.util.function.BooleanSupplier condition) {
    for (int i = 0; i < 200; i++) {
      if (condition.getAsBoolean()) {
        return;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    assertTrue(condition.getAsBoolean(), "not within 10 s");
  }
}
