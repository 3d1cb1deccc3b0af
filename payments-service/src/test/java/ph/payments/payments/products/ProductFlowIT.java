package ph.payments.payments.products;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.payments.products.domain.Ean13;
import ph.payments.payments.support.ServiceClient;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * Products in payments-service: defaults and generated sku and barcode, uniqueness (also racing),
 * updates and archiving, stock adjustments (also 50 at once), the {@code product.stock_adjusted}
 * event, list filters, and reads across merchants and environments.
 */
@MicronautTest(transactional = false)
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProductFlowIT implements TestPropertyProvider {

  private static final String TOKEN = "internal-token-for-product-flow-it";

  @Inject CommandDispatcher dispatcher;
  @Inject Transactions transactions;
  @Inject EmbeddedServer server;

  private ServiceClient service;

  @Override
  public Map<String, String> getProperties() {
    TestDatabase database = TestDatabase.forClass(getClass());
    Map<String, String> properties = new HashMap<>();
    properties.put("spec.name", "ProductFlowIT");
    properties.put("datasources.default.url", database.jdbcUrl());
    properties.put("datasources.default.username", database.user());
    properties.put("datasources.default.maximum-pool-size", "30");
    properties.put("kafka.bootstrap.servers", TestKafka.bootstrapServers());
    properties.put("micronaut.server.port", "-1");
    properties.put("internal.token", TOKEN);
    properties.put("payments.sandbox.callback-secret", "sandbox-secret-for-product-flow-it");
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
                CommandTypes.PRODUCTS_CREATE,
                merchant,
                environment,
                IdType.PRODUCT.generate(),
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
            ServiceClient.command(CommandTypes.PRODUCTS_UPDATE, merchant, environment, id, body));
  }

  private CommandReply adjust(String merchant, String environment, String id, String body) {
    return service()
        .dispatch(
            ServiceClient.command(
                CommandTypes.PRODUCTS_ADJUST_STOCK, merchant, environment, id, body));
  }

  @Test
  void aProductHasSpecsFieldsDefaultsAndAGeneratedSkuAndBarcode() {
    String merchant = IdType.MERCHANT.generate();
    JsonNode product = created(merchant, "{\"name\":\"Iced coffee\"}");
    List<String> fields = new ArrayList<>();
    product.fieldNames().forEachRemaining(fields::add);
    assertEquals(
        List.of(
            "id",
            "object",
            "environment",
            "name",
            "description",
            "price",
            "currency",
            "sku",
            "barcode",
            "image_url",
            "track_inventory",
            "stock",
            "in_stock",
            "low_stock_threshold",
            "low_stock",
            "archived",
            "category",
            "metadata",
            "created",
            "updated"),
        fields);
    assertEquals("product", product.get("object").asText());
    assertEquals("test", product.get("environment").asText());
    assertTrue(product.get("price").isNull(), "no price is an open amount");
    assertEquals("PHP", product.get("currency").asText());
    assertEquals("SKU-00001", product.get("sku").asText());
    String barcode = product.get("barcode").asText();
    assertTrue(Ean13.valid(barcode), barcode);
    assertTrue(barcode.startsWith("2"), "restricted-circulation prefix 20-29: " + barcode);
    assertFalse(product.get("track_inventory").asBoolean());
    assertEquals(0, product.get("stock").asInt());
    assertTrue(product.get("in_stock").asBoolean(), "untracked is always in stock");
    assertFalse(product.get("low_stock").asBoolean());
    assertFalse(product.get("archived").asBoolean());
    assertEquals(0, product.get("metadata").size());

    assertEquals("SKU-00002", created(merchant, "{\"name\":\"Tea\"}").get("sku").asText());
    // Each merchant and environment counts on its own.
    assertEquals(
        "SKU-00001", created(IdType.MERCHANT.generate(), "{\"name\":\"X\"}").get("sku").asText());
    assertEquals(
        "SKU-00001", create(merchant, "live", "{\"name\":\"Tea\"}").body().get("sku").asText());
    // A number a merchant's own sku already uses is skipped (compared case-insensitively).
    created(merchant, "{\"name\":\"Own\",\"sku\":\"sku-00003\"}");
    assertEquals("SKU-00004", created(merchant, "{\"name\":\"Next\"}").get("sku").asText());
  }

  @Test
  void everyGivenFieldIsKeptExactly() {
    String merchant = IdType.MERCHANT.generate();
    JsonNode product =
        created(
            merchant,
            "{\"name\":\"Rice 5kg\",\"description\":\"Jasmine\",\"price\":0.10,"
                + "\"currency\":\"USD\",\"sku\":\"RICE-5\",\"barcode\":\"4006381333931\","
                + "\"image_url\":\"https://img.example/rice.png\",\"track_inventory\":true,"
                + "\"stock\":3,\"low_stock_threshold\":5,\"category\":\"grocery\","
                + "\"metadata\":{\"shelf\":\"A3\"}}");
    assertEquals("0.10", product.get("price").decimalValue().toPlainString());
    assertEquals("USD", product.get("currency").asText());
    assertEquals("RICE-5", product.get("sku").asText());
    assertEquals("4006381333931", product.get("barcode").asText());
    assertEquals("https://img.example/rice.png", product.get("image_url").asText());
    assertEquals(3, product.get("stock").asInt());
    assertTrue(product.get("in_stock").asBoolean());
    assertTrue(product.get("low_stock").asBoolean(), "3 <= 5");
    assertEquals("grocery", product.get("category").asText());
    assertEquals("A3", product.at("/metadata/shelf").asText());
    JsonNode read =
        service().json("/internal/products/" + product.get("id").asText(), merchant, "test");
    assertEquals(product, read);
    JsonNode free = created(merchant, "{\"name\":\"Free sample\",\"price\":0}");
    assertEquals("0.00", free.get("price").decimalValue().toPlainString());
  }

  @Test
  void skuAndBarcodeAreUniquePerMerchantAndEnvironmentIgnoringCase() {
    String merchant = IdType.MERCHANT.generate();
    JsonNode first = created(merchant, "{\"name\":\"A\",\"sku\":\"Mug-1\",\"barcode\":\"AbC\"}");
    CommandReply sameSku = create(merchant, "test", "{\"name\":\"B\",\"sku\":\"MUG-1\"}");
    assertEquals(409, sameSku.status());
    assertEquals("duplicate_sku", sameSku.body().at("/error/code").asText());
    assertTrue(sameSku.body().at("/error/message").asText().contains("MUG-1"));
    CommandReply sameBarcode = create(merchant, "test", "{\"name\":\"B\",\"barcode\":\"abc\"}");
    assertEquals(409, sameBarcode.status());
    assertEquals("duplicate_sku", sameBarcode.body().at("/error/code").asText());
    // Another environment or merchant may use them.
    assertEquals(201, create(merchant, "live", "{\"name\":\"B\",\"sku\":\"mug-1\"}").status());
    assertEquals(
        201,
        create(IdType.MERCHANT.generate(), "test", "{\"name\":\"B\",\"sku\":\"mug-1\"}").status());

    JsonNode second = created(merchant, "{\"name\":\"C\"}");
    String id = second.get("id").asText();
    CommandReply clash = update(merchant, "test", id, "{\"sku\":\"mug-1\"}");
    assertEquals(409, clash.status());
    assertEquals("duplicate_sku", clash.body().at("/error/code").asText());
    assertEquals(409, update(merchant, "test", id, "{\"barcode\":\"ABC\"}").status());
    JsonNode unchanged = service().json("/internal/products/" + id, merchant, "test");
    assertEquals(second.get("sku"), unchanged.get("sku"));
    // Its own sku in another case is no clash; nor is the first product renaming its own.
    assertEquals(
        200, update(merchant, "test", first.get("id").asText(), "{\"sku\":\"MUG-1\"}").status());
  }

  @Test
  void concurrentCreationsWithOneSkuLeaveExactlyOneProduct() throws Exception {
    String merchant = IdType.MERCHANT.generate();
    List<CommandReply> replies =
        race(
            10,
            i ->
                create(
                    merchant,
                    "test",
                    "{\"name\":\"Racer "
                        + i
                        + "\",\"sku\":\"RACE-"
                        + (i % 2 == 0 ? "x" : "X")
                        + "\"}"));
    assertEquals(1, replies.stream().filter(r -> r.status() == 201).count(), replies.toString());
    assertEquals(
        9,
        replies.stream()
            .filter(
                r ->
                    r.status() == 409
                        && r.body().at("/error/code").asText().equals("duplicate_sku"))
            .count());
    JsonNode list = service().json("/internal/products?q=race-", merchant, "test");
    assertEquals(1, list.get("data").size());
  }

  @Test
  void fiftyConcurrentDecrementsOfTwentyLeaveZeroAndTwentySucceed() throws Exception {
    String merchant = IdType.MERCHANT.generate();
    String id =
        created(merchant, "{\"name\":\"Limited\",\"track_inventory\":true,\"stock\":20}")
            .get("id")
            .asText();
    List<CommandReply> replies =
        race(50, i -> adjust(merchant, "test", id, "{\"quantity\":-1,\"reason\":\"sold\"}"));
    assertEquals(20, replies.stream().filter(r -> r.status() == 200).count());
    assertEquals(
        30,
        replies.stream()
            .filter(
                r ->
                    r.status() == 400
                        && r.body().at("/error/code").asText().equals("invalid_request")
                        && r.body().at("/error/issues/quantity").isTextual())
            .count());
    JsonNode product = service().json("/internal/products/" + id, merchant, "test");
    assertEquals(0, product.get("stock").asInt());
    assertFalse(product.get("in_stock").asBoolean());
    assertEquals(
        20, service().eventTypes(id).stream().filter("product.stock_adjusted"::equals).count());
  }

  @Test
  void adjustmentsAddSetRefuseBelowZeroAndEmitTheEvent() {
    String merchant = IdType.MERCHANT.generate();
    String id =
        created(
                merchant,
                "{\"name\":\"Soap\",\"track_inventory\":true,\"stock\":2,"
                    + "\"low_stock_threshold\":3}")
            .get("id")
            .asText();
    CommandReply added = adjust(merchant, "test", id, "{\"quantity\":5,\"reason\":\"delivery\"}");
    assertEquals(200, added.status(), added.body().toString());
    assertEquals(7, added.body().get("stock").asInt());
    assertFalse(added.body().get("low_stock").asBoolean());
    assertEquals("product", added.body().get("object").asText());

    CommandReply below = adjust(merchant, "test", id, "{\"quantity\":-8}");
    assertEquals(400, below.status());
    assertEquals("invalid_request", below.body().at("/error/code").asText());
    assertTrue(below.body().at("/error/issues/quantity").asText().contains("at least -7"));

    CommandReply toZero = adjust(merchant, "test", id, "{\"quantity\":-7}");
    assertEquals(0, toZero.body().get("stock").asInt());
    assertFalse(toZero.body().get("in_stock").asBoolean());
    assertTrue(toZero.body().get("low_stock").asBoolean());

    CommandReply set = adjust(merchant, "test", id, "{\"set\":3,\"reason\":\"count\"}");
    assertEquals(3, set.body().get("stock").asInt());
    assertTrue(set.body().get("low_stock").asBoolean(), "3 <= 3");

    List<JsonNode> events = service().events(id);
    assertEquals(3, events.size(), "the refused adjustment wrote nothing");
    JsonNode first = events.get(0);
    assertEquals("product.stock_adjusted", first.get("type").asText());
    assertEquals("test", first.get("environment").asText());
    JsonNode object = first.at("/data/object");
    assertEquals(id, object.get("id").asText());
    assertEquals(7, object.get("stock").asInt());
    assertEquals(5, object.at("/adjustment/quantity").asInt());
    assertTrue(object.at("/adjustment/set").isNull());
    assertEquals("delivery", object.at("/adjustment/reason").asText());
    assertEquals(2, object.at("/adjustment/previous_stock").asInt());
    assertEquals(7, object.at("/adjustment/stock").asInt());
    JsonNode last = events.get(2).at("/data/object/adjustment");
    assertEquals(3, last.get("set").asInt());
    assertEquals(3, last.get("quantity").asInt());
    assertEquals(List.of(id, id, id), service().eventKeys(id), "keyed by the product");

    // The merchant's event list has them.
    JsonNode listed =
        service().json("/internal/events?type=product.stock_adjusted", merchant, "test");
    assertEquals(3, listed.get("data").size());
  }

  @Test
  void aProductWithoutInventoryHasNoStockToAdjust() {
    String merchant = IdType.MERCHANT.generate();
    String id = created(merchant, "{\"name\":\"Service\"}").get("id").asText();
    CommandReply refused = adjust(merchant, "test", id, "{\"quantity\":1}");
    assertEquals(400, refused.status());
    assertEquals("invalid_state", refused.body().at("/error/code").asText());
    assertTrue(service().events(id).isEmpty());
  }

  @Test
  void anotherMerchantsOrEnvironmentsProductIsNotReachable() {
    String merchant = IdType.MERCHANT.generate();
    String id =
        created(merchant, "{\"name\":\"Mine\",\"track_inventory\":true}").get("id").asText();
    String other = IdType.MERCHANT.generate();
    for (CommandReply reply :
        List.of(
            adjust(other, "test", id, "{\"quantity\":1}"),
            update(other, "test", id, "{\"name\":\"Theirs\"}"),
            adjust(merchant, "test", "prd_nope", "{\"quantity\":1}"),
            update(merchant, "test", IdType.PRODUCT.generate(), "{\"name\":\"x\"}"))) {
      assertEquals(404, reply.status(), reply.body().toString());
      assertEquals("not_found", reply.body().at("/error/code").asText());
    }
    assertEquals(401, adjust(merchant, "live", id, "{\"quantity\":1}").status());
    assertEquals(404, service().get("/internal/products/" + id, other, "test").statusCode());
    assertEquals(404, service().get("/internal/products/prd_x", merchant, "test").statusCode());
    assertEquals(401, service().get("/internal/products/" + id, merchant, "live").statusCode());
    assertEquals(0, service().json("/internal/products", other, "test").get("data").size());
    assertEquals(0, service().json("/internal/products", merchant, "live").get("data").size());
    assertEquals(
        "Mine", service().json("/internal/products/" + id, merchant, "test").get("name").asText());
  }

  @Test
  void updatesReplaceWhatIsGivenClearNullsAndArchive() {
    String merchant = IdType.MERCHANT.generate();
    JsonNode product =
        created(
            merchant,
            "{\"name\":\"Bag\",\"description\":\"Tote\",\"price\":250,"
                + "\"image_url\":\"https://img.example/bag.png\",\"category\":\"bags\","
                + "\"low_stock_threshold\":1,\"metadata\":{\"a\":1,\"b\":2}}");
    String id = product.get("id").asText();
    CommandReply cleared =
        update(
            merchant,
            "test",
            id,
            "{\"description\":null,\"price\":null,\"sku\":null,\"barcode\":null,"
                + "\"image_url\":null,\"category\":null,\"low_stock_threshold\":null,"
                + "\"metadata\":{\"c\":3}}");
    assertEquals(200, cleared.status(), cleared.body().toString());
    JsonNode p = cleared.body();
    for (String field :
        List.of(
            "description",
            "price",
            "sku",
            "barcode",
            "image_url",
            "category",
            "low_stock_threshold")) {
      assertTrue(p.get(field).isNull(), field);
    }
    assertEquals("Bag", p.get("name").asText(), "absent fields stay");
    assertEquals(Json.tree("{\"c\":3}"), p.get("metadata"), "metadata is replaced whole");
    assertEquals(product.get("created"), p.get("created"));

    CommandReply priced = update(merchant, "test", id, "{\"price\":19.99,\"name\":\"Big bag\"}");
    assertEquals("19.99", priced.body().get("price").decimalValue().toPlainString());
    assertEquals("Big bag", priced.body().get("name").asText());
    assertTrue(service().events(id).isEmpty(), "no stock change, no event");

    CommandReply stocked = update(merchant, "test", id, "{\"track_inventory\":true,\"stock\":4}");
    assertEquals(4, stocked.body().get("stock").asInt());
    List<JsonNode> events = service().events(id);
    assertEquals(1, events.size(), "a stock change by update is an adjustment too");
    assertEquals(4, events.get(0).at("/data/object/adjustment/quantity").asInt());

    assertEquals(
        true,
        update(merchant, "test", id, "{\"archived\":true}").body().get("archived").asBoolean());
    assertEquals(0, service().json("/internal/products", merchant, "test").get("data").size());
    JsonNode archived = service().json("/internal/products?archived=true", merchant, "test");
    assertEquals(1, archived.get("data").size());
    assertEquals(
        false,
        update(merchant, "test", id, "{\"archived\":false}").body().get("archived").asBoolean());
    assertEquals(1, service().json("/internal/products", merchant, "test").get("data").size());
  }

  @Test
  void listsFilterAndPageAscending() {
    String merchant = IdType.MERCHANT.generate();
    String untracked =
        created(merchant, "{\"name\":\"Gift wrap\",\"category\":\"extras\"}").get("id").asText();
    String empty =
        created(
                merchant,
                "{\"name\":\"Blue Pen\",\"track_inventory\":true,\"category\":\"office\"}")
            .get("id")
            .asText();
    String low =
        created(
                merchant,
                "{\"name\":\"Notebook\",\"track_inventory\":true,\"stock\":2,"
                    + "\"low_stock_threshold\":2,\"category\":\"office\",\"sku\":\"NB_100%\"}")
            .get("id")
            .asText();
    String plenty =
        created(
                merchant,
                "{\"name\":\"Stapler\",\"track_inventory\":true,\"stock\":50,"
                    + "\"low_stock_threshold\":2,\"barcode\":\"9781234567897\"}")
            .get("id")
            .asText();
    String archived = created(merchant, "{\"name\":\"Old pen\"}").get("id").asText();
    update(merchant, "test", archived, "{\"archived\":true}");

    assertEquals(List.of(untracked, empty, low, plenty), ids("", merchant));
    assertEquals(List.of(archived), ids("archived=true", merchant));
    assertEquals(List.of(empty, low), ids("category=office", merchant));
    assertEquals(List.of(untracked, low, plenty), ids("in_stock=true", merchant));
    assertEquals(List.of(empty), ids("in_stock=false", merchant));
    assertEquals(List.of(low), ids("low_stock=true", merchant));
    assertEquals(List.of(untracked, empty, plenty), ids("low_stock=false", merchant));
    assertEquals(List.of(empty), ids("q=PEN", merchant), "name, case-insensitive");
    assertEquals(List.of(low), ids("q=nb_100%25", merchant), "sku; % and _ are literal");
    assertEquals(List.of(), ids("q=n_", merchant), "_ is no wildcard");
    assertEquals(List.of(plenty), ids("q=4567", merchant), "barcode");
    assertEquals(List.of(low), ids("category=office&in_stock=true&low_stock=true", merchant));

    JsonNode first = service().json("/internal/products?limit=2", merchant, "test");
    assertTrue(first.get("has_more").asBoolean());
    assertEquals(2, first.get("data").size());
    assertEquals(List.of(low, plenty), ids("limit=2&starting_after=" + empty, merchant));
    JsonNode last =
        service().json("/internal/products?limit=2&starting_after=" + empty, merchant, "test");
    assertFalse(last.get("has_more").asBoolean());
    assertEquals(
        400, service().get("/internal/products?in_stock=yes", merchant, "test").statusCode());
  }

  private List<String> ids(String query, String merchant) {
    JsonNode list = service().json("/internal/products?" + query, merchant, "test");
    List<String> ids = new ArrayList<>();
    list.get("data").forEach(p -> ids.add(p.get("id").asText()));
    return ids;
  }

  private interface Attempt {
    CommandReply run(int i) throws Exception;
  }

  private static List<CommandReply> race(int count, Attempt attempt) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(count);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<CommandReply>> futures = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        int n = i;
        Callable<CommandReply> task =
            () -> {
              start.await();
              return attempt.run(n);
            };
        futures.add(pool.submit(task));
      }
      start.countDown();
      List<CommandReply> replies = new ArrayList<>();
      for (Future<CommandReply> future : futures) {
        replies.add(future.get());
      }
      return replies;
    } finally {
      pool.shutdownNow();
    }
  }
}
