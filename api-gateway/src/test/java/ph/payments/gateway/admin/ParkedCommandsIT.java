package ph.payments.gateway.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.kafka.ParkedMessages;
import ph.payments.platform.micronaut.InternalHeaders;
import ph.payments.platform.micronaut.ParkedMessagesController;
import ph.payments.platform.tx.Transactions;

/**
 * The operator API over parked messages ({@code /admin/v1/parked_commands}): the gateway's own
 * parked rows (written by the platform's {@link ParkedMessages} into its database) merged with
 * every owner's {@code /internal/parked_messages} pages into one ascending list with {@code limit}
 * and {@code starting_after}, {@code unresolved} summed; {@code resolve} marks a row of whichever
 * service holds it, idempotently; an unknown id is 404; nothing without the operator token.
 *
 * <p>The owners are outside the gateway under test, so each is a small HTTP server that answers
 * like the real one: the same page and row shapes ({@link ParkedMessagesController#page}, {@link
 * ParkedMessagesController#view}), the same paging, resolving once, 404 in the error envelope for
 * an id it does not hold, and 401 without the internal token.
 */
@MicronautTest(transactional = false)
class ParkedCommandsIT extends GatewayTest {

  private static final String INTERNAL_TOKEN = "internal-token-for-parked-commands-it";
  private static final String PATH = "/admin/v1/parked_commands";

  private static final OwnerStub payments = new OwnerStub("payments-service");
  private static final OwnerStub ledger = new OwnerStub("ledger-service");
  private static final OwnerStub webhooks = new OwnerStub("webhook-service");

  @Inject Transactions transactions;
  @Inject ParkedMessages parked;

  /** Every parked row of every service, in the order it was parked. */
  private final List<String> all = new ArrayList<>();

  private final AtomicLong offsets = new AtomicLong();

  /** How many rows {@link #resolvingMarksTheRowOfWhicheverServiceHoldsItOnce} resolved. */
  private int resolved;

  @Override
  protected Map<String, String> extraProperties() {
    Map<String, String> properties = new HashMap<>();
    properties.put("gateway.services.payments-url", payments.start());
    properties.put("gateway.services.ledger-url", ledger.start());
    properties.put("gateway.services.webhook-url", webhooks.start());
    properties.put("internal.token", INTERNAL_TOKEN);
    return properties;
  }

  @BeforeAll
  void parkRowsInEveryService() {
    // Interleaved, so only a real merge gives the ascending order.
    own();
    payments.park(this);
    ledger.park(this);
    own();
    webhooks.park(this);
    payments.park(this);
    own();
    ledger.park(this);
    webhooks.park(this);
    payments.park(this);
    own();
  }

  @AfterAll
  void stopOwners() {
    payments.stop();
    ledger.stop();
    webhooks.stop();
  }

  @Test
  void everyServicesParkedRowsInOneAscendingList() {
    Http.Response list = http().get(PATH + "?limit=100", ADMIN_TOKEN);
    assertEquals(200, list.status(), list.body());
    assertEquals("list", list.json().get("object").asText());
    assertEquals(all, ids(list.json()));
    assertEquals(all.stream().sorted().toList(), all, "rows were parked in id order");
    assertFalse(list.json().get("has_more").asBoolean());
    assertEquals(all.size() - resolved, list.json().get("unresolved").asLong());
    Map<String, Integer> perService = new LinkedHashMap<>();
    for (JsonNode row : list.json().get("data")) {
      assertEquals("parked_message", row.get("object").asText());
      perService.merge(row.get("service").asText(), 1, Integer::sum);
    }
    assertEquals(
        Map.of("api-gateway", 4, "payments-service", 3, "ledger-service", 2, "webhook-service", 2),
        perService);
    JsonNode own = list.json().get("data").get(0);
    assertEquals("api-gateway", own.get("service").asText());
    assertEquals("gateway.command-replies", own.get("topic").asText());
    assertEquals("boom", own.get("last_error").asText());
    assertEquals(5, own.get("attempts").asInt());
  }

  @Test
  void pagesWalkTheMergedListWithLimitAndStartingAfter() {
    for (int limit : new int[] {1, 2, 3, 4}) {
      List<String> walked = new ArrayList<>();
      String after = null;
      long unresolved = -1;
      for (int page = 0; page < 20; page++) {
        Http.Response response =
            http()
                .get(
                    PATH + "?limit=" + limit + (after == null ? "" : "&starting_after=" + after),
                    ADMIN_TOKEN);
        assertEquals(200, response.status(), response.body());
        List<String> ids = ids(response.json());
        assertTrue(ids.size() <= limit, response.body());
        walked.addAll(ids);
        if (unresolved == -1) {
          unresolved = response.json().get("unresolved").asLong();
        }
        assertEquals(
            unresolved,
            response.json().get("unresolved").asLong(),
            "unresolved is the total, not the page's");
        if (!response.json().get("has_more").asBoolean()) {
          break;
        }
        after = ids.get(ids.size() - 1);
      }
      assertEquals(all, walked, "limit " + limit);
    }
  }

  @Test
  void resolvingMarksTheRowOfWhicheverServiceHoldsItOnce() {
    long before = unresolved();
    String ownId = all.get(0);
    String ledgerId = ledger.ids().get(0);

    Http.Response own =
        http().post(PATH + "/" + ownId + "/resolve", ADMIN_TOKEN, "{\"resolution\":\"refunded\"}");
    assertEquals(200, own.status(), own.body());
    assertEquals(ownId, own.json().get("id").asText());
    assertEquals("api-gateway", own.json().get("service").asText());
    assertEquals("refunded", own.json().get("resolution").asText());
    String resolvedAt = own.json().get("resolved_at").asText();
    assertNotNull(Instant.parse(resolvedAt));

    Http.Response again =
        http().post(PATH + "/" + ownId + "/resolve", ADMIN_TOKEN, "{\"resolution\":\"other\"}");
    assertEquals(200, again.status(), again.body());
    assertEquals(resolvedAt, again.json().get("resolved_at").asText(), "resolved once");
    assertEquals("refunded", again.json().get("resolution").asText(), "the first note stays");

    Http.Response owners = http().post(PATH + "/" + ledgerId + "/resolve", ADMIN_TOKEN, null);
    assertEquals(200, owners.status(), owners.body());
    assertEquals("ledger-service", owners.json().get("service").asText());
    assertEquals("resolved by an operator", owners.json().get("resolution").asText());
    Http.Response ownersAgain = http().post(PATH + "/" + ledgerId + "/resolve", ADMIN_TOKEN, null);
    assertEquals(owners.body(), ownersAgain.body());

    resolved += 2;
    assertEquals(before - 2, unresolved());
    Map<String, JsonNode> listed = new HashMap<>();
    http()
        .get(PATH + "?limit=100", ADMIN_TOKEN)
        .json()
        .get("data")
        .forEach(row -> listed.put(row.get("id").asText(), row));
    assertEquals(all.size(), listed.size(), "resolved rows stay listed");
    assertEquals(resolvedAt, listed.get(ownId).get("resolved_at").asText());
    assertFalse(listed.get(ledgerId).get("resolved_at").isNull());
    assertTrue(listed.get(all.get(1)).get("resolved_at").isNull());
  }

  @Test
  void anUnknownIdIsNotFoundInTheEnvelope() {
    for (String id :
        new String[] {
          ParkedMessages.ID_PREFIX + "0000000000000000000000000z", "msg_abc", "prk_", "x"
        }) {
      Http.Response response = http().post(PATH + "/" + id + "/resolve", ADMIN_TOKEN, null);
      assertEquals(404, response.status(), id + ": " + response.body());
      assertEquals("not_found", response.errorCode(), response.body());
      assertNotNull(response.json().at("/error/message").textValue(), response.body());
    }
  }

  @Test
  void nothingWithoutTheOperatorToken() {
    long unresolvedBefore = unresolved();
    long requestsBefore = payments.requests() + ledger.requests() + webhooks.requests();
    String id = all.get(all.size() - 1);
    String merchantKey = operator().createMerchant("Curious Store").testSecret();
    for (String path : new String[] {PATH, "//admin/v1/parked_commands", PATH + "?limit=1"}) {
      for (String bearer : new String[] {null, "wrong", merchantKey}) {
        Http.Response response = http().get(path, bearer);
        assertEquals(401, response.status(), path + " " + bearer + ": " + response.body());
        assertEquals("unauthenticated", response.errorCode());
        assertFalse(response.body().contains(id), response.body());
      }
    }
    for (String path :
        new String[] {
          PATH + "/" + id + "/resolve", "//admin/v1/parked_commands/" + id + "/resolve"
        }) {
      for (String bearer : new String[] {null, "wrong", merchantKey}) {
        Http.Response response = http().post(path, bearer, "{\"resolution\":\"by anyone\"}");
        assertEquals(401, response.status(), path + " " + bearer + ": " + response.body());
      }
    }
    assertEquals(
        requestsBefore,
        payments.requests() + ledger.requests() + webhooks.requests(),
        "no owner was asked");
    assertEquals(unresolvedBefore, unresolved(), "nothing was resolved");
  }

  private long unresolved() {
    Http.Response response = http().get(PATH + "?limit=1", ADMIN_TOKEN);
    assertEquals(200, response.status(), response.body());
    return response.json().get("unresolved").asLong();
  }

  private static List<String> ids(JsonNode page) {
    List<String> ids = new ArrayList<>();
    page.get("data").forEach(row -> ids.add(row.get("id").asText()));
    return ids;
  }

  /** Parks a record in the gateway's own {@code parked_messages}, as its reply consumer would. */
  private void own() {
    long offset = offsets.incrementAndGet();
    ConsumerRecord<String, byte[]> record =
        new ConsumerRecord<>(
            "gateway.command-replies",
            0,
            offset,
            "cmd_" + offset,
            "{}".getBytes(StandardCharsets.UTF_8));
    Instant now = Instant.now();
    String id =
        transactions
            .inTransaction(
                connection ->
                    parked.park(
                        connection,
                        "replies",
                        record,
                        new ParkedMessages.Failure(5, now, now, "boom"),
                        false))
            .orElseThrow();
    all.add(id);
  }

  /** An owner's internal API over parked messages, held in memory. */
  private static final class OwnerStub {

    private final String service;
    private final List<ParkedMessages.Parked> rows = new CopyOnWriteArrayList<>();
    private final AtomicLong requests = new AtomicLong();
    private HttpServer server;

    OwnerStub(String service) {
      this.service = service;
    }

    String start() {
      try {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      server.createContext("/internal/parked_messages", this::answer);
      server.start();
      return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    void stop() {
      server.stop(0);
    }

    long requests() {
      return requests.get();
    }

    List<String> ids() {
      return rows.stream().map(ParkedMessages.Parked::id).toList();
    }

    /** Parks one row here, with an id minted like {@link ParkedMessages#park} mints them. */
    void park(ParkedCommandsIT test) {
      String id =
          ParkedMessages.ID_PREFIX
              + IdType.MESSAGE.generate().substring(IdType.MESSAGE.prefix().length() + 1);
      Instant now = Instant.now();
      rows.add(
          new ParkedMessages.Parked(
              id,
              service + ".commands",
              service.replace("-service", "") + ".commands",
              1,
              test.offsets.incrementAndGet(),
              "cmd_" + id,
              "msg_" + id,
              "command.something",
              "{}".getBytes(StandardCharsets.UTF_8),
              "java.lang.IllegalStateException: boom",
              5,
              now,
              now,
              now,
              true,
              null,
              null));
      test.all.add(id);
    }

    private void answer(HttpExchange exchange) throws IOException {
      requests.incrementAndGet();
      if (!INTERNAL_TOKEN.equals(exchange.getRequestHeaders().getFirst(InternalHeaders.TOKEN))) {
        respond(exchange, 401, error("unauthenticated", "Missing or invalid internal token."));
        return;
      }
      String path = exchange.getRequestURI().getPath();
      if ("GET".equals(exchange.getRequestMethod()) && path.equals("/internal/parked_messages")) {
        Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
        int limit = Integer.parseInt(query.getOrDefault("limit", "25"));
        String after = query.get("starting_after");
        List<ParkedMessages.Parked> page =
            rows.stream()
                .filter(row -> after == null || row.id().compareTo(after) > 0)
                .sorted(Comparator.comparing(ParkedMessages.Parked::id))
                .limit(limit + 1L)
                .toList();
        long unresolved = rows.stream().filter(row -> row.resolvedAt() == null).count();
        respond(
            exchange,
            200,
            Json.toText(
                ParkedMessagesController.page(
                    page.subList(0, Math.min(limit, page.size())),
                    page.size() > limit,
                    unresolved,
                    service)));
        return;
      }
      if ("POST".equals(exchange.getRequestMethod()) && path.endsWith("/resolve")) {
        String id = path.substring("/internal/parked_messages/".length(), path.lastIndexOf('/'));
        JsonNode body = Json.tree(new String(exchange.getRequestBody().readAllBytes()));
        for (int i = 0; i < rows.size(); i++) {
          ParkedMessages.Parked row = rows.get(i);
          if (row.id().equals(id)) {
            if (row.resolvedAt() == null) {
              row = resolved(row, ParkedMessagesController.resolution(body));
              rows.set(i, row);
            }
            respond(exchange, 200, Json.toText(ParkedMessagesController.view(row, service)));
            return;
          }
        }
        respond(exchange, 404, error("not_found", "No such parked message."));
        return;
      }
      respond(exchange, 404, error("not_found", "No such route."));
    }

    private static ParkedMessages.Parked resolved(ParkedMessages.Parked row, String resolution) {
      assertNull(row.resolvedAt());
      return new ParkedMessages.Parked(
          row.id(),
          row.consumer(),
          row.topic(),
          row.partition(),
          row.offset(),
          row.key(),
          row.messageId(),
          row.messageType(),
          row.payload(),
          row.lastError(),
          row.attempts(),
          row.firstFailedAt(),
          row.lastFailedAt(),
          row.parkedAt(),
          row.replySent(),
          Instant.now(),
          resolution);
    }

    private static Map<String, String> query(String raw) {
      Map<String, String> query = new HashMap<>();
      if (raw != null) {
        for (String pair : raw.split("&")) {
          int equals = pair.indexOf('=');
          query.put(
              URLDecoder.decode(pair.substring(0, equals), StandardCharsets.UTF_8),
              URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
        }
      }
      return query;
    }

    private static String error(String code, String message) {
      return Json.toText(Map.of("error", Map.of("code", code, "message", message)));
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }
}
