package ph.payments.gateway.testwidgets;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micronaut.context.ApplicationContext;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import ph.payments.contracts.commands.Command;
import ph.payments.gateway.commands.CommandBus;
import ph.payments.gateway.idempotency.IdempotencyKey;
import ph.payments.gateway.support.GatewayTest;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.Sql;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.json.Json;
import ph.payments.platform.tx.Transactions;
import ph.payments.testkit.TestKafka;

/**
 * Base of tests that drive {@code POST /v1/test_widgets} through the whole command path: the
 * gateway, its outbox relay, Kafka, the {@link WidgetOwner} and the reply topic back. Each test
 * class gets a command topic of its own, so a command one class left unanswered can never be
 * applied in another class's database.
 */
public abstract class WidgetGatewayTest extends GatewayTest {

  protected static final String WIDGETS = "/v1/test_widgets";

  @Inject protected WidgetOwner owner;
  @Inject protected Transactions transactions;
  @Inject protected ApplicationContext context;

  @Override
  protected Map<String, String> extraProperties() {
    String topic = "test.widgets." + getClass().getSimpleName().toLowerCase(Locale.ROOT);
    TestKafka.createTopics(3, topic);
    Map<String, String> properties = new HashMap<>();
    properties.put("test-widgets.topic", topic);
    properties.putAll(widgetProperties());
    return properties;
  }

  /** Further properties of a test class. */
  protected Map<String, String> widgetProperties() {
    return Map.of();
  }

  /** This class's command topic, which the {@link WidgetOwner} reads. */
  protected String topic() {
    return context.getRequiredProperty("test-widgets.topic", String.class);
  }

  /**
   * A new widget's creation as the gateway would send it to the owner, validated body and all;
   * nothing is written.
   */
  protected Command widgetCreation(CommandBus bus, String merchantId, String description) {
    ObjectNode validated = Json.mapper().createObjectNode();
    validated.put("amount", new BigDecimal("250.00"));
    validated.put("currency", "PHP");
    validated.put("description", description);
    validated.set("metadata", Json.mapper().createObjectNode());
    return bus.prepare(
        new CommandBus.Request(
            topic(),
            "test_widget.create",
            merchantId,
            "test",
            "wgt_" + IdType.MESSAGE.generate().substring(4),
            validated));
  }

  protected Sql sql() {
    return new Sql(transactions);
  }

  /** Creates a widget with {@code body}, sending {@code key} unless it is null. */
  protected Http.Response createWidget(String secret, String body, String key) {
    return key == null
        ? http().post(WIDGETS, secret, body)
        : http().post(WIDGETS, secret, body, IdempotencyKey.HEADER, key);
  }

  protected long commands() {
    return sql().number("SELECT count(*) FROM commands WHERE command_type = 'test_widget.create'");
  }

  protected long widgets() {
    return sql().number("SELECT count(*) FROM test_widgets");
  }
}
