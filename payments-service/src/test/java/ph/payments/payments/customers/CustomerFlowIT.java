package ph.payments.payments.customers;

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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.payments.customers.domain.ReceiptsTokens;
import ph.payments.payments.support.ServiceClient;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * Customers in payments-service: what creation and updates store and answer, email uniqueness per
 * merchant and environment (case-insensitive, also under concurrent creates), merchant and
 * environment isolation, lists, the receipt-history token and its public JSON, and payments that
 * name a customer.
 */
@MicronautTest(transactional = false)
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CustomerFlowIT implements TestPropertyProvider {

  private static final String TOKEN = "internal-token-for-customer-flow-it";
  private static final String BASE = "https://pay.example.ph";

  @Inject CommandDispatcher dispatcher;
  @Inject Transactions transactions;
  @Inject EmbeddedServer server;

  private ServiceClient service;

  @Override
  public Map<String, String> getProperties() {
    TestDatabase database = TestDatabase.forClass(getClass());
    Map<String, String> properties = new HashMap<>();
    properties.put("spec.name", "CustomerFlowIT");
    properties.put("payments.live-connectors", "simulated");
    properties.put("datasources.default.url", database.jdbcUrl());
    properties.put("datasources.default.username", database.user());
    properties.put("kafka.bootstrap.servers", TestKafka.bootstrapServers());
    properties.put("micronaut.server.port", "-1");
    properties.put("internal.token", TOKEN);
    properties.put("payments.public-base-url", BASE);
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

  @Test
  void creationStoresEveryFieldInSpecOrderWithDefaults() {
    String merchant = IdType.MERCHANT.generate();
    CommandReply reply =
        create(
            merchant,
            "test",
            "{\"name\":\"Juan dela Cruz\",\"email\":\"Juan@Example.ph\",\"phone\":\"+639171234567\","
                + "\"address\":{\"line1\":\"1 Ayala Ave\",\"city\":\"Makati\"},"
                + "\"metadata\":{\"tier\":\"gold\"}}");
    assertEquals(201, reply.status(), reply.body().toString());
    JsonNode c = reply.body();
    List<String> fields = new ArrayList<>();
    c.fieldNames().forEachRemaining(fields::add);
    assertEquals(
        List.of(
            "id",
            "object",
            "environment",
            "name",
            "email",
            "phone",
            "address",
            "metadata",
            "receipts_history_url",
            "created",
            "updated"),
        fields);
    assertTrue(IdType.CUSTOMER.matches(c.get("id").asText()));
    assertEquals("customer", c.get("object").asText());
    assertEquals("test", c.get("environment").asText());
    assertEquals("Juan dela Cruz", c.get("name").asText());
    assertEquals("Juan@Example.ph", c.get("email").asText());
    assertEquals("+639171234567", c.get("phone").asText());
    assertEquals("1 Ayala Ave", c.at("/address/line1").asText());
    assertTrue(c.at("/address/line2").isNull());
    assertEquals("Makati", c.at("/address/city").asText());
    assertEquals("PH", c.at("/address/country").asText(), "the default country");
    assertEquals("gold", c.at("/metadata/tier").asText());
    assertEquals(c.get("created"), c.get("updated"));
    assertEquals(
        c, service().json("/internal/customers/" + c.get("id").asText(), merchant, "test"));

    JsonNode bare = create(merchant, "test", "{\"name\":\"N\"}").body();
    assertTrue(bare.get("email").isNull());
    assertTrue(bare.get("phone").isNull());
    assertTrue(bare.get("address").isNull());
    assertEquals(0, bare.get("metadata").size());
    JsonNode empty = create(merchant, "test", "{\"name\":\"E\",\"email\":\"\"}").body();
    assertTrue(empty.get("email").isNull(), "an empty email is none");
  }

  @Test
  void receiptsHistoryUrlCarriesAnUnguessableTokenAndItsJsonListsReceipts() {
    String merchant = IdType.MERCHANT.generate();
    JsonNode customer =
        create(merchant, "test", "{\"name\":\"Ana Reyes\",\"email\":\"a@r.ph\"}").body();
    JsonNode other = create(merchant, "test", "{\"name\":\"Ben\"}").body();
    String url = customer.get("receipts_history_url").asText();
    assertTrue(url.startsWith(BASE + "/receipts/history/rh_"), url);
    String token = url.substring(url.lastIndexOf('/') + 1);
    assertTrue(ReceiptsTokens.matches(token));
    assertFalse(url.contains(customer.get("id").asText()), "not built from the id");
    assertNotEquals(url, other.get("receipts_history_url").asText());
    Set<String> tokens = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      tokens.add(ReceiptsTokens.generate());
    }
    assertEquals(200, tokens.size());

    String id = customer.get("id").asText();
    JsonNode paidPayment =
        paymentJson(merchant, "test", "{\"customer_id\":\"" + id + "\",\"description\":\"Kape\"}");
    String paid = paidPayment.get("id").asText();
    String checkoutUrl = paidPayment.get("checkout_url").asText();
    succeed(merchant, paid);
    payment(merchant, "test", "{\"customer_id\":\"" + id + "\"}"); // pending: no receipt yet
    succeed(
        merchant,
        payment(merchant, "test", "{\"customer_id\":\"" + other.get("id").asText() + "\"}"));

    JsonNode history = publicHistory(token);
    assertEquals("receipt_history", history.get("object").asText());
    assertEquals("Ana Reyes", history.get("name").asText());
    assertEquals(1, history.get("receipts").size(), history.toString());
    JsonNode receipt = history.get("receipts").get(0);
    assertEquals("succeeded", receipt.get("status").asText());
    assertEquals("Kape", receipt.get("description").asText());
    // The receipt page carries the checkout token, never the time-ordered payment id.
    assertEquals(
        BASE + "/receipts/" + checkoutUrl.substring(checkoutUrl.lastIndexOf('/') + 1),
        receipt.get("receipt_url").asText());
    assertFalse(history.has("email"), "no contact details on a public page");
    assertFalse(receipt.has("metadata"));

    assertEquals(
        404, publicGet("/internal/public/receipts/" + ReceiptsTokens.generate()).statusCode());
    assertEquals(
        404, publicGet("/internal/public/receipts/" + id).statusCode(), "the id is no token");
    assertEquals(404, publicGet("/internal/public/receipts/rh_short").statusCode());
    assertEquals(
        "not_found",
        ph.payments.platform.json.Json.tree(
                publicGet("/internal/public/receipts/" + ReceiptsTokens.generate()).body())
            .at("/error/code")
            .asText());
  }

  @Test
  void twoCustomersOfOneMerchantAndEnvironmentCannotShareAnEmail() {
    String merchant = IdType.MERCHANT.generate();
    create(merchant, "test", "{\"name\":\"A\",\"email\":\"maria@shop.ph\"}");
    CommandReply same = create(merchant, "test", "{\"name\":\"B\",\"email\":\"MARIA@Shop.PH\"}");
    assertEquals(409, same.status(), same.body().toString());
    assertEquals("email_taken", same.body().at("/error/code").asText());
    assertEquals(
        201, create(merchant, "live", "{\"name\":\"B\",\"email\":\"maria@shop.ph\"}").status());
    assertEquals(
        201,
        create(IdType.MERCHANT.generate(), "test", "{\"name\":\"C\",\"email\":\"maria@shop.ph\"}")
            .status());
    // Customers without email never clash.
    assertEquals(201, create(merchant, "test", "{\"name\":\"D\"}").status());
    assertEquals(201, create(merchant, "test", "{\"name\":\"E\",\"email\":null}").status());

    String other =
        create(merchant, "test", "{\"name\":\"F\",\"email\":\"f@shop.ph\"}")
            .body()
            .get("id")
            .asText();
    CommandReply taken = update(merchant, "test", other, "{\"email\":\"Maria@shop.ph\"}");
    assertEquals(409, taken.status());
    assertEquals("email_taken", taken.body().at("/error/code").asText());
    assertEquals("f@shop.ph", customer(merchant, other).get("email").asText(), "unchanged");
    // Its own email again (in another case) is no clash.
    assertEquals(200, update(merchant, "test", other, "{\"email\":\"F@shop.ph\"}").status());
    assertEquals(200, update(merchant, "test", other, "{\"name\":\"F2\"}").status());
  }

  @Test
  void concurrentCreatesWithOneEmailLeaveExactlyOneCustomer() throws Exception {
    String merchant = IdType.MERCHANT.generate();
    int n = 8;
    ExecutorService pool = Executors.newFixedThreadPool(n);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<CommandReply>> replies = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String body =
          "{\"name\":\"Racer "
              + i
              + "\",\"email\":\"race"
              + (i % 2 == 0 ? "@x.ph" : "@X.PH")
              + "\"}";
      replies.add(
          pool.submit(
              () -> {
                start.await();
                return create(merchant, "test", body);
              }));
    }
    start.countDown();
    int created = 0;
    int taken = 0;
    for (Future<CommandReply> reply : replies) {
      CommandReply r = reply.get();
      if (r.status() == 201) {
        created++;
      } else {
        assertEquals(409, r.status(), r.body().toString());
        assertEquals("email_taken", r.body().at("/error/code").asText());
        taken++;
      }
    }
    pool.shutdown();
    assertEquals(1, created);
    assertEquals(n - 1, taken);
    assertEquals(1, list(merchant, "test", "?email=RACE@x.ph").get("data").size());
  }

  @Test
  void updatesChangeOnlyWhatTheyNameAndClearWithNull() {
    String merchant = IdType.MERCHANT.generate();
    String id =
        create(
                merchant,
                "test",
                "{\"name\":\"Old\",\"email\":\"o@x.ph\",\"phone\":\"1\",\"address\":{\"line1\":\"L1\","
                    + "\"city\":\"Cebu\",\"country\":\"PH\"},\"metadata\":{\"a\":1}}")
            .body()
            .get("id")
            .asText();
    JsonNode renamed = update(merchant, "test", id, "{\"name\":\"New\"}").body();
    assertEquals("New", renamed.get("name").asText());
    assertEquals("o@x.ph", renamed.get("email").asText());
    assertEquals("Cebu", renamed.at("/address/city").asText());

    JsonNode merged =
        update(merchant, "test", id, "{\"address\":{\"city\":\"Davao\",\"country\":null}}").body();
    assertEquals("L1", merged.at("/address/line1").asText(), "parts not named are kept");
    assertEquals("Davao", merged.at("/address/city").asText());
    assertTrue(merged.at("/address/country").isNull(), "country is nullable on update");

    JsonNode cleared =
        update(
                merchant,
                "test",
                id,
                "{\"email\":\"\",\"phone\":null,\"address\":null,\"metadata\":{\"b\":\"2\"}}")
            .body();
    assertTrue(cleared.get("email").isNull());
    assertTrue(cleared.get("phone").isNull());
    assertTrue(cleared.get("address").isNull());
    assertEquals("{\"b\":\"2\"}", cleared.get("metadata").toString(), "metadata is replaced");
    assertEquals(cleared, customer(merchant, id));
    assertTrue(update(merchant, "test", id, "{\"email\":null}").body().get("email").isNull());

    // The email it gave up is free for another customer.
    assertEquals(201, create(merchant, "test", "{\"name\":\"X\",\"email\":\"O@x.ph\"}").status());
  }

  @Test
  void anotherMerchantsOrEnvironmentsCustomerIsNotFound() {
    String merchant = IdType.MERCHANT.generate();
    String id = create(merchant, "test", "{\"name\":\"Mine\"}").body().get("id").asText();
    String stranger = IdType.MERCHANT.generate();
    assertEquals(404, service().get("/internal/customers/" + id, stranger, "test").statusCode());
    assertEquals(401, service().get("/internal/customers/" + id, merchant, "live").statusCode());
    assertEquals(404, service().get("/internal/customers/cus_nope", merchant, "test").statusCode());
    assertEquals(
        404,
        service()
            .get("/internal/customers/" + IdType.CUSTOMER.generate(), merchant, "test")
            .statusCode());
    CommandReply theirs = update(stranger, "test", id, "{\"name\":\"Theirs\"}");
    assertEquals(404, theirs.status());
    assertEquals("not_found", theirs.body().at("/error/code").asText());
    assertEquals(401, update(merchant, "live", id, "{\"name\":\"Live\"}").status());
    assertEquals("Mine", customer(merchant, id).get("name").asText());
    assertEquals(0, list(stranger, "test", "").get("data").size());
    assertEquals(0, list(merchant, "live", "").get("data").size());
  }

  @Test
  void listsAreAscendingByIdPagedAndFilteredByEmail() {
    String merchant = IdType.MERCHANT.generate();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(
          create(merchant, "test", "{\"name\":\"C" + i + "\",\"email\":\"c" + i + "@x.ph\"}")
              .body()
              .get("id")
              .asText());
    }
    JsonNode first = list(merchant, "test", "?limit=2");
    assertEquals(List.of(ids.get(0), ids.get(1)), idsOf(first));
    assertTrue(first.get("has_more").asBoolean());
    JsonNode rest = list(merchant, "test", "?limit=10&starting_after=" + ids.get(1));
    assertEquals(ids.subList(2, 5), idsOf(rest));
    assertFalse(rest.get("has_more").asBoolean());
    assertEquals(List.of(ids.get(3)), idsOf(list(merchant, "test", "?email=C3%40X.PH")));
    assertEquals(List.of(), idsOf(list(merchant, "test", "?email=c3%40x.p")), "exact, not prefix");
  }

  /** The gateway's embed tokens scope by the merchant's own customer id (issue 18). */
  @Test
  void theInternalListFindsCustomersByMetadataExternalIdOfOneMerchantAndEnvironmentOnly() {
    String merchant = IdType.MERCHANT.generate();
    String ana = withExternalId(merchant, "test", "\"u-17\"");
    String numeric = withExternalId(merchant, "test", "42");
    withExternalId(merchant, "test", "\"u-170\"");
    create(merchant, "test", "{\"name\":\"Nested\",\"metadata\":{\"ref\":\"u-17\"}}");
    withExternalId(merchant, "live", "\"u-17\"");
    withExternalId(IdType.MERCHANT.generate(), "test", "\"u-17\"");

    assertEquals(List.of(ana), idsOf(list(merchant, "test", "?external_id=u-17")));
    assertEquals(List.of(numeric), idsOf(list(merchant, "test", "?external_id=42")));
    assertEquals(List.of(), idsOf(list(merchant, "test", "?external_id=U-17")), "exact");
    assertEquals(List.of(), idsOf(list(merchant, "test", "?external_id=u-1")), "not a prefix");

    String twin = withExternalId(merchant, "test", "\"u-17\"");
    JsonNode two = list(merchant, "test", "?external_id=u-17&limit=1");
    assertEquals(List.of(ana), idsOf(two));
    assertTrue(two.get("has_more").asBoolean(), "a second match is seen with limit 1");
    assertEquals(List.of(ana, twin), idsOf(list(merchant, "test", "?external_id=u-17")));
  }

  /** A new customer whose {@code metadata.external_id} is the JSON value {@code externalId}. */
  private String withExternalId(String merchant, String environment, String externalId) {
    return create(
            merchant,
            environment,
            "{\"name\":\"C\",\"metadata\":{\"external_id\":" + externalId + "}}")
        .body()
        .get("id")
        .asText();
  }

  @Test
  void paymentsNamingACustomerMustFindItAndInheritItsEmailAndName() {
    String merchant = IdType.MERCHANT.generate();
    String id =
        create(merchant, "test", "{\"name\":\"Liza\",\"email\":\"liza@x.ph\"}")
            .body()
            .get("id")
            .asText();
    String nameless = create(merchant, "test", "{\"name\":\"NoMail\"}").body().get("id").asText();

    JsonNode inherited = paymentJson(merchant, "test", "{\"customer_id\":\"" + id + "\"}");
    assertEquals(id, inherited.get("customer_id").asText());
    assertEquals("liza@x.ph", inherited.at("/customer/email").asText());
    assertEquals("Liza", inherited.at("/customer/name").asText());

    JsonNode own =
        paymentJson(
            merchant,
            "test",
            "{\"customer_id\":\"" + id + "\",\"customer\":{\"name\":\"Gift for Liza\"}}");
    assertEquals("Gift for Liza", own.at("/customer/name").asText(), "the body's customer wins");
    assertTrue(own.at("/customer/email").isNull());
    assertTrue(
        paymentJson(merchant, "test", "{\"customer_id\":\"" + nameless + "\"}")
            .at("/customer/email")
            .isNull());
    assertTrue(paymentJson(merchant, "test", "{}").get("customer").isNull());

    for (String[] wrong :
        List.of(
            new String[] {merchant, "live", id},
            new String[] {IdType.MERCHANT.generate(), "test", id},
            new String[] {merchant, "test", IdType.CUSTOMER.generate()},
            new String[] {merchant, "test", "cus_notanid"})) {
      CommandReply reply =
          paymentReply(wrong[0], wrong[1], "{\"customer_id\":\"" + wrong[2] + "\"}");
      assertEquals(404, reply.status(), reply.body().toString());
      assertEquals("customer_not_found", reply.body().at("/error/code").asText());
    }

    JsonNode filtered = service().json("/internal/payments?customer_id=" + id, merchant, "test");
    assertEquals(2, filtered.get("data").size());
    for (JsonNode p : filtered.get("data")) {
      assertEquals(id, p.get("customer_id").asText());
    }
    assertEquals(
        0,
        service()
            .json("/internal/payments?customer_id=" + IdType.CUSTOMER.generate(), merchant, "test")
            .get("data")
            .size());
    assertEquals(4, service().json("/internal/payments", merchant, "test").get("data").size());
  }

  private CommandReply create(String merchant, String environment, String body) {
    return service()
        .dispatch(
            ServiceClient.command(
                "customers.create", merchant, environment, IdType.CUSTOMER.generate(), body));
  }

  private CommandReply update(String merchant, String environment, String id, String body) {
    return service()
        .dispatch(ServiceClient.command("customers.update", merchant, environment, id, body));
  }

  private JsonNode customer(String merchant, String id) {
    return service().json("/internal/customers/" + id, merchant, "test");
  }

  private JsonNode list(String merchant, String environment, String query) {
    return service().json("/internal/customers" + query, merchant, environment);
  }

  private static List<String> idsOf(JsonNode list) {
    List<String> ids = new ArrayList<>();
    list.get("data").forEach(c -> ids.add(c.get("id").asText()));
    return ids;
  }

  private CommandReply paymentReply(String merchant, String environment, String extra) {
    String body =
        "{\"amount\":100,\"method\":\"card\",\"merchant_name\":\"Shop\""
            + (extra.equals("{}") ? "" : "," + extra.substring(1, extra.length() - 1))
            + "}";
    return service()
        .dispatch(
            ServiceClient.command(
                "payments.create", merchant, environment, IdType.PAYMENT.generate(), body));
  }

  private JsonNode paymentJson(String merchant, String environment, String extra) {
    CommandReply reply = paymentReply(merchant, environment, extra);
    assertEquals(201, reply.status(), reply.body().toString());
    return reply.body();
  }

  private String payment(String merchant, String environment, String extra) {
    return paymentJson(merchant, environment, extra).get("id").asText();
  }

  private void succeed(String merchant, String payment) {
    CommandReply reply =
        service()
            .dispatch(
                ServiceClient.command(
                    "test_helpers.payments.succeed", merchant, "test", payment, null));
    assertEquals(200, reply.status(), reply.body().toString());
  }

  private JsonNode publicHistory(String token) {
    HttpResponse<String> response = publicGet("/internal/public/receipts/" + token);
    assertEquals(200, response.statusCode(), response.body());
    return ph.payments.platform.json.Json.tree(response.body());
  }

  private HttpResponse<String> publicGet(String path) {
    return service().get(path, null, null);
  }
}
