package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
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
@ExtendWith(SharedSystem.class)
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
  static void start(SystemUnderTest shared) throws Exception {
    system = shared; // its invoice deadline job runs every second (INVOICE_SWEEP)
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
    // The system is shared: every message of every class is validated, but what this class's
    // merchant did must show in its own events.
    Set<String> ownEvents = new TreeSet<>();
    Map<String, String> ownCommands = new TreeMap<>(); // command id → topic
    Set<String> replied = new TreeSet<>(); // command ids with a reply
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
          // (Other classes' merchants, and a broker kept from an earlier run, add events.)
          String merchant = String.valueOf(header(record, "attr-merchant-id"));
          assertTrue(merchant.matches("mer_[0-9a-z]+"), where);
          if (merchant.equals(merchantId)) {
            ownEvents.add(type);
          }
        }
        case Topics.PAYMENTS_COMMANDS, Topics.WEBHOOKS_COMMANDS -> {
          errors = command.validate(payload);
          assertEquals("command." + payload.path("type").asText(), type, where);
          assertEquals(payload.path("command_id").asText(), record.key(), where);
          if (merchantId.equals(payload.path("merchant_id").asText())) {
            ownCommands.put(record.key(), record.topic());
          }
        }
        case Topics.COMMAND_REPLIES -> {
          errors = reply.validate(payload);
          assertEquals("command.reply", type, where);
          assertEquals(payload.path("command_id").asText(), record.key(), where);
          replied.add(record.key());
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
      assertTrue(
          ownEvents.contains(expected),
          expected + " was produced for " + merchantId + ": " + ownEvents);
    }
    assertTrue(
        ownCommands.containsValue(Topics.WEBHOOKS_COMMANDS),
        "a command of " + merchantId + " on " + Topics.WEBHOOKS_COMMANDS + ": " + ownCommands);
    assertTrue(
        ownCommands.keySet().stream().anyMatch(replied::contains),
        "a reply to a command of " + merchantId + ": " + ownCommands);
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
      // The shared system's topics hold every class's messages: all of them are read, or this
      // fails rather than validate a part.
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("could not read every topic to its end in 90 s");
        }
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
