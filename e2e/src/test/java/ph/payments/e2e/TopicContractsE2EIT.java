package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.Topics;
import ph.payments.e2e.samples.PaymentsEventsConsumer;

/**
 * docs/topics.md holds: the whole system (bin/run) does what merchants do (payments that succeed
 * and fail, refunds, a payout, a product's stock, a webhook endpoint), then every message on every
 * topic, read from the beginning, has the documented headers and key and validates against the JSON
 * Schema in {@code contracts/src/main/resources/schemas} for its topic and type (networknt
 * json-schema-validator, draft 2020-12, formats asserted). The one-file consumer sample reads
 * {@code payments.events} as another team would.
 */
class TopicContractsE2EIT {

  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
          .build();

  private static final String SCHEMAS = "https://schemas.payments.ph/";

  private static SystemUnderTest system;
  private static String merchantId;
  private static String paidId; // its card payment of 1000.00, succeeded

  @BeforeAll
  static void start() throws Exception {
    system = SystemUnderTest.start("topiccontracts", Map.of("INVOICE_SWEEP", "1s"));
    Merchant operator = new Merchant(system.gatewayUrl(), system.adminToken);
    JsonNode signedUp =
        operator
            .post("/admin/v1/merchants", "{\"name\":\"Contracts\",\"email\":\"c@example.com\"}")
            .created();
    merchantId = signedUp.get("id").asText();
    Merchant shop = new Merchant(system.gatewayUrl(), signedUp.at("/api_keys/0/secret").asText());
    operator
        .post(
            "/admin/v1/api_keys/" + signedUp.at("/api_keys/0/id").asText() + "/rate_limit",
            "{\"rate_limit_per_minute\":5000}")
        .ok();

    shop.post(
            "/v1/webhooks/endpoints",
            "{\"url\":\"http://127.0.0.1:9/payments\",\"events\":[\"*\"]}")
        .created();
    String paid =
        shop.post("/v1/payments", "{\"amount\":1000,\"method\":\"card\"}")
            .created()
            .get("id")
            .asText();
    shop.post("/v1/test_helpers/payments/" + paid + "/succeed", null).ok();
    paidId = paid;
    String declined =
        shop.post("/v1/payments", "{\"amount\":50,\"method\":\"ewallet1\"}")
            .created()
            .get("id")
            .asText();
    shop.post("/v1/test_helpers/payments/" + declined + "/fail", null).ok();
    String bank =
        shop.post("/v1/payments", "{\"amount\":300,\"method\":\"bank_transfer\"}")
            .created()
            .get("id")
            .asText();
    shop.post("/v1/test_helpers/payments/" + bank + "/succeed", null).ok();
    shop.post("/v1/refunds", "{\"payment\":\"" + paid + "\",\"amount\":100}").created();
    String waiting =
        shop.post("/v1/refunds", "{\"payment\":\"" + bank + "\",\"amount\":50}")
            .created()
            .get("id")
            .asText();
    shop.post("/v1/test_helpers/refunds/" + waiting + "/fail", null).ok();
    awaitAvailable(shop);
    shop.post(
            "/v1/payouts",
            "{\"amount\":100,\"method\":\"ewallet1\",\"destination\":{\"account_no\":\"09171234567\"}}")
        .created();
    // Magic accounts (docs/refunds-payouts.md): one payout fails at once, one stays processing.
    shop.post(
            "/v1/payouts",
            "{\"amount\":20,\"method\":\"ewallet1\",\"destination\":{\"account_no\":\"09000000001\"}}")
        .created();
    shop.post(
            "/v1/payouts",
            "{\"amount\":20,\"method\":\"ewallet1\",\"destination\":{\"account_no\":\"09000000009\"}}")
        .created();
    String lapsing =
        shop.post("/v1/payments", "{\"amount\":75,\"method\":\"card\"}")
            .created()
            .get("id")
            .asText();
    shop.post("/v1/test_helpers/payments/" + lapsing + "/expire", null).ok();
    // A two-stage invoice whose deposit is paid: the job announces invoice.balance_due.
    String invoice =
        shop.post(
                "/v1/invoices",
                "{\"line_items\":[{\"description\":\"Catering\",\"quantity\":1,"
                    + "\"unit_amount\":2000}],\"deposit_rate\":0.5}")
            .created()
            .get("id")
            .asText();
    shop.post("/v1/invoices/" + invoice + "/send", null).ok();
    String deposit =
        shop.post("/v1/payments", "{\"invoice_id\":\"" + invoice + "\",\"method\":\"card\"}")
            .created()
            .get("id")
            .asText();
    shop.post("/v1/test_helpers/payments/" + deposit + "/succeed", null).ok();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (shop.get("/v1/events?type=invoice.balance_due").json().path("data").isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no invoice.balance_due within 60 s");
      }
      Thread.sleep(200);
    }
    String product =
        shop.post(
                "/v1/products",
                "{\"name\":\"Kape\",\"price\":120,\"track_inventory\":true," + "\"stock\":10}")
            .created()
            .get("id")
            .asText();
    shop.post(
            "/v1/products/" + product + "/stock_adjustments",
            "{\"quantity\":-2,\"reason\":\"sold\"}")
        .ok();
    // The owner refuses this one: a reply with an error envelope.
    assertEquals(
        400, shop.post("/v1/refunds", "{\"payment\":\"" + paid + "\",\"amount\":5000}").status());
  }

  @AfterAll
  static void stop() throws Exception {
    if (system != null) {
      system.close();
    }
  }

  @Test
  void everyMessageOnEveryTopicHasItsHeadersAndValidatesAgainstItsSchema() throws Exception {
    JsonSchemaFactory factory =
        JsonSchemaFactory.getInstance(
            SpecVersion.VersionFlag.V202012,
            builder -> builder.schemaMappers(m -> m.mapPrefix(SCHEMAS, "classpath:schemas/")));
    SchemaValidatorsConfig config =
        SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
    JsonSchema command =
        factory.getSchema(SchemaLocation.of(SCHEMAS + "commands/command.schema.json"), config);
    JsonSchema reply =
        factory.getSchema(
            SchemaLocation.of(SCHEMAS + "commands/command.reply.schema.json"), config);
    JsonSchema event =
        factory.getSchema(SchemaLocation.of(SCHEMAS + "events/event.schema.json"), config);

    Map<String, Set<String>> typesByTopic = new TreeMap<>();
    List<String> failures = new ArrayList<>();
    int checked = 0;
    for (ConsumerRecord<String, byte[]> record : everything()) {
      String messageId = header(record, "message-id");
      if (messageId != null && messageId.startsWith(OperatorToolsE2EIT.FORGED_PREFIX)) {
        continue; // not produced by the system
      }
      String type = header(record, "message-type");
      String where = record.topic() + "/" + record.partition() + "@" + record.offset();
      if (messageId == null || type == null || header(record, "message-time") == null) {
        failures.add(where + ": missing message-id, message-type or message-time");
        continue;
      }
      Instant.parse(header(record, "message-time"));
      typesByTopic.computeIfAbsent(record.topic(), t -> new TreeSet<>()).add(type);
      JsonNode payload = JSON.readTree(record.value());
      Set<ValidationMessage> errors;
      switch (record.topic()) {
        case Topics.EVENTS -> {
          errors = event.validate(payload);
          assertEquals(type, payload.get("type").asText(), where);
          assertEquals(
              payload.get("id").asText(), messageId, where + ": message-id is the event id");
          JsonNode object = payload.at("/data/object");
          String expectedKey =
              object.hasNonNull("payment") && "refund".equals(object.path("object").asText())
                  ? object.get("payment").asText()
                  : object.get("id").asText();
          assertEquals(expectedKey, record.key(), where + ": keyed by the aggregate");
          // (A broker kept from an earlier run of this class may hold other merchants' events.)
          assertTrue(
              String.valueOf(header(record, "attr-merchant-id")).matches("mer_[0-9a-z]+"), where);
        }
        case Topics.PAYMENTS_COMMANDS, Topics.WEBHOOKS_COMMANDS -> {
          errors = command.validate(payload);
          assertEquals("command." + payload.path("type").asText(), type, where);
          assertEquals(payload.path("command_id").asText(), record.key(), where);
        }
        case Topics.COMMAND_REPLIES -> {
          errors = reply.validate(payload);
          assertEquals("command.reply", type, where);
          assertEquals(payload.path("command_id").asText(), record.key(), where);
        }
        default -> {
          failures.add(where + ": a topic docs/topics.md does not list");
          continue;
        }
      }
      checked++;
      if (!errors.isEmpty()) {
        failures.add(where + " " + type + ": " + errors + " in " + payload);
      }
    }
    assertTrue(failures.isEmpty(), String.join("\n", failures));
    System.out.printf("topic contracts: %d messages valid, types %s%n", checked, typesByTopic);
    Set<String> events = typesByTopic.get(Topics.EVENTS);
    assertNotNull(events);
    for (String expected :
        List.of(
            "payment.processing",
            "payment.succeeded",
            "payment.failed",
            "refund.created",
            "refund.succeeded",
            "refund.failed",
            "payment.expired",
            "payout.succeeded",
            "payout.failed",
            "invoice.balance_due",
            "product.stock_adjusted")) {
      assertTrue(events.contains(expected), expected + " was produced: " + events);
    }
    assertTrue(typesByTopic.get(Topics.WEBHOOKS_COMMANDS) != null, typesByTopic.toString());
    assertTrue(typesByTopic.get(Topics.COMMAND_REPLIES).contains("command.reply"));
  }

  @Test
  void theConsumerSampleReadsThePaymentEvents() throws Exception {
    List<PaymentsEventsConsumer.Event> seen = new ArrayList<>();
    try (PaymentsEventsConsumer sample =
        new PaymentsEventsConsumer(system.kafkaBootstrapServers(), "sample-" + System.nanoTime())) {
      // Its merchant's events lie on several partitions, read in no set order among other
      // merchants' events: it reads until it has both events it looks at, not the first of them.
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < deadline
          && (seen.stream()
                  .noneMatch(
                      e ->
                          "product.stock_adjusted".equals(e.type())
                              && merchantId.equals(e.merchantId()))
              || seen.stream().noneMatch(TopicContractsE2EIT::paidSucceeded))) {
        sample.pollOnce(Duration.ofMillis(500), seen::add);
      }
    }
    PaymentsEventsConsumer.Event succeeded =
        seen.stream()
            .filter(TopicContractsE2EIT::paidSucceeded)
            .findFirst()
            .orElseThrow(
                () ->
                    new AssertionError("no payment.succeeded of " + paidId + " in " + seen.size()));
    assertEquals(merchantId, succeeded.merchantId());
    assertEquals(
        "1000.00", succeeded.body().at("/data/object/amount").decimalValue().toPlainString());
    assertEquals(succeeded.key(), succeeded.body().at("/data/object/id").asText());
    seen.forEach(PaymentsEventsConsumer::handle); // unknown types are skipped, never an error
  }

  /** The {@code payment.succeeded} of this class's card payment of 1000.00. */
  private static boolean paidSucceeded(PaymentsEventsConsumer.Event event) {
    return "payment.succeeded".equals(event.type()) && paidId.equals(event.key());
  }

  /** Every record of every topic, from the beginning to the end offsets of now. */
  private static List<ConsumerRecord<String, byte[]>> everything() throws Exception {
    Properties config = new Properties();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, system.kafkaBootstrapServers());
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (String topic : Topics.ALL) {
        for (PartitionInfo info : consumer.partitionsFor(topic)) {
          partitions.add(new TopicPartition(topic, info.partition()));
        }
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < deadline
          && partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    assertTrue(records.size() > 20, "messages read: " + records.size());
    return records;
  }

  private static void awaitAvailable(Merchant shop) throws InterruptedException {
    for (int i = 0; i < 100; i++) {
      if (shop.get("/v1/balance?currency=PHP").json().get("available").decimalValue().signum()
          > 0) {
        return;
      }
      Thread.sleep(50);
    }
  }

  private static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }
}
