package ph.payments.webhooks.events;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Singleton;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ph.payments.contracts.Envelope;
import ph.payments.platform.inbox.IdempotentConsumer;
import ph.payments.platform.json.Json;
import ph.payments.platform.tracing.MessageContext;
import ph.payments.platform.tracing.RequestIds;
import ph.payments.platform.tracing.Tracing;
import ph.payments.webhooks.deliveries.DeliveryAttempts;
import ph.payments.webhooks.deliveries.DeliveryStatus;
import ph.payments.webhooks.deliveries.JdbcDeliveries;
import ph.payments.webhooks.deliveries.Reservations;
import ph.payments.webhooks.endpoints.JdbcWebhookEndpoints;
import ph.payments.webhooks.signing.AccountSecrets;

/**
 * Turns one event of the event topic into deliveries, in the transaction that records the event as
 * consumed: one per enabled endpoint of the merchant environment that receives its type, plus one
 * to the payment's {@code webhook_url} override when the event carries it (attribute {@value
 * #ATTRIBUTE_WEBHOOK_URL}). The same event delivered twice by Kafka creates its deliveries once.
 *
 * <p><b>Hand-off.</b> A delivery whose target has a free slot in this instance's scheduler is
 * leased to this instance as it is created and its attempt prepared in the same transaction ({@link
 * Reservations}); the caller starts it once the transaction commits, with no claim. The others are
 * due now and wait for a claim, by this instance or another, which the transaction notifies.
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
  private final DeliveryAttempts attempts;
  private final Clock clock;

  public FanOut(
      IdempotentConsumer inbox,
      JdbcWebhookEndpoints endpoints,
      JdbcDeliveries deliveries,
      AccountSecrets accountSecrets,
      DeliveryAttempts attempts,
      Clock clock) {
    this.inbox = inbox;
    this.endpoints = endpoints;
    this.deliveries = deliveries;
    this.accountSecrets = accountSecrets;
    this.attempts = attempts;
    this.clock = clock;
  }

  /**
   * What one event became.
   *
   * @param created deliveries created (0 for a duplicate or an event nobody receives)
   * @param waiting of those, the ones not handed off: due now, waiting for a claim
   */
  public record Created(int created, int waiting) {
    static final Created NONE = new Created(0, 0);
  }

  /**
   * What the fan-out of one poll's events reads once and uses for every event of the poll: the
   * endpoints that receive a merchant environment's event type, and each endpoint with its signing
   * keys (for the attempts handed off). Its events were published within the poll; an endpoint
   * created, changed or disabled while they are fanned out takes effect from the next poll, as it
   * would for events a moment older.
   */
  public static final class Reads {
    private record Receivers(String merchantId, String environment, String eventType) {}

    private final Map<Receivers, List<String>> receiving = new HashMap<>();
    private final DeliveryAttempts.Lookups endpoints = new DeliveryAttempts.Lookups();
  }

  /**
   * Creates the event's deliveries, handing off to this instance those that get a slot from {@code
   * slots}: they are leased and prepared in the caller's transaction, and {@code slots} holds their
   * attempts for the caller to start once that transaction committed ({@link
   * Reservations#committed}), or to drop if it did not ({@link Reservations#rolledBack}).
   *
   * @param reads what this poll's fan-out has read so far
   */
  public Created apply(Connection connection, Envelope envelope, Reservations slots, Reads reads)
      throws SQLException {
    Created[] created = {Created.NONE};
    inbox.apply(
        connection,
        CONSUMER,
        envelope.messageId(),
        tx -> {
          created[0] = fanOut(tx, envelope, slots, reads);
          return null;
        });
    return created[0];
  }

  private Created fanOut(Connection connection, Envelope envelope, Reservations slots, Reads reads)
      throws SQLException {
    String merchantId = envelope.attribute(Envelope.ATTRIBUTE_MERCHANT_ID);
    JsonNode event;
    try {
      event = Json.tree(envelope.payload());
    } catch (RuntimeException e) {
      log.error("event {} is not JSON; nothing delivered", envelope.messageId());
      return Created.NONE;
    }
    String eventId = event.path("id").asText(null);
    String environment = event.path("environment").asText(null);
    String type = envelope.type();
    if (merchantId == null || eventId == null || environment == null) {
      log.error(
          "event {} lacks its merchant, id or environment; nothing delivered",
          envelope.messageId());
      return Created.NONE;
    }
    Reads.Receivers key = new Reads.Receivers(merchantId, environment, type);
    List<String> receiving = reads.receiving.get(key);
    if (receiving == null) {
      receiving = endpoints.receiving(connection, merchantId, environment, type);
      reads.receiving.put(key, receiving);
    }
    String override = overrideUrl(envelope);
    if (receiving.isEmpty() && override == null) {
      return Created.NONE;
    }
    Instant now = clock.instant();
    deliveries.insertEvent(
        connection, eventId, merchantId, environment, type, envelope.payload(), now);
    HandOff handOff =
        new HandOff(
            slots,
            ThreadLocalRandom.current().nextLong(),
            merchantId,
            environment,
            eventId,
            type,
            envelope.payload());
    int waiting = 0;
    for (String endpointId : receiving) {
      waiting +=
          handOff.create(
              endpointId,
              endpointId,
              null,
              lease ->
                  deliveries.insertForEndpoint(
                      connection, merchantId, environment, endpointId, eventId, type, now, lease));
    }
    if (override != null) {
      // Signed with the account-level secret; create it if the merchant has none yet.
      accountSecrets.ensure(connection, merchantId, environment);
      String target = target(override);
      waiting +=
          handOff.create(
              target,
              null,
              override,
              lease ->
                  deliveries.insertForOverride(
                      connection,
                      merchantId,
                      environment,
                      override,
                      target,
                      eventId,
                      type,
                      now,
                      lease));
    }
    if (!handOff.claims.isEmpty()) {
      // A delivery that cannot be prepared (a secret that does not decrypt) stays leased and comes
      // back to a claim when its lease ends, as a claimed one does; its slot is given back.
      attempts
          .prepare(connection, handOff.claims, handOff.works, reads.endpoints)
          .forEach(slots::prepared);
    }
    if (waiting > 0) {
      deliveries.notifySchedulers(connection);
    }
    return new Created(receiving.size() + (override == null ? 0 : 1), waiting);
  }

  /** Inserts one delivery, leased with the token given or (null) due now for a claim. */
  @FunctionalInterface
  private interface Insert {
    Optional<Long> insert(Long leaseToken) throws SQLException;
  }

  /**
   * The deliveries of one event handed off to this instance: their claims (one lease token for
   * all), and the work of each as it was just written, so that preparing their attempts reads none
   * of it back.
   */
  private static final class HandOff {
    private final Reservations slots;
    private final long leaseToken;
    private final String merchantId;
    private final String environment;
    private final String eventId;
    private final String eventType;
    private final byte[] body;
    private final Map<String, String> context = MessageContext.withCurrent(Map.of());
    private final List<JdbcDeliveries.Claim> claims = new ArrayList<>();
    private final Map<Long, JdbcDeliveries.Work> works = new HashMap<>();

    HandOff(
        Reservations slots,
        long leaseToken,
        String merchantId,
        String environment,
        String eventId,
        String eventType,
        byte[] body) {
      this.slots = slots;
      this.leaseToken = leaseToken;
      this.merchantId = merchantId;
      this.environment = environment;
      this.eventId = eventId;
      this.eventType = eventType;
      this.body = body;
    }

    /**
     * Creates a delivery to {@code target}: handed off (leased, and its claim and work noted) when
     * a slot is free for it, else due now for a claim. None when it existed already.
     *
     * @return 1 when a delivery was created that waits for a claim
     */
    int create(String target, String endpointId, String overrideUrl, Insert insert)
        throws SQLException {
      boolean reserved = slots.reserve(target);
      Optional<Long> id = insert.insert(reserved ? leaseToken : null);
      if (!reserved) {
        return id.isPresent() ? 1 : 0;
      }
      if (id.isEmpty()) {
        slots.giveBack(target);
        return 0;
      }
      claims.add(new JdbcDeliveries.Claim(id.get(), target, leaseToken));
      works.put(
          id.get(),
          new JdbcDeliveries.Work(
              id.get(),
              merchantId,
              environment,
              endpointId,
              overrideUrl,
              eventId,
              eventType,
              body,
              DeliveryStatus.PENDING,
              leaseToken,
              context.get(Tracing.TRACEPARENT),
              context.get(RequestIds.ATTRIBUTE)));
      return 0;
    }
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
