package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 14 item 2: no secret rests anywhere in clear. The operator creates a merchant, an extra API
 * key and takes the merchant live (API key secrets, account-level webhook secrets); the merchant
 * creates a webhook endpoint and rotates its secret under Idempotency-Keys, and a replay still
 * hands the secret to the merchant; it makes an embed token (issue 18) under an Idempotency-Key and
 * uses it. Then every column of every table of the four databases, every message of every topic and
 * every service log is searched for each of those fresh secrets.
 */
@ExtendWith(SharedSystem.class)
class SecretsAtRestE2EIT {

  private static SystemUnderTest system;

  @BeforeAll
  static void start(SystemUnderTest shared) throws Exception {
    system = shared;
  }

  @Test
  void noFreshSecretIsFoundInAnyTableTopicOrLog() throws Exception {
    Map<String, String> secrets = new LinkedHashMap<>();
    Merchant operator = new Merchant(system.gatewayUrl(), system.adminToken);

    Merchant.Reply created =
        operator.post("/admin/v1/merchants", "{\"name\":\"Vault Store\",\"email\":\"v@ex.ph\"}");
    assertEquals(201, created.status(), created.raw().body());
    String merchantId = created.json().get("id").asText();
    String testKey = created.json().at("/api_keys/0/secret").asText();
    secrets.put("first test API key", testKey);
    secrets.put(
        "account webhook secret (test)", created.json().at("/webhook_secrets/test").asText());

    Merchant.Reply extraKey =
        operator.post(
            "/admin/v1/merchants/" + merchantId + "/api_keys",
            "{\"environment\":\"test\",\"scopes\":[\"*\"]}");
    assertEquals(201, extraKey.status(), extraKey.raw().body());
    secrets.put("extra test API key", extraKey.json().get("secret").asText());

    Merchant.Reply live = operator.post("/admin/v1/merchants/" + merchantId + "/activate", null);
    assertEquals(200, live.status(), live.raw().body());
    for (JsonNode key : live.json().get("api_keys")) {
      if (key.hasNonNull("secret")) {
        secrets.put("live API key", key.get("secret").asText());
      }
    }
    secrets.put("account webhook secret (live)", live.json().at("/webhook_secrets/live").asText());

    Merchant.Reply rotatedAccount =
        operator.post(
            "/admin/v1/merchants/" + merchantId + "/webhook_secret/rotate",
            "{\"environment\":\"test\"}");
    assertEquals(200, rotatedAccount.status(), rotatedAccount.raw().body());
    secrets.put("rotated account webhook secret", rotatedAccount.json().get("secret").asText());

    Merchant merchant = new Merchant(system.gatewayUrl(), testKey);
    String body = "{\"url\":\"http://127.0.0.1:9/hooks\",\"events\":[\"*\"]}";
    Merchant.Reply endpoint =
        merchant.post("/v1/webhooks/endpoints", body, "Idempotency-Key", "create-vault-hook");
    assertEquals(201, endpoint.status(), endpoint.raw().body());
    String endpointSecret = endpoint.json().get("secret").asText();
    secrets.put("endpoint signing secret", endpointSecret);
    String endpointId = endpoint.json().get("id").asText();

    Merchant.Reply replay =
        merchant.post("/v1/webhooks/endpoints", body, "Idempotency-Key", "create-vault-hook");
    assertEquals(201, replay.status(), replay.raw().body());
    assertEquals("true", replay.raw().headers().firstValue("Idempotent-Replayed").orElse(null));
    assertEquals(endpoint.raw().body(), replay.raw().body(), "the replay shows the same secret");

    Merchant.Reply rotated =
        merchant.post(
            "/v1/webhooks/endpoints/" + endpointId + "/rotate_secret",
            null,
            "Idempotency-Key",
            "rotate-vault-hook");
    assertEquals(200, rotated.status(), rotated.raw().body());
    secrets.put("rotated endpoint signing secret", rotated.json().get("secret").asText());
    Merchant.Reply rotatedAgain =
        merchant.post(
            "/v1/webhooks/endpoints/" + endpointId + "/rotate_secret",
            null,
            "Idempotency-Key",
            "rotate-vault-hook");
    assertEquals(rotated.raw().body(), rotatedAgain.raw().body());

    // An embed token (issue 18) is a bearer credential too: shown to its merchant's server, used
    // on /embed/v1, replayed under its Idempotency-Key, and never at rest in clear nor logged.
    String tokenBody =
        "{\"project_uuid\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"audience\":\"merchant\"}";
    Merchant.Reply token =
        merchant.post("/v1/embed_tokens", tokenBody, "Idempotency-Key", "vault-embed-token");
    assertEquals(201, token.status(), token.raw().body());
    Merchant.Reply tokenAgain =
        merchant.post("/v1/embed_tokens", tokenBody, "Idempotency-Key", "vault-embed-token");
    assertEquals(token.raw().body(), tokenAgain.raw().body(), "the replay shows the same token");
    String embedToken = token.json().get("token").asText();
    secrets.put("embed token", embedToken);
    assertEquals(
        200, new Merchant(system.gatewayUrl(), embedToken).get("/embed/v1/session").status());
    assertEquals(
        401,
        new Merchant(system.gatewayUrl(), embedToken + "x").get("/embed/v1/session").status(),
        "a refused token is not logged either");

    secrets.forEach(
        (what, secret) ->
            assertTrue(
                secret.startsWith("sk_test_")
                    || secret.startsWith("sk_live_")
                    || secret.startsWith("whsec_")
                    || secret.startsWith("eyJ"),
                what + " is shown in clear to its owner: " + secret));

    // Let the relays publish and the reply recorder store everything it will store.
    Thread.sleep(3_000);

    List<String> found = new ArrayList<>();
    for (String database : SystemUnderTest.DATABASE_NAMES) {
      searchDatabase(database, secrets, found);
    }
    searchTopics(secrets, found);
    searchLogs(secrets, found);
    assertEquals(List.of(), found, "secrets at rest in clear");
  }

  /** Every row of every table of the public schema as text, and every bytea column as UTF-8. */
  private static void searchDatabase(String name, Map<String, String> secrets, List<String> found)
      throws Exception {
    try (Connection connection = system.database(name);
        Statement statement = connection.createStatement()) {
      Map<String, List<String>> byteaColumns = new HashMap<>();
      List<String> tables = new ArrayList<>();
      try (ResultSet rs =
          statement.executeQuery(
              "SELECT table_name FROM information_schema.tables"
                  + " WHERE table_schema = 'public' AND table_type = 'BASE TABLE'")) {
        while (rs.next()) {
          tables.add(rs.getString(1));
        }
      }
      try (ResultSet rs =
          statement.executeQuery(
              "SELECT table_name, column_name FROM information_schema.columns"
                  + " WHERE table_schema = 'public' AND data_type = 'bytea'")) {
        while (rs.next()) {
          byteaColumns
              .computeIfAbsent(rs.getString(1), t -> new ArrayList<>())
              .add(rs.getString(2));
        }
      }
      for (String table : tables) {
        StringBuilder select = new StringBuilder("SELECT t::text");
        for (String column : byteaColumns.getOrDefault(table, List.of())) {
          select.append(", t.\"").append(column).append('"');
        }
        select.append(" FROM \"").append(table).append("\" t");
        try (ResultSet rs = statement.executeQuery(select.toString())) {
          int columns = rs.getMetaData().getColumnCount();
          while (rs.next()) {
            StringBuilder text = new StringBuilder(rs.getString(1));
            for (int i = 2; i <= columns; i++) {
              byte[] bytes = rs.getBytes(i);
              if (bytes != null) {
                text.append('\n').append(new String(bytes, StandardCharsets.UTF_8));
              }
            }
            check(name + "." + table, text.toString(), secrets, found);
          }
        }
      }
    }
  }

  /** Every message of every topic, from the beginning of every partition. */
  private static void searchTopics(Map<String, String> secrets, List<String> found)
      throws Exception {
    Properties config = new Properties();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, system.kafkaBootstrapServers());
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (Map.Entry<String, List<PartitionInfo>> topic :
          consumer.listTopics(Duration.ofSeconds(30)).entrySet()) {
        if (topic.getKey().startsWith("__")) {
          continue; // the broker's own offsets and transactions
        }
        topic.getValue().forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
      }
      assertTrue(
          partitions.stream().anyMatch(p -> p.topic().equals("gateway.command-replies")),
          "the reply topic is searched: " + partitions);
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      int messages = 0;
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("could not read every topic to its end");
        }
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          messages++;
          StringBuilder text = new StringBuilder();
          if (record.key() != null) {
            text.append(new String(record.key(), StandardCharsets.UTF_8)).append('\n');
          }
          if (record.value() != null) {
            text.append(new String(record.value(), StandardCharsets.UTF_8)).append('\n');
          }
          for (Header header : record.headers()) {
            text.append(header.key()).append('=');
            if (header.value() != null) {
              text.append(new String(header.value(), StandardCharsets.UTF_8));
            }
            text.append('\n');
          }
          check("topic " + record.topic(), text.toString(), secrets, found);
        }
      }
      assertTrue(messages > 0, "the topics hold the run's messages");
    }
  }

  /** The services' and the broker's logs of the run. */
  private static void searchLogs(Map<String, String> secrets, List<String> found) throws Exception {
    try (Stream<Path> logs = Files.list(system.runDir.resolve("logs"))) {
      for (Path log : logs.toList()) {
        check(
            "log " + log.getFileName(),
            new String(Files.readAllBytes(log), StandardCharsets.UTF_8),
            secrets,
            found);
      }
    }
  }

  private static void check(
      String where, String text, Map<String, String> secrets, List<String> found) {
    secrets.forEach(
        (what, secret) -> {
          if (text.contains(secret)) {
            found.add(what + " in " + where);
          }
        });
  }
}
