package ph.payments.payments.links;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.payments.links.application.PaymentLinks;
import ph.payments.payments.payments.MovableClock;
import ph.payments.payments.providers.CallbackSignatures;
import ph.payments.payments.providers.ProviderCallback;
import ph.payments.payments.support.ServiceClient;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * Payment links in payments-service: fields, defaults and the slug URL; updates, list filter and
 * paging; reads across merchants and environments; the public read by slug; and paying through a
 * link: each refusal of docs/catalog.md's table, what the payment inherits, and {@code usage_count}
 * moving exactly once per succeeded payment under redelivered callbacks and commands.
 */
@MicronautTest(transactional = false)
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PaymentLinkFlowIT implements TestPropertyProvider {

  private static final String TOKEN = "internal-token-for-payment-link-flow-it";
  private static final String CALLBACK_SECRET = "sandbox-secret-for-payment-link-flow-it";
  private static final String BASE = "https://pay.example.ph";

  @Inject CommandDispatcher dispatcher;
  @Inject Transactions transactions;
  @Inject EmbeddedServer server;
  @Inject MovableClock clock;
  @Inject PaymentLinks paymentLinks;

  private ServiceClient service;

  @Override
  public Map<String, String> getProperties() {
    TestDatabase database = TestDatabase.forClass(getClass());
    Map<String, String> properties = new HashMap<>();
    properties.put("spec.name", "PaymentLinkFlowIT");
    properties.put("datasources.default.url", database.jdbcUrl());
    properties.put("datasources.default.username", database.user());
    properties.put("kafka.bootstrap.servers", TestKafka.bootstrapServers());
    properties.put("micronaut.server.port", "-1");
    properties.put("internal.token", TOKEN);
    properties.put("payments.public-base-url", BASE);
    properties.put("payments.sandbox.callback-secret", CALLBACK_SECRET);
    properties.put("payments.expiry-sweep", "1h");
    properties.put("payments.sandbox.batch-sweep", "1h");
    return properties;
  }

  private ServiceClient service() {
    if (service == null) {
      service = new ServiceClient(dispatcher, transactions, server.getURL().toString(), TOKEN);
    }
    return service;
  }

  private CommandReply create(String merchant, String environment, String body) {
    return service()
        .dispatch(
            ServiceClient.command(
                CommandTypes.PAYMENT_LINKS_CREATE,
                merchant,
                environment,
                IdType.PAYMENT_LINK.generate(),
                body));
  }

  private JsonNode created(String merchant, String body) {
    CommandReply reply = create(merchant, "test", body);
    assertEquals(201, reply.status(), reply.body().toString());
    return reply.body();
  }

  private CommandReply update(String merchant, String environment, String id, String body) {
    return service()
        .dispatch(
            ServiceClient.command(
                CommandTypes.PAYMENT_LINKS_UPDATE, merchant, environment, id, body));
  }

  private CommandReply pay(String merchant, String environment, String body) {
    com.fasterxml.jackson.databind.node.ObjectNode json =
        (com.fasterxml.jackson.databind.node.ObjectNode) Json.tree(body);
    json.put("merchant_name", "Link Store");
    return service()
        .dispatch(
            new Command(
                IdType.COMMAND.generate(),
                "payments.create",
                merchant,
                environment,
                IdType.PAYMENT.generate(),
                json,
                Instant.now()));
  }

  private Command helper(String merchant, String action, String paymentId) {
    return ServiceClient.command(
        "test_helpers.payments." + action, merchant, "test", paymentId, null);
  }

  private JsonNode link(String merchant, String id) {
    return service().json("/internal/payment_links/" + id, merchant, "test");
  }

  private static String future(Duration in) {
    return OffsetDateTime.ofInstant(Instant.now().plus(in), ZoneOffset.ofHours(8)).toString();
  }

  @Test
  void aLinkHasSpecsFieldsInOrderAndAnUnguessableUrl() {
    String merchant = IdType.MERCHANT.generate();
    JsonNode link = created(merchant, "{\"description\":\"Donation\"}");
    List<String> fields = new ArrayList<>();
    link.fieldNames().forEachRemaining(fields::add);
    assertEquals(
        List.of(
            "id",
            "object",
            "environment",
            "amount",
            "currency",
            "method",
            "description",
            "image_url",
            "success_url",
            "cancel_url",
            "status",
            "customer_id",
            "usage_count",
            "last_used_at",
            "expires_at",
            "metadata",
            "created",
            "url"),
        fields);
    assertEquals("payment_link", link.get("object").asText());
    assertEquals("test", link.get("environment").asText());
    assertTrue(link.get("amount").isNull(), "no amount: the customer enters it");
    assertTrue(link.get("method").isNull(), "no method: the customer picks it");
    assertEquals("PHP", link.get("currency").asText());
    assertEquals("active", link.get("status").asText());
    assertEquals(0, link.get("usage_count").asInt());
    assertTrue(link.get("last_used_at").isNull());
    assertTrue(link.get("expires_at").isNull());
    assertEquals(0, link.get("metadata").size());
    String url = link.get("url").asText();
    assertTrue(url.matches("https://pay\\.example\\.ph/l/[A-Za-z0-9]{16}"), url);
    assertFalse(url.contains(link.get("id").asText()), "the public URL never carries the id");
    String other = created(merchant, "{\"description\":\"Donation\"}").get("url").asText();
    assertNotEquals(url, other);
    assertEquals(link, link(merchant, link.get("id").asText()));
  }

  @Test
  void everyGivenFieldIsKeptExactly() {
    String merchant = IdType.MERCHANT.generate();
    String customer = customer(merchant, "Ana Cruz", "ana@example.ph");
    JsonNode link =
        created(
            merchant,
            "{\"description\":\"Dinner for two\",\"amount\":1500.5,\"currency\":\"PHP\","
                + "\"method\":\"card\",\"image_url\":\"https://img.example/d.png\","
                + "\"success_url\":\"https://shop.example/thanks\","
                + "\"cancel_url\":\"https://shop.example/cart\","
                + "\"expires_at\":\"2030-01-01T08:00:00+08:00\",\"customer_id\":\""
                + customer
                + "\",\"metadata\":{\"table\":\"7\"}}");
    assertEquals("1500.50", link.get("amount").decimalValue().toPlainString());
    assertEquals("card", link.get("method").asText());
    assertEquals("Dinner for two", link.get("description").asText());
    assertEquals("https://img.example/d.png", link.get("image_url").asText());
    assertEquals("https://shop.example/thanks", link.get("success_url").asText());
    assertEquals("https://shop.example/cart", link.get("cancel_url").asText());
    assertEquals(1893456000L, link.get("expires_at").asLong(), "2030-01-01T00:00:00Z");
    assertEquals(customer, link.get("customer_id").asText());
    assertEquals("7", link.at("/metadata/table").asText());
    assertEquals(link, link(merchant, link.get("id").asText()));
    assertEquals(
        Optional.of("https://shop.example/cart"),
        transactions.inTransaction(c -> paymentLinks.cancelUrlOf(c, link.get("id").asText())));
    assertEquals(
        Optional.empty(),
        transactions.inTransaction(
            c ->
                paymentLinks.cancelUrlOf(
                    c, created(merchant, "{\"description\":\"x\"}").get("id").asText())));
  }

  @Test
  void aCustomerIdMustNameACustomerOfTheMerchantsEnvironment() {
    String merchant = IdType.MERCHANT.generate();
    String theirs = customer(IdType.MERCHANT.generate(), "Other", null);
    for (String id : List.of(theirs, IdType.CUSTOMER.generate(), "cus_nope")) {
      CommandReply reply =
          create(merchant, "test", "{\"description\":\"x\",\"customer_id\":\"" + id + "\"}");
      assertEquals(404, reply.status(), reply.body().toString());
      assertEquals("customer_not_found", reply.body().at("/error/code").asText());
    }
    String mine = customer(merchant, "Mine", null);
    CommandReply live =
        create(merchant, "live", "{\"description\":\"x\",\"customer_id\":\"" + mine + "\"}");
    assertEquals(404, live.status(), "a test customer is no live link's customer");
  }

  @Test
  void updatesReplaceWhatIsGivenClearNullsAndMoveTheStatusBothWays() {
    String merchant = IdType.MERCHANT.generate();
    JsonNode link =
        created(
            merchant,
            "{\"description\":\"Bag\",\"amount\":250,\"method\":\"card\","
                + "\"image_url\":\"https://img.example/bag.png\","
                + "\"success_url\":\"https://s.example/ok\",\"cancel_url\":\"https://s.example/no\","
                + "\"metadata\":{\"a\":1}}");
    String id = link.get("id").asText();
    CommandReply cleared =
        update(
            merchant,
            "test",
            id,
            "{\"amount\":null,\"method\":null,\"image_url\":null,\"success_url\":null,"
                + "\"cancel_url\":null,\"metadata\":{\"b\":2}}");
    assertEquals(200, cleared.status(), cleared.body().toString());
    JsonNode l = cleared.body();
    for (String field : List.of("amount", "method", "image_url", "success_url", "cancel_url")) {
      assertTrue(l.get(field).isNull(), field);
    }
    assertEquals("Bag", l.get("description").asText(), "absent fields stay");
    assertEquals(Json.tree("{\"b\":2}"), l.get("metadata"), "metadata is replaced whole");
    assertEquals(link.get("url"), l.get("url"), "the slug never changes");
    assertEquals(link.get("created"), l.get("created"));

    JsonNode changed =
        update(
                merchant,
                "test",
                id,
                "{\"description\":\"Big bag\",\"amount\":19.99,\"currency\":\"USD\","
                    + "\"method\":\"ewallet1\",\"status\":\"inactive\"}")
            .body();
    assertEquals("Big bag", changed.get("description").asText());
    assertEquals("19.99", changed.get("amount").decimalValue().toPlainString());
    assertEquals("USD", changed.get("currency").asText());
    assertEquals("ewallet1", changed.get("method").asText());
    assertEquals("inactive", changed.get("status").asText());
    assertEquals(changed, link(merchant, id));
    assertEquals(
        "active",
        update(merchant, "test", id, "{\"status\":\"active\"}").body().get("status").asText());
  }

  @Test
  void listsFilterByStatusAndPageAscending() {
    String merchant = IdType.MERCHANT.generate();
    String a = created(merchant, "{\"description\":\"a\"}").get("id").asText();
    String b = created(merchant, "{\"description\":\"b\"}").get("id").asText();
    String c = created(merchant, "{\"description\":\"c\"}").get("id").asText();
    update(merchant, "test", b, "{\"status\":\"inactive\"}");
    assertEquals(List.of(a, b, c), ids("", merchant));
    assertEquals(List.of(a, c), ids("status=active", merchant));
    assertEquals(List.of(b), ids("status=inactive", merchant));
    JsonNode first = service().json("/internal/payment_links?limit=2", merchant, "test");
    assertTrue(first.get("has_more").asBoolean());
    assertEquals(2, first.get("data").size());
    JsonNode last =
        service().json("/internal/payment_links?limit=2&starting_after=" + b, merchant, "test");
    assertFalse(last.get("has_more").asBoolean());
    assertEquals(List.of(c), ids("limit=2&starting_after=" + b, merchant));
    assertEquals(
        400, service().get("/internal/payment_links?status=open", merchant, "test").statusCode());
  }

  @Test
  void anotherMerchantsOrEnvironmentsLinkIsNotReachable() {
    String merchant = IdType.MERCHANT.generate();
    String id = created(merchant, "{\"description\":\"Mine\"}").get("id").asText();
    String other = IdType.MERCHANT.generate();
    for (CommandReply reply :
        List.of(
            update(other, "test", id, "{\"description\":\"Theirs\"}"),
            update(merchant, "test", "plk_nope", "{\"description\":\"x\"}"),
            update(merchant, "test", IdType.PAYMENT_LINK.generate(), "{\"description\":\"x\"}"))) {
      assertEquals(404, reply.status(), reply.body().toString());
      assertEquals("not_found", reply.body().at("/error/code").asText());
    }
    assertEquals(401, update(merchant, "live", id, "{\"description\":\"x\"}").status());
    assertEquals(404, service().get("/internal/payment_links/" + id, other, "test").statusCode());
    assertEquals(
        404, service().get("/internal/payment_links/plk_x", merchant, "test").statusCode());
    assertEquals(
        401, service().get("/internal/payment_links/" + id, merchant, "live").statusCode());
    assertEquals(0, service().json("/internal/payment_links", other, "test").get("data").size());
    assertEquals(0, service().json("/internal/payment_links", merchant, "live").get("data").size());
    assertEquals("Mine", link(merchant, id).get("description").asText());
  }

  @Test
  void thePublicReadIsFoundByTheSlugOnlyAndShowsOnlyWhatThePageNeeds() {
    String merchant = IdType.MERCHANT.generate();
    JsonNode open =
        created(
            merchant,
            "{\"description\":\"Tip jar\",\"cancel_url\":\"https://s.example/back\","
                + "\"metadata\":{\"secret\":\"x\"}}");
    String slug = slugOf(open);
    HttpResponse<String> response = service().get("/internal/public/links/" + slug, null, null);
    assertEquals(200, response.statusCode(), response.body());
    JsonNode json = Json.tree(response.body());
    List<String> fields = new ArrayList<>();
    json.fieldNames().forEachRemaining(fields::add);
    assertEquals(
        List.of(
            "id",
            "merchant_id",
            "environment",
            "slug",
            "url",
            "description",
            "image_url",
            "amount",
            "currency",
            "method",
            "methods",
            "status",
            "expired",
            "expires_at",
            "success_url",
            "cancel_url",
            "static_qr"),
        fields);
    assertEquals(merchant, json.get("merchant_id").asText());
    assertEquals("test", json.get("environment").asText());
    assertEquals(slug, json.get("slug").asText());
    assertEquals(open.get("url"), json.get("url"));
    assertEquals("Tip jar", json.get("description").asText());
    assertTrue(json.get("amount").isNull());
    assertTrue(json.get("method").isNull());
    List<String> methods = new ArrayList<>();
    json.get("methods").forEach(m -> methods.add(m.asText()));
    assertTrue(
        methods.containsAll(List.of("card", "ewallet1", "rail1_qr", "bank_transfer")),
        methods.toString());
    assertEquals(methods.stream().sorted().toList(), methods, "sorted");
    assertEquals("active", json.get("status").asText());
    assertFalse(json.get("expired").asBoolean());
    assertEquals("https://s.example/back", json.get("cancel_url").asText());
    assertTrue(json.get("static_qr").isNull());
    // The link id is for the gateway, whose link page sends it as the payment's payment_link_id.
    assertEquals(open.get("id").asText(), json.get("id").asText());
    assertFalse(response.body().contains("secret"), "no metadata");

    JsonNode fixed =
        created(merchant, "{\"description\":\"Card only\",\"amount\":99,\"method\":\"card\"}");
    JsonNode fixedView =
        Json.tree(service().get("/internal/public/links/" + slugOf(fixed), null, null).body());
    assertEquals(List.of("card"), List.of(fixedView.get("methods").get(0).asText()));
    assertEquals(1, fixedView.get("methods").size());
    assertEquals("99.00", fixedView.get("amount").decimalValue().toPlainString());

    update(merchant, "test", open.get("id").asText(), "{\"status\":\"inactive\"}");
    assertEquals(
        "inactive",
        Json.tree(service().get("/internal/public/links/" + slug, null, null).body())
            .get("status")
            .asText());

    String nearMiss = slug.substring(0, 15) + (slug.endsWith("A") ? "B" : "A");
    for (String path :
        List.of(
            "/internal/public/links/" + nearMiss,
            "/internal/public/links/" + open.get("id").asText(),
            "/internal/public/links/short",
            "/internal/public/links/" + slug + "x")) {
      assertEquals(404, service().get(path, null, null).statusCode(), path);
    }
  }

  @Test
  void payingThroughALinkRefusesEachCaseWithItsCode() {
    String merchant = IdType.MERCHANT.generate();
    String open = created(merchant, "{\"description\":\"Open\"}").get("id").asText();
    String fixed =
        created(merchant, "{\"description\":\"Fixed\",\"amount\":150,\"method\":\"card\"}")
            .get("id")
            .asText();
    String inactive = created(merchant, "{\"description\":\"Off\"}").get("id").asText();
    update(merchant, "test", inactive, "{\"status\":\"inactive\"}");
    String otherMerchants =
        created(IdType.MERCHANT.generate(), "{\"description\":\"Theirs\"}").get("id").asText();
    String live = create(merchant, "live", "{\"description\":\"Live\"}").body().get("id").asText();

    for (String id :
        List.of(otherMerchants, live, IdType.PAYMENT_LINK.generate(), "plk_malformed")) {
      refused(
          pay(
              merchant,
              "test",
              "{\"payment_link_id\":\"" + id + "\",\"amount\":1,\"method\":\"card\"}"),
          404,
          "not_found");
    }
    refused(
        pay(
            merchant,
            "test",
            "{\"payment_link_id\":\"" + inactive + "\",\"amount\":1,\"method\":\"card\"}"),
        409,
        "link_inactive");
    refused(
        pay(merchant, "test", "{\"payment_link_id\":\"" + open + "\",\"method\":\"card\"}"),
        400,
        "amount_required");
    refused(
        pay(merchant, "test", "{\"payment_link_id\":\"" + open + "\",\"amount\":10}"),
        400,
        "method_required");
    CommandReply amount =
        pay(merchant, "test", "{\"payment_link_id\":\"" + fixed + "\",\"amount\":151}");
    refused(amount, 400, "invalid_request");
    assertTrue(amount.body().at("/error/issues/amount").asText().contains("150.00"));
    CommandReply method =
        pay(merchant, "test", "{\"payment_link_id\":\"" + fixed + "\",\"method\":\"ewallet1\"}");
    refused(method, 400, "invalid_request");
    assertTrue(method.body().at("/error/issues/method").isTextual());
    CommandReply currency =
        pay(merchant, "test", "{\"payment_link_id\":\"" + fixed + "\",\"currency\":\"USD\"}");
    refused(currency, 400, "invalid_request");
    assertTrue(currency.body().at("/error/issues/currency").isTextual());
    // The same values as the link's are no mismatch.
    CommandReply same =
        pay(
            merchant,
            "test",
            "{\"payment_link_id\":\""
                + fixed
                + "\",\"amount\":150.00,\"method\":\"card\","
                + "\"currency\":\"PHP\"}");
    assertEquals(201, same.status(), same.body().toString());

    // Expiry, on the moved clock: at expires_at the link is expired.
    JsonNode expiring =
        created(
            merchant,
            "{\"description\":\"Flash sale\",\"amount\":5,\"expires_at\":\""
                + OffsetDateTime.ofInstant(
                    clock.instant().plus(Duration.ofHours(1)), ZoneOffset.UTC)
                + "\"}");
    String expiringId = expiring.get("id").asText();
    assertEquals(
        201,
        pay(merchant, "test", "{\"payment_link_id\":\"" + expiringId + "\",\"method\":\"card\"}")
            .status());
    clock.advance(Duration.ofHours(1));
    try {
      refused(
          pay(merchant, "test", "{\"payment_link_id\":\"" + expiringId + "\",\"method\":\"card\"}"),
          410,
          "link_expired");
      JsonNode view =
          Json.tree(service().get("/internal/public/links/" + slugOf(expiring), null, null).body());
      assertTrue(view.get("expired").asBoolean());
      // Inactive wins over expired: the merchant's switch is the first thing said.
      update(merchant, "test", expiringId, "{\"status\":\"inactive\"}");
      refused(
          pay(merchant, "test", "{\"payment_link_id\":\"" + expiringId + "\",\"method\":\"card\"}"),
          409,
          "link_inactive");
    } finally {
      clock.set(Instant.now());
    }
    assertEquals(
        List.of(0, 0, 0, 0),
        List.of(open, fixed, inactive, expiringId).stream()
            .map(id -> link(merchant, id).get("usage_count").asInt())
            .toList(),
        "nothing is counted at creation");
  }

  @Test
  void aPaymentTakesTheLinksValuesAndItsCustomer() {
    String merchant = IdType.MERCHANT.generate();
    String customer = customer(merchant, "Ben Reyes", "ben@example.ph");
    String fixed =
        created(
                merchant,
                "{\"description\":\"Membership\",\"amount\":1200,\"currency\":\"PHP\","
                    + "\"method\":\"ewallet1\",\"success_url\":\"https://club.example/welcome\","
                    + "\"customer_id\":\""
                    + customer
                    + "\"}")
            .get("id")
            .asText();
    CommandReply reply = pay(merchant, "test", "{\"payment_link_id\":\"" + fixed + "\"}");
    assertEquals(201, reply.status(), reply.body().toString());
    JsonNode payment = reply.body();
    assertEquals(fixed, payment.get("payment_link_id").asText());
    assertEquals("1200.00", payment.get("amount").decimalValue().toPlainString());
    assertEquals("ewallet1", payment.get("method").asText());
    assertEquals("PHP", payment.get("currency").asText());
    assertEquals("Membership", payment.get("description").asText());
    assertEquals("https://club.example/welcome", payment.get("return_url").asText());
    assertEquals(customer, payment.get("customer_id").asText());
    assertEquals("ben@example.ph", payment.at("/customer/email").asText());
    assertEquals("Ben Reyes", payment.at("/customer/name").asText());

    // The body's own description and return_url win; another customer is refused.
    JsonNode own =
        pay(
                merchant,
                "test",
                "{\"payment_link_id\":\""
                    + fixed
                    + "\",\"description\":\"Gift\",\"return_url\":\"https://x.example/r\"}")
            .body();
    assertEquals("Gift", own.get("description").asText());
    assertEquals("https://x.example/r", own.get("return_url").asText());
    CommandReply otherCustomer =
        pay(
            merchant,
            "test",
            "{\"payment_link_id\":\""
                + fixed
                + "\",\"customer_id\":\""
                + customer(merchant, "Someone", null)
                + "\"}");
    refused(otherCustomer, 400, "invalid_request");
    assertTrue(otherCustomer.body().at("/error/issues/customer_id").isTextual());

    String open =
        created(merchant, "{\"description\":\"Open\",\"currency\":\"PHP\"}").get("id").asText();
    JsonNode entered =
        pay(
                merchant,
                "test",
                "{\"payment_link_id\":\"" + open + "\",\"amount\":42.5,\"method\":\"rail1_qr\"}")
            .body();
    assertEquals("42.50", entered.get("amount").decimalValue().toPlainString());
    assertEquals("rail1_qr", entered.get("method").asText());
    assertTrue(entered.get("customer_id").isNull());
    assertTrue(entered.get("return_url").isNull());
  }

  @Test
  void aLinkPaymentsPublicCheckoutReadCarriesTheLinksCancelUrl() {
    String merchant = IdType.MERCHANT.generate();
    String id =
        created(
                merchant,
                "{\"description\":\"Cart\",\"amount\":10,\"cancel_url\":\"https://s.example/cart\"}")
            .get("id")
            .asText();
    JsonNode payment =
        pay(merchant, "test", "{\"payment_link_id\":\"" + id + "\",\"method\":\"card\"}").body();
    String url = payment.get("checkout_url").asText();
    HttpResponse<String> view =
        service()
            .get(
                "/internal/public/checkouts/" + url.substring(url.lastIndexOf('/') + 1),
                null,
                null);
    assertEquals(200, view.statusCode(), view.body());
    assertEquals("https://s.example/cart", Json.tree(view.body()).get("cancel_url").asText());

    JsonNode plain = pay(merchant, "test", "{\"amount\":10,\"method\":\"card\"}").body();
    String plainUrl = plain.get("checkout_url").asText();
    assertTrue(
        Json.tree(
                service()
                    .get(
                        "/internal/public/checkouts/"
                            + plainUrl.substring(plainUrl.lastIndexOf('/') + 1),
                        null,
                        null)
                    .body())
            .get("cancel_url")
            .isNull());
  }

  @Test
  void usageMovesOnceWhenAPaymentSucceedsNotWhenItIsCreatedNorRedelivered() throws Exception {
    String merchant = IdType.MERCHANT.generate();
    String id = created(merchant, "{\"description\":\"Coffee\",\"amount\":120}").get("id").asText();
    JsonNode payment =
        pay(merchant, "test", "{\"payment_link_id\":\"" + id + "\",\"method\":\"ewallet1\"}")
            .body();
    String paymentId = payment.get("id").asText();
    JsonNode before = link(merchant, id);
    assertEquals(0, before.get("usage_count").asInt(), "a created payment is not a use");
    assertTrue(before.get("last_used_at").isNull());

    // The provider reports the capture twice with one callback id, and once more with another.
    String provider = payment.get("provider").asText();
    byte[] capture =
        Json.toBytes(
            new ProviderCallback(
                "cb_capture_" + System.nanoTime(),
                ProviderCallback.CAPTURED,
                payment.get("provider_ref").asText(),
                null,
                null));
    String signature =
        CallbackSignatures.sign(CALLBACK_SECRET.getBytes(), capture, clock.instant());
    HttpResponse<String> first = service().callback(provider, capture, signature);
    assertEquals(200, first.statusCode(), first.body());
    assertTrue(first.body().contains("applied"), first.body());
    HttpResponse<String> again = service().callback(provider, capture, signature);
    assertTrue(again.body().contains("duplicate"), again.body());
    byte[] another =
        Json.toBytes(
            new ProviderCallback(
                "cb_capture_again_" + System.nanoTime(),
                ProviderCallback.CAPTURED,
                payment.get("provider_ref").asText(),
                null,
                null));
    HttpResponse<String> late =
        service()
            .callback(
                provider,
                another,
                CallbackSignatures.sign(CALLBACK_SECRET.getBytes(), another, clock.instant()));
    assertTrue(late.body().contains("ignored"), late.body());

    JsonNode paid = service().json("/internal/payments/" + paymentId, merchant, "test");
    assertEquals("succeeded", paid.get("status").asText());
    JsonNode used = link(merchant, id);
    assertEquals(1, used.get("usage_count").asInt());
    assertEquals(paid.get("succeeded_at"), used.get("last_used_at"));

    // A second payment, succeeded by the test helper whose command is delivered twice.
    String second =
        pay(merchant, "test", "{\"payment_link_id\":\"" + id + "\",\"method\":\"card\"}")
            .body()
            .get("id")
            .asText();
    Command succeed = helper(merchant, "succeed", second);
    Envelope envelope =
        new Envelope(
            IdType.MESSAGE.generate(),
            "command." + succeed.type(),
            succeed.commandId(),
            Instant.now(),
            Json.toBytes(succeed));
    dispatcher.prepare(envelope);
    boolean firstTime = transactions.<Boolean>inTransaction(c -> dispatcher.dispatch(c, envelope));
    boolean secondTime = transactions.<Boolean>inTransaction(c -> dispatcher.dispatch(c, envelope));
    assertTrue(firstTime);
    assertFalse(secondTime, "a redelivery is not applied again");
    assertEquals(2, link(merchant, id).get("usage_count").asInt());
    // The helper asked again (a new command) is refused; a failed payment is no use.
    assertEquals(400, service().dispatch(helper(merchant, "succeed", second)).status());
    String failing =
        pay(merchant, "test", "{\"payment_link_id\":\"" + id + "\",\"method\":\"card\"}")
            .body()
            .get("id")
            .asText();
    assertEquals(
        "failed",
        service().dispatch(helper(merchant, "fail", failing)).body().get("status").asText());
    assertEquals(2, link(merchant, id).get("usage_count").asInt());
    // Refunds move the payment again (a partial one keeps it succeeded): no new use.
    for (String amount : List.of("20", "100")) {
      CommandReply refund =
          service()
              .dispatch(
                  ServiceClient.command(
                      "refunds.create",
                      merchant,
                      "test",
                      IdType.REFUND.generate(),
                      "{\"payment\":\"" + paymentId + "\",\"amount\":" + amount + "}"));
      assertEquals("succeeded", refund.body().get("status").asText(), refund.body().toString());
    }
    assertEquals(
        "refunded",
        service().json("/internal/payments/" + paymentId, merchant, "test").get("status").asText());
    assertEquals(2, link(merchant, id).get("usage_count").asInt(), "refunds are no use");
    // A payment without a link moves no link.
    String plain =
        pay(merchant, "test", "{\"amount\":10,\"method\":\"card\"}").body().get("id").asText();
    service().dispatch(helper(merchant, "succeed", plain));
    assertEquals(2, link(merchant, id).get("usage_count").asInt());
  }

  @Test
  void concurrentSuccessesOfOneLinkAreEachCountedOnce() throws Exception {
    String merchant = IdType.MERCHANT.generate();
    String id = created(merchant, "{\"description\":\"Busy counter\"}").get("id").asText();
    List<String> payments = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      payments.add(
          pay(
                  merchant,
                  "test",
                  "{\"payment_link_id\":\""
                      + id
                      + "\",\"amount\":"
                      + (i + 1)
                      + ",\"method\":\"card\"}")
              .body()
              .get("id")
              .asText());
    }
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(6);
    try {
      List<java.util.concurrent.Future<CommandReply>> replies = new ArrayList<>();
      for (String payment : payments) {
        // Each payment is told to succeed twice, by two commands racing each other.
        replies.add(pool.submit(() -> service().dispatch(helper(merchant, "succeed", payment))));
        replies.add(pool.submit(() -> service().dispatch(helper(merchant, "succeed", payment))));
      }
      int succeeded = 0;
      for (java.util.concurrent.Future<CommandReply> reply : replies) {
        succeeded += reply.get().status() == 200 ? 1 : 0;
      }
      assertEquals(12, succeeded, "one of each pair moves the payment, the other is refused");
    } finally {
      pool.shutdownNow();
    }
    assertEquals(12, link(merchant, id).get("usage_count").asInt());
  }

  private static void refused(CommandReply reply, int status, String code) {
    assertEquals(status, reply.status(), reply.body().toString());
    assertEquals(code, reply.body().at("/error/code").asText(), reply.body().toString());
  }

  private String customer(String merchant, String name, String email) {
    CommandReply reply =
        service()
            .dispatch(
                ServiceClient.command(
                    CommandTypes.CUSTOMERS_CREATE,
                    merchant,
                    "test",
                    IdType.CUSTOMER.generate(),
                    email == null
                        ? "{\"name\":\"" + name + "\"}"
                        : "{\"name\":\"" + name + "\",\"email\":\"" + email + "\"}"));
    assertEquals(201, reply.status(), reply.body().toString());
    return reply.body().get("id").asText();
  }

  private static String slugOf(JsonNode link) {
    String url = link.get("url").asText();
    return url.substring(url.lastIndexOf('/') + 1);
  }

  private List<String> ids(String query, String merchant) {
    JsonNode list = service().json("/internal/payment_links?" + query, merchant, "test");
    List<String> ids = new ArrayList<>();
    list.get("data").forEach(p -> ids.add(p.get("id").asText()));
    return ids;
  }
}
