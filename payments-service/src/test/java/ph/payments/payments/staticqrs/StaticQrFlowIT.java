package ph.payments.payments.staticqrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.contracts.commands.Command;
import ph.payments.contracts.commands.CommandReply;
import ph.payments.contracts.commands.CommandTypes;
import ph.payments.payments.support.ServiceClient;
import ph.payments.platform.commands.CommandDispatcher;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * Static QR codes in payments-service: each creates its open-amount payment link in the same
 * transaction, the link follows the QR's name and currency, archiving makes the link inactive for
 * good (a payment through it is 409 {@code link_inactive}), lists and reads across merchants.
 */
@MicronautTest(transactional = false)
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StaticQrFlowIT implements TestPropertyProvider {

  private static final String TOKEN = "internal-token-for-static-qr-flow-it";
  private static final String BASE = "https://pay.example.ph";

  @Inject CommandDispatcher dispatcher;
  @Inject Transactions transactions;
  @Inject EmbeddedServer server;

  private ServiceClient service;

  @Override
  public Map<String, String> getProperties() {
    TestDatabase database = TestDatabase.forClass(getClass());
    Map<String, String> properties = new HashMap<>();
    properties.put("spec.name", "StaticQrFlowIT");
    properties.put("datasources.default.url", database.jdbcUrl());
    properties.put("datasources.default.username", database.user());
    properties.put("kafka.bootstrap.servers", TestKafka.bootstrapServers());
    properties.put("micronaut.server.port", "-1");
    properties.put("internal.token", TOKEN);
    properties.put("payments.public-base-url", BASE);
    properties.put("payments.sandbox.callback-secret", "sandbox-secret-for-static-qr-flow-it");
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

  private CommandReply command(String type, String merchant, String env, String id, String body) {
    return service().dispatch(ServiceClient.command(type, merchant, env, id, body));
  }

  private JsonNode created(String merchant, String body) {
    CommandReply reply =
        command(
            CommandTypes.STATIC_QRS_CREATE, merchant, "test", IdType.STATIC_QR.generate(), body);
    assertEquals(201, reply.status(), reply.body().toString());
    return reply.body();
  }

  private JsonNode qr(String merchant, String id) {
    return service().json("/internal/static_qrs/" + id, merchant, "test");
  }

  private JsonNode link(String merchant, String id) {
    return service().json("/internal/payment_links/" + id, merchant, "test");
  }

  private JsonNode publicView(JsonNode qr) {
    String url = qr.get("url").asText();
    return service()
        .json("/internal/public/links/" + url.substring(url.lastIndexOf('/') + 1), null, null);
  }

  @Test
  void aStaticQrCreatesTheOpenAmountLinkItEncodes() {
    String merchant = IdType.MERCHANT.generate();
    JsonNode qr =
        created(
            merchant,
            "{\"name\":\"Counter 1\",\"reference\":\"C-1\",\"location\":\"Makati branch\","
                + "\"default_method\":\"rail1_qr\"}");
    List<String> fields = new ArrayList<>();
    qr.fieldNames().forEachRemaining(fields::add);
    assertEquals(
        List.of(
            "id",
            "object",
            "environment",
            "name",
            "reference",
            "location",
            "payment_link_id",
            "url",
            "qr_svg_url",
            "default_method",
            "currency",
            "archived",
            "archived_at",
            "created"),
        fields);
    assertEquals("static_qr", qr.get("object").asText());
    assertEquals("Counter 1", qr.get("name").asText());
    assertEquals("C-1", qr.get("reference").asText());
    assertEquals("Makati branch", qr.get("location").asText());
    assertEquals("rail1_qr", qr.get("default_method").asText());
    assertEquals("PHP", qr.get("currency").asText());
    assertFalse(qr.get("archived").asBoolean());
    assertTrue(qr.get("archived_at").isNull());

    String linkId = qr.get("payment_link_id").asText();
    assertTrue(IdType.PAYMENT_LINK.matches(linkId), linkId);
    JsonNode link = link(merchant, linkId);
    assertTrue(link.get("amount").isNull(), "open amount");
    assertTrue(link.get("method").isNull(), "default_method only preselects");
    assertEquals("Counter 1", link.get("description").asText());
    assertEquals("PHP", link.get("currency").asText());
    assertEquals("active", link.get("status").asText());
    assertEquals(link.get("url"), qr.get("url"), "the QR encodes its link's page");
    assertTrue(qr.get("url").asText().matches("https://pay\\.example\\.ph/l/[A-Za-z0-9]{16}"));
    assertEquals(qr.get("url").asText() + "/qr.svg", qr.get("qr_svg_url").asText());
    assertEquals(qr, qr(merchant, qr.get("id").asText()));

    JsonNode view = publicView(qr);
    assertEquals("Counter 1", view.at("/static_qr/name").asText());
    assertEquals("Makati branch", view.at("/static_qr/location").asText());
    assertEquals("rail1_qr", view.at("/static_qr/default_method").asText());
    assertFalse(view.at("/static_qr/archived").asBoolean());
    assertTrue(view.get("methods").size() > 1, "the customer may pick any method");

    JsonNode usd = created(merchant, "{\"name\":\"Dollar desk\",\"currency\":\"USD\"}");
    assertEquals(
        "USD", link(merchant, usd.get("payment_link_id").asText()).get("currency").asText());
    assertTrue(usd.get("reference").isNull());
    assertTrue(usd.get("location").isNull());
    assertTrue(usd.get("default_method").isNull());
  }

  @Test
  void anUpdateChangesTheQrAndItsLinkFollows() {
    String merchant = IdType.MERCHANT.generate();
    JsonNode qr = created(merchant, "{\"name\":\"Counter 2\",\"reference\":\"C-2\"}");
    String id = qr.get("id").asText();
    CommandReply updated =
        command(
            CommandTypes.STATIC_QRS_UPDATE,
            merchant,
            "test",
            id,
            "{\"name\":\"Front desk\",\"reference\":null,\"location\":\"Lobby\","
                + "\"currency\":\"USD\"}");
    assertEquals(200, updated.status(), updated.body().toString());
    assertEquals("Front desk", updated.body().get("name").asText());
    assertTrue(updated.body().get("reference").isNull());
    assertEquals("Lobby", updated.body().get("location").asText());
    assertEquals(qr.get("url"), updated.body().get("url"), "the printed code stays valid");
    JsonNode link = link(merchant, qr.get("payment_link_id").asText());
    assertEquals("Front desk", link.get("description").asText());
    assertEquals("USD", link.get("currency").asText());
    assertEquals(updated.body(), qr(merchant, id));

    // The QR's link changes only through the QR.
    CommandReply direct =
        command(
            CommandTypes.PAYMENT_LINKS_UPDATE,
            merchant,
            "test",
            qr.get("payment_link_id").asText(),
            "{\"amount\":5}");
    assertEquals(400, direct.status());
    assertEquals("invalid_state", direct.body().at("/error/code").asText());
    assertTrue(direct.body().at("/error/message").asText().contains(id));
  }

  @Test
  void archivingIsFinalAndTheLinkTakesNoMorePayments() {
    String merchant = IdType.MERCHANT.generate();
    JsonNode qr = created(merchant, "{\"name\":\"Stall 9\"}");
    String id = qr.get("id").asText();
    String linkId = qr.get("payment_link_id").asText();
    assertEquals(201, pay(merchant, linkId).status(), "an active QR takes payments");

    CommandReply archived = command(CommandTypes.STATIC_QRS_ARCHIVE, merchant, "test", id, null);
    assertEquals(200, archived.status(), archived.body().toString());
    assertTrue(archived.body().get("archived").asBoolean());
    long archivedAt = archived.body().get("archived_at").asLong();
    assertTrue(archivedAt > 0);
    assertEquals("inactive", link(merchant, linkId).get("status").asText());
    JsonNode view = publicView(qr);
    assertEquals("inactive", view.get("status").asText());
    assertTrue(view.at("/static_qr/archived").asBoolean());

    CommandReply refused = pay(merchant, linkId);
    assertEquals(409, refused.status(), refused.body().toString());
    assertEquals("link_inactive", refused.body().at("/error/code").asText());

    CommandReply again = command(CommandTypes.STATIC_QRS_ARCHIVE, merchant, "test", id, null);
    assertEquals(200, again.status());
    assertEquals(archivedAt, again.body().get("archived_at").asLong(), "archived once");
    // Nothing brings it back: not the link's status, and an update keeps it archived.
    CommandReply reactivate =
        command(
            CommandTypes.PAYMENT_LINKS_UPDATE, merchant, "test", linkId, "{\"status\":\"active\"}");
    assertEquals(400, reactivate.status());
    CommandReply renamed =
        command(CommandTypes.STATIC_QRS_UPDATE, merchant, "test", id, "{\"name\":\"Stall 9b\"}");
    assertEquals(200, renamed.status());
    assertTrue(renamed.body().get("archived").asBoolean());
    assertEquals("inactive", link(merchant, linkId).get("status").asText());
    assertEquals(409, pay(merchant, linkId).status());
  }

  @Test
  void listsHideArchivedByDefaultAndPageAscending() {
    String merchant = IdType.MERCHANT.generate();
    String a = created(merchant, "{\"name\":\"a\"}").get("id").asText();
    String b = created(merchant, "{\"name\":\"b\"}").get("id").asText();
    String c = created(merchant, "{\"name\":\"c\"}").get("id").asText();
    command(CommandTypes.STATIC_QRS_ARCHIVE, merchant, "test", b, null);
    assertEquals(List.of(a, c), ids("", merchant));
    assertEquals(List.of(a, c), ids("archived=false", merchant));
    assertEquals(List.of(b), ids("archived=true", merchant));
    JsonNode first = service().json("/internal/static_qrs?limit=1", merchant, "test");
    assertTrue(first.get("has_more").asBoolean());
    assertEquals(List.of(c), ids("starting_after=" + a, merchant));
    assertEquals(
        400, service().get("/internal/static_qrs?archived=yes", merchant, "test").statusCode());
  }

  @Test
  void anotherMerchantsOrEnvironmentsQrIsNotReachable() {
    String merchant = IdType.MERCHANT.generate();
    String id = created(merchant, "{\"name\":\"Mine\"}").get("id").asText();
    String other = IdType.MERCHANT.generate();
    for (CommandReply reply :
        List.of(
            command(CommandTypes.STATIC_QRS_ARCHIVE, other, "test", id, null),
            command(CommandTypes.STATIC_QRS_UPDATE, other, "test", id, "{\"name\":\"x\"}"),
            command(CommandTypes.STATIC_QRS_ARCHIVE, merchant, "test", "sqr_nope", null),
            command(
                CommandTypes.STATIC_QRS_UPDATE,
                merchant,
                "test",
                IdType.STATIC_QR.generate(),
                "{\"name\":\"x\"}"))) {
      assertEquals(404, reply.status(), reply.body().toString());
      assertEquals("not_found", reply.body().at("/error/code").asText());
    }
    assertEquals(
        401, command(CommandTypes.STATIC_QRS_ARCHIVE, merchant, "live", id, null).status());
    assertEquals(404, service().get("/internal/static_qrs/" + id, other, "test").statusCode());
    assertEquals(404, service().get("/internal/static_qrs/sqr_x", merchant, "test").statusCode());
    assertEquals(401, service().get("/internal/static_qrs/" + id, merchant, "live").statusCode());
    assertEquals(0, service().json("/internal/static_qrs", other, "test").get("data").size());
    assertFalse(qr(merchant, id).get("archived").asBoolean(), "nobody else archived it");
  }

  private CommandReply pay(String merchant, String linkId) {
    ObjectNode body = (ObjectNode) Json.tree("{\"amount\":25,\"method\":\"rail1_qr\"}");
    body.put("payment_link_id", linkId);
    body.put("merchant_name", "QR Store");
    return service()
        .dispatch(
            new Command(
                IdType.COMMAND.generate(),
                "payments.create",
                merchant,
                "test",
                IdType.PAYMENT.generate(),
                body,
                Instant.now()));
  }

  private List<String> ids(String query, String merchant) {
    JsonNode list = service().json("/internal/static_qrs?" + query, merchant, "test");
    List<String> ids = new ArrayList<>();
    list.get("data").forEach(p -> ids.add(p.get("id").asText()));
    return ids;
  }
}
