package ph.payments.platform.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.security.JaasContext;
import org.junit.jupiter.api.Test;

class KafkaSecurityTest {

  @Test
  void plaintextByDefaultAndNothingElse() {
    KafkaSecurity security =
        KafkaSecurity.fromSettings(
            Map.of(
                "bootstrap.servers", "localhost:9092",
                "sasl.username", "payments",
                "sasl.password", "secret",
                "ssl.truststore.location", "/etc/ts.p12"));
    assertEquals(Map.of("security.protocol", "PLAINTEXT"), security.clientProperties());
    assertFalse(security.authenticates());
    assertEquals("PLAINTEXT", security.toString());
    assertEquals(
        Map.of("security.protocol", "PLAINTEXT"), KafkaSecurity.PLAINTEXT.clientProperties());
  }

  @Test
  void usernameAndPasswordBecomeTheScramJaasConfig() {
    KafkaSecurity security =
        KafkaSecurity.fromSettings(
            Map.of(
                "security.protocol", "sasl_plaintext",
                "sasl.username", "payments",
                "sasl.password", "pa\"ss\\word",
                "ssl.truststore.location", "/etc/ts.p12"));
    Map<String, Object> properties = security.clientProperties();
    assertEquals("SASL_PLAINTEXT", properties.get("security.protocol"));
    assertEquals("SCRAM-SHA-512", properties.get("sasl.mechanism"));
    assertFalse(properties.containsKey("sasl.username"));
    assertFalse(properties.containsKey("sasl.password"));
    assertFalse(properties.containsKey("ssl.truststore.location"), "no TLS in SASL_PLAINTEXT");
    Password jaas = assertInstanceOf(Password.class, properties.get("sasl.jaas.config"));
    assertEquals("[hidden]", jaas.toString());
    // Kafka's own parser reads the escaped values back.
    var entry =
        JaasContext.loadClientContext(Map.of("sasl.jaas.config", jaas))
            .configurationEntries()
            .get(0);
    assertEquals(
        "org.apache.kafka.common.security.scram.ScramLoginModule", entry.getLoginModuleName());
    assertEquals("payments", entry.getOptions().get("username"));
    assertEquals("pa\"ss\\word", entry.getOptions().get("password"));
    assertTrue(security.authenticates());
    assertEquals("SASL_PLAINTEXT SCRAM-SHA-512 as payments", security.toString());
    assertFalse(properties.toString().contains("word"), "a password in the printed settings");
  }

  @Test
  void saslSslKeepsTheTrustStoreAndDropsBlanks() {
    Map<String, Object> settings = new HashMap<>();
    settings.put("security.protocol", "SASL_SSL");
    settings.put("sasl.mechanism", "SCRAM-SHA-256");
    settings.put("sasl.username", "ledger");
    settings.put("sasl.password", "pw");
    settings.put("ssl.truststore.location", "/etc/kafka/ca.p12");
    settings.put("ssl.truststore.password", "changeit");
    settings.put("ssl.keystore.location", "");
    settings.put("ssl.endpoint.identification.algorithm", " ");
    // The dashed twins Micronaut derives from environment variables are ignored.
    settings.put("sasl-password", "pw");
    Map<String, Object> properties = KafkaSecurity.fromSettings(settings).clientProperties();
    assertEquals(
        Map.of(
            "security.protocol", "SASL_SSL",
            "sasl.mechanism", "SCRAM-SHA-256",
            "sasl.jaas.config",
                new Password(KafkaSecurity.jaasConfig("SCRAM-SHA-256", "ledger", "pw")),
            "ssl.truststore.location", "/etc/kafka/ca.p12",
            "ssl.truststore.password", new Password("changeit")),
        properties);
  }

  @Test
  void anExplicitJaasConfigWins() {
    String jaas =
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\" password=\"b\";";
    Map<String, Object> properties =
        KafkaSecurity.fromSettings(
                Map.of(
                    "security.protocol",
                    "SASL_SSL",
                    "sasl.mechanism",
                    "PLAIN",
                    "sasl.jaas.config",
                    jaas))
            .clientProperties();
    assertEquals(new Password(jaas), properties.get("sasl.jaas.config"));
  }

  @Test
  void saslWithoutCredentialsOrAnUnknownProtocolStopsTheStart() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            KafkaSecurity.fromSettings(
                Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.username", "x")));
    assertThrows(
        IllegalArgumentException.class,
        () -> KafkaSecurity.fromSettings(Map.of("security.protocol", "TLS")));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            KafkaSecurity.fromSettings(
                Map.of(
                    "security.protocol",
                    "SASL_SSL",
                    "sasl.mechanism",
                    "GSSAPI",
                    "sasl.username",
                    "x",
                    "sasl.password",
                    "y")));
  }

  @Test
  void clientSettingsGetTheSecurityLast() {
    KafkaSecurity security =
        KafkaSecurity.fromSettings(
            Map.of(
                "security.protocol",
                "SASL_SSL",
                "sasl.username",
                "gateway",
                "sasl.password",
                "pw"));
    Map<String, Object> producer = KafkaSettings.producer("kafka-1:9092", "relay", security);
    assertEquals("SASL_SSL", producer.get("security.protocol"));
    assertEquals("all", producer.get(ProducerConfig.ACKS_CONFIG));
    assertInstanceOf(Password.class, producer.get("sasl.jaas.config"));
    // A bare producer is PLAINTEXT, as before.
    assertEquals(
        "PLAINTEXT", KafkaSettings.producer("localhost:9092", "x").get("security.protocol"));
  }
}
