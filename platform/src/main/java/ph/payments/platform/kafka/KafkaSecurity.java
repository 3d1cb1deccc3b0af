package ph.payments.platform.kafka;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.types.Password;

/**
 * How a service's Kafka clients authenticate and encrypt: the one set of {@code security.protocol},
 * {@code sasl.*} and {@code ssl.*} client settings that every client of the service gets (the
 * outbox relay's producer, the topic admin, and every micronaut-kafka consumer, producer and admin
 * client), so none of them can be left on an unauthenticated connection.
 *
 * <p>It is built from the service's {@code kafka.*} settings by their Kafka names, with two inputs
 * of our own: {@code sasl.username} and {@code sasl.password} (environment {@code
 * KAFKA_SASL_USERNAME}, {@code KAFKA_SASL_PASSWORD}) become the {@code sasl.jaas.config} of the
 * mechanism's login module unless a {@code sasl.jaas.config} is given. Blank values count as unset
 * (an empty {@code ssl.truststore.location} would otherwise make the client try to open ""). The
 * password-typed values are {@link Password}s, which print as {@code [hidden]}, and {@link
 * #toString()} names no secret, so the settings can be logged.
 */
public final class KafkaSecurity {

  private static final Set<String> PROTOCOLS =
      Set.of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL");

  private static final Set<String> PASSWORDS =
      Set.of(
          "sasl.jaas.config",
          "ssl.truststore.password",
          "ssl.keystore.password",
          "ssl.key.password",
          "ssl.keystore.key",
          "ssl.truststore.certificates",
          "ssl.keystore.certificate.chain");

  private static final String USERNAME = "sasl.username";
  private static final String PASSWORD = "sasl.password";

  /** No authentication, no encryption: the local broker of {@code bin/run} and the tests. */
  // Declared after the constants fromSettings reads.
  public static final KafkaSecurity PLAINTEXT = fromSettings(Map.of());

  private final Map<String, Object> clientProperties;
  private final String description;

  private KafkaSecurity(Map<String, Object> clientProperties, String description) {
    this.clientProperties = Map.copyOf(clientProperties);
    this.description = description;
  }

  /**
   * Whether a client setting belongs to security (and so is replaced by this class's): {@code
   * security.protocol}, {@code sasl.*}, {@code ssl.*}, also in the dashed spellings Micronaut
   * derives from environment variables.
   */
  public static boolean isSecuritySetting(String key) {
    String name = key.replace('-', '.');
    return name.equals("security.protocol") || name.startsWith("sasl.") || name.startsWith("ssl.");
  }

  /**
   * Reads the security settings out of a service's Kafka client settings (other keys are ignored).
   *
   * @param settings client settings by Kafka name, e.g. the {@code kafka.*} properties without the
   *     prefix
   * @throws IllegalArgumentException when the protocol is unknown, or a SASL protocol has neither a
   *     username and password nor a {@code sasl.jaas.config}
   */
  public static KafkaSecurity fromSettings(Map<String, ?> settings) {
    Map<String, String> given = new LinkedHashMap<>();
    settings.forEach(
        (key, value) -> {
          // Only the dotted Kafka names: the dashed variants are the same values again.
          if (value != null && !key.contains("-") && isSecuritySetting(key)) {
            String text = value instanceof Password p ? p.value() : value.toString().trim();
            if (!text.isEmpty()) {
              given.put(key, text);
            }
          }
        });
    String username = given.remove(USERNAME);
    String password = given.remove(PASSWORD);
    String protocol = given.getOrDefault("security.protocol", "PLAINTEXT").toUpperCase(Locale.ROOT);
    if (!PROTOCOLS.contains(protocol)) {
      throw new IllegalArgumentException(
          "KAFKA_SECURITY_PROTOCOL must be one of " + PROTOCOLS + ", was " + protocol);
    }
    boolean sasl = protocol.startsWith("SASL_");
    boolean ssl = protocol.endsWith("SSL");
    given.put("security.protocol", protocol);
    Map<String, Object> properties = new LinkedHashMap<>();
    String mechanism = null;
    if (sasl) {
      mechanism = given.getOrDefault("sasl.mechanism", "SCRAM-SHA-512").toUpperCase(Locale.ROOT);
      given.put("sasl.mechanism", mechanism);
      if (!given.containsKey("sasl.jaas.config")) {
        if (username == null || password == null) {
          throw new IllegalArgumentException(
              "KAFKA_SECURITY_PROTOCOL="
                  + protocol
                  + " needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD (or kafka.sasl.jaas.config)");
        }
        given.put("sasl.jaas.config", jaasConfig(mechanism, username, password));
      }
    }
    given.forEach(
        (key, value) -> {
          // Settings of a layer the protocol does not use would only confuse a reader.
          if ((key.startsWith("sasl.") && !sasl) || (key.startsWith("ssl.") && !ssl)) {
            return;
          }
          properties.put(key, PASSWORDS.contains(key) ? new Password(value) : value);
        });
    StringBuilder description = new StringBuilder(protocol);
    if (sasl) {
      description.append(' ').append(mechanism);
      description.append(username != null ? " as " + username : " (sasl.jaas.config)");
    }
    if (ssl && given.containsKey("ssl.truststore.location")) {
      description.append(", truststore ").append(given.get("ssl.truststore.location"));
    }
    return new KafkaSecurity(properties, description.toString());
  }

  /**
   * The JAAS line of the mechanism's login module. Quotes and backslashes in the values are
   * escaped, since JAAS reads the values as quoted strings.
   */
  static String jaasConfig(String mechanism, String username, String password) {
    String module =
        switch (mechanism) {
          case "SCRAM-SHA-256", "SCRAM-SHA-512" ->
              "org.apache.kafka.common.security.scram.ScramLoginModule";
          case "PLAIN" -> "org.apache.kafka.common.security.plain.PlainLoginModule";
          default ->
              throw new IllegalArgumentException(
                  "KAFKA_SASL_MECHANISM "
                      + mechanism
                      + " takes no username and password; set kafka.sasl.jaas.config instead");
        };
    return module
        + " required username=\""
        + quoted(username)
        + "\" password=\""
        + quoted(password)
        + "\";";
  }

  private static String quoted(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  /**
   * The client settings by Kafka name; secret values are {@link Password}s, which Kafka clients
   * accept as they are.
   */
  public Map<String, Object> clientProperties() {
    return clientProperties;
  }

  /** Whether clients authenticate to the broker (a SASL protocol). */
  public boolean authenticates() {
    return clientProperties.get("security.protocol").toString().startsWith("SASL_");
  }

  /** The settings with {@code extra} on top: a copy, the security settings last so they win. */
  public Map<String, Object> applyTo(Map<String, Object> extra) {
    Map<String, Object> config = new HashMap<>(extra);
    config.keySet().removeIf(KafkaSecurity::isSecuritySetting);
    config.putAll(clientProperties);
    return config;
  }

  /** Protocol, mechanism, principal and truststore: never a password. */
  @Override
  public String toString() {
    return description;
  }
}
