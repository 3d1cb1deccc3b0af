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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * Turns the events of the event topic into deliveries, a poll's events at once in the transaction
 * that records them as consumed: for each event one delivery per enabled endpoint of the merchant
 * environment that receives its type, plus one to the payment's {@code webhook_url} override when
 * the event carries it (attribute {@value #ATTRIBUTE_WEBHOOK_URL}). The same event delivered twice
 * by Kafka creates its deliveries once.
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
   * What a poll's events became.
   *
   * @param created deliveries created (none for duplicates and events nobody receives)
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
   * One event of a poll as its consumer read it: the envelope, the slots its deliveries may take
   * ({@link Reservations}, one per record so that each record's hand-offs start when the
   * transaction that holds it commits) and the trace context and request id it arrived with.
   */
  public record Incoming(Envelope envelope, Reservations slots, Map<String, String> context) {

    /** The event as read inside its record's consumer span, which its context is taken from. */
    public static Incoming current(Envelope envelope, Reservations slots) {
      return new Incoming(envelope, slots, MessageContext.withCurrent(Map.of()));
    }
  }

  /**
   * Creates the deliveries of a poll's events in the caller's transaction, in a fixed number of
   * statements whatever the poll's size: the inbox rows, the events, and the deliveries each in
   * one. An event consumed before (or twice in the poll) creates nothing; two events of one id
   * create one delivery per receiver.
   *
   * <p>A delivery whose target gets a slot from its event's {@link Incoming#slots} is handed off:
   * leased and prepared in the caller's transaction, its attempt held by those slots for the caller
   * to start once that transaction committed ({@link Reservations#committed}), or to drop if it did
   * not ({@link Reservations#rolledBack}).
   *
   * @param reads what this poll's fan-out has read so far
   */
  public Created applyAll(Connection connection, List<Incoming> events, Reads reads)
      throws SQLException {
    Set<String> fresh =
        inbox.recordAll(
            connection, CONSUMER, events.stream().map(e -> e.envelope().messageId()).toList());
    Instant now = clock.instant();
    Batch batch = new Batch();
    for (Incoming incoming : events) {
      if (fresh.remove(incoming.envelope().messageId())) {
        plan(connection, incoming, reads, batch);
      }
    }
    if (batch.deliveries.isEmpty()) {
      return Created.NONE;
    }
    deliveries.insertEvents(connection, batch.events, now);
    List<Long> ids = deliveries.insertDeliveries(connection, batch.deliveries, now);
    List<JdbcDeliveries.Claim> claims = new ArrayList<>();
    Map<Long, JdbcDeliveries.Work> works = new HashMap<>();
    Map<Long, Reservations> slotsOf = new HashMap<>();
    int created = 0;
    int waiting = 0;
    for (int i = 0; i < ids.size(); i++) {
      Long id = ids.get(i);
      JdbcDeliveries.NewDelivery delivery = batch.deliveries.get(i);
      Planned planned = batch.planned.get(i);
      if (id == null) {
        if (delivery.leaseToken() != null) {
          planned.incoming().slots().giveBack(delivery.target()); // it existed: nothing to lease
        }
        continue;
      }
      created++;
      if (delivery.leaseToken() == null) {
        waiting++;
        continue;
      }
      claims.add(new JdbcDeliveries.Claim(id, delivery.target(), delivery.leaseToken()));
      works.put(id, planned.work(id, delivery));
      slotsOf.put(id, planned.incoming().slots());
    }
    if (!claims.isEmpty()) {
      // A delivery that cannot be prepared (a secret that does not decrypt) stays leased and comes
      // back to a claim when its lease ends, as a claimed one does; its slot is given back.
      for (DeliveryAttempts.Prepared prepared :
          attempts.prepare(connection, claims, works, reads.endpoints)) {
        slotsOf.get(prepared.claim().id()).prepared(prepared);
      }
    }
    if (waiting > 0) {
      deliveries.notifySchedulers(connection);
    }
    return new Created(created, waiting);
  }

  /** What a poll's events become: its events to store and its deliveries, in poll order. */
  private static final class Batch {
    private final List<JdbcDeliveries.NewEvent> events = new ArrayList<>();
    private final Set<String> eventIds = new HashSet<>();
    private final List<JdbcDeliveries.NewDelivery> deliveries = new ArrayList<>();

    /** The event of each delivery, at the delivery's position. */
    private final List<Planned> planned = new ArrayList<>();

    private final Set<JdbcDeliveries.Unique> unique = new HashSet<>();

    void add(Planned event, JdbcDeliveries.NewDelivery delivery) {
      deliveries.add(delivery);
      planned.add(event);
    }
  }

  /** An event of the poll that has receivers, as stored. */
  private record Planned(Incoming incoming, JdbcDeliveries.NewEvent event) {

    /** A handed-off delivery's work as it is being written, so preparing it reads none back. */
    JdbcDeliveries.Work work(long id, JdbcDeliveries.NewDelivery delivery) {
      return new JdbcDeliveries.Work(
          id,
          event.merchantId(),
          event.environment(),
          delivery.endpointId(),
          delivery.overrideUrl(),
          event.id(),
          event.type(),
          event.body(),
          DeliveryStatus.PENDING,
          delivery.leaseToken(),
          event.traceparent(),
          event.requestId());
    }
  }

  /**
   * Adds the event and its deliveries to the batch: one per receiving endpoint and one to the
   * override, each taking a slot when one is free (then leased under one token for the event).
   */
  private void plan(Connection connection, Incoming incoming, Reads reads, Batch batch)
      throws SQLException {
    Envelope envelope = incoming.envelope();
    String merchantId = envelope.attribute(Envelope.ATTRIBUTE_MERCHANT_ID);
    JsonNode event;
    try {
      event = Json.tree(envelope.payload());
    } catch (RuntimeException e) {
      log.error("event {} is not JSON; nothing delivered", envelope.messageId());
      return;
    }
    String eventId = event.path("id").asText(null);
    String environment = event.path("environment").asText(null);
    String type = envelope.type();
    if (merchantId == null || eventId == null || environment == null) {
      log.error(
          "event {} lacks its merchant, id or environment; nothing delivered",
          envelope.messageId());
      return;
    }
    Reads.Receivers key = new Reads.Receivers(merchantId, environment, type);
    List<String> receiving = reads.receiving.get(key);
    if (receiving == null) {
      receiving = endpoints.receiving(connection, merchantId, environment, type);
      reads.receiving.put(key, receiving);
    }
    String override = overrideUrl(envelope);
    if (receiving.isEmpty() && override == null) {
      return;
    }
    JdbcDeliveries.NewEvent stored =
        new JdbcDeliveries.NewEvent(
            eventId,
            merchantId,
            environment,
            type,
            envelope.payload(),
            incoming.context().get(Tracing.TRACEPARENT),
            incoming.context().get(RequestIds.ATTRIBUTE));
    if (batch.eventIds.add(eventId)) {
      batch.events.add(stored);
    }
    Planned planned = new Planned(incoming, stored);
    long leaseToken = ThreadLocalRandom.current().nextLong();
    for (String endpointId : receiving) {
      if (batch.unique.add(new JdbcDeliveries.Unique(endpointId, eventId))) {
        batch.add(
            planned,
            new JdbcDeliveries.NewDelivery(
                merchantId,
                environment,
                endpointId,
                null,
                endpointId,
                eventId,
                type,
                lease(incoming, endpointId, leaseToken)));
      }
    }
    if (override != null && batch.unique.add(new JdbcDeliveries.Unique(null, eventId))) {
      // Signed with the account-level secret; create it if the merchant has none yet.
      accountSecrets.ensure(connection, merchantId, environment);
      String target = target(override);
      batch.add(
          planned,
          new JdbcDeliveries.NewDelivery(
              merchantId,
              environment,
              null,
              override,
              target,
              eventId,
              type,
              lease(incoming, target, leaseToken)));
    }
  }

  /** The event's lease token when its target has a slot free (now reserved), else null. */
  private static Long lease(Incoming incoming, String target, long leaseToken) {
    return incoming.slots().reserve(target) ? leaseToken : null;
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
