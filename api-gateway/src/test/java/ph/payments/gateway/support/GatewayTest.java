package ph.payments.gateway.support;

import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import ph.payments.testkit.FreshDatabase;
import ph.payments.testkit.TestDatabase;
import ph.payments.testkit.TestKafka;

/**
 * Base of the gateway's integration tests: the real gateway on a random port, its own fresh
 * database, the shared real Kafka broker, and clients for the operator and merchant APIs. Test
 * classes add {@code @MicronautTest} and may add properties through {@link #extraProperties()}.
 */
@ExtendWith(FreshDatabase.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class GatewayTest implements TestPropertyProvider {

  protected static final String ADMIN_TOKEN = "adm_test_token_for_integration_tests";

  /** {@code REPLY_SEALING_KEY} of the tests: 32 bytes in base64. */
  public static final String REPLY_SEALING_KEY = "cmVwbHktc2VhbGluZy1rZXktZm9yLXRlc3RzLTMyYnk=";

  @Inject protected EmbeddedServer server;

  @Override
  public Map<String, String> getProperties() {
    TestDatabase database = TestDatabase.forClass(getClass());
    Map<String, String> properties = new HashMap<>();
    properties.put("datasources.default.url", database.jdbcUrl());
    properties.put("datasources.default.username", database.user());
    properties.put("kafka.bootstrap.servers", TestKafka.bootstrapServers());
    properties.put("micronaut.server.port", "-1");
    properties.put("admin.token", ADMIN_TOKEN);
    properties.put("outbox.sweep-interval", "200ms");
    properties.put("security.reply-sealing-key", REPLY_SEALING_KEY);
    // Tests of refused keys send many from 127.0.0.1; the per-address throttle has its own test.
    properties.put("gateway.edge.failed-authentication-per-minute", "100000");
    properties.putAll(extraProperties());
    return properties;
  }

  protected Map<String, String> extraProperties() {
    return Map.of();
  }

  protected Http http() {
    return new Http(server.getURL().toString());
  }

  protected Operator operator() {
    return new Operator(http(), ADMIN_TOKEN);
  }
}
