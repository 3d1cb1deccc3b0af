package ph.payments.webhooks.events;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Singleton;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.contracts.Envelope;
import ph.payments.platform.inbox.IdempotentConsumer;
import ph.payments.platform.json.Json;
import ph.payments.webhooks.deliveries.JdbcDeliveries;
import ph.payments.webhooks.endpoints.JdbcWebhookEndpoints;
import ph.payments.webhooks.signing.AccountSecrets;

/**
 * Turns one event of the event topic into deliveries, in the transaction that records the event as
 * consumed: one per enabled endpoint of the merchant environment that receives its type, plus one
 * to the payment's {@code webhook_url} override when the event carries it (attribute {@value
 * #ATTRIBUTE_WEBHOOK_URL}). The same event delivered twice by Kafka creates its deliveries once.
 */
@Singleton
public class FanOut {

  /** The inbox consumer name of the event topic. */
  public static final String CONSUMER = "webhook-service.events";

  /**
   * Envelope attribute with the payment's {@code webhook_url}, set by payments-service on the
   * payment's events. (A candidate for {@code contracts.Envelope} next to {@code merchant-id}.)
   */
  public static final String ATTRIBUTE_WEBHOOK_URL = Envelope.ATTRIBUTE_WEBHOOK_URL;

  private static final Logger log = LoggerFactory.getLogger(FanOut.class);

  private final IdempotentConsumer inbox;
  private final JdbcWebhookEndpoints endpoints;
  private final JdbcDeliveries deliveries;
  private final AccountSecrets accountSecrets;
  private final Clock clock;

  public FanOut(
      IdempotentConsumer inbox,
      JdbcWebhookEndpoints endpoints,
      JdbcDeliveries deliveries,
      AccountSecrets accountSecrets,
      Clock clock) {
    this.inbox = inbox;
    this.endpoints = endpoints;
    this.deliveries = deliveries;
    this.accountSecrets = accountSecrets;
    this.clock = clock;
  }

  /**
   * @return how many deliveries were created (0 for a duplicate or an event nobody receives)
   */
  public int apply(Connection connection, Envelope envelope) throws SQLException {
    int[] created = {0};
    inbox.apply(
        connection,
        CONSUMER,
        envelope.messageId(),
        tx -> {
          created[0] = fanOut(tx, envelope);
          return null;
        });
    return created[0];
  }

  private int fanOut(Connection connection, Envelope envelope) throws SQLException {
    String merchantId = envelope.attribute(Envelope.ATTRIBUTE_MERCHANT_ID);
    JsonNode event;
    try {
      event = Json.tree(envelope.payload());
    } catch (RuntimeException e) {
      log.error("event {} is not JSON; nothing delivered", envelope.messageId());
      return 0;
    }
    String eventId = event.path("id").asText(null);
    String environment = event.path("environment").asText(null);
    String type = envelope.type();
    if (merchantId == null || eventId == null || environment == null) {
      log.error(
          "event {} lacks its merchant, id or environment; nothing delivered",
          envelope.messageId());
      return 0;
    }
    List<String> receiving = endpoints.receiving(connection, merchantId, environment, type);
    String override = overrideUrl(envelope);
    if (receiving.isEmpty() && override == null) {
      return 0;
    }
    Instant now = clock.instant();
    deliveries.insertEvent(
        connection, eventId, merchantId, environment, type, envelope.payload(), now);
    for (String endpointId : receiving) {
      deliveries.insertForEndpoint(
          connection, merchantId, environment, endpointId, eventId, type, now);
    }
    if (override != null) {
      // Signed with the account-level secret; create it if the merchant has none yet.
      accountSecrets.ensure(connection, merchantId, environment);
      deliveries.insertForOverride(
          connection, merchantId, environment, override, target(override), eventId, type, now);
    }
    deliveries.notifySchedulers(connection);
    return receiving.size() + (override == null ? 0 : 1);
  }

  private static String overrideUrl(Envelope envelope) {
    String url = envelope.attribute(ATTRIBUTE_WEBHOOK_URL);
    if (url == null || url.isBlank()) {
      return null;
    }
    try {
      URI uri = new URI(url);
      if (uri.getHost() != null
          && uri.getScheme() != null
          && uri.getScheme().matches("(?i)https?")) {
        return url;
      }
    } catch (java.net.URISyntaxException e) {
      // fall through
    }
    log.warn("event {} has an unusable webhook_url; override not delivered", envelope.messageId());
    return null;
  }

  /** Overrides are isolated per receiving host: {@code url:<host>:<port>}. */
  static String target(String url) {
    URI uri = URI.create(url);
    int port =
        uri.getPort() >= 0 ? uri.getPort() : uri.getScheme().equalsIgnoreCase("https") ? 443 : 80;
    return "url:" + uri.getHost().toLowerCase(java.util.Locale.ROOT) + ":" + port;
  }
}
