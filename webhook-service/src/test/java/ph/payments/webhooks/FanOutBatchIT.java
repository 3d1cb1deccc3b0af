package ph.payments.webhooks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.Envelope;
import ph.payments.testkit.CountingConnection;
import ph.payments.webhooks.deliveries.Reservations;
import ph.payments.webhooks.events.FanOut;
import ph.payments.webhooks.support.Events;
import ph.payments.webhooks.support.Receiver;
import ph.payments.webhooks.support.WebhookServiceTest;

/**
 * A poll's fan-out is set-based: its events become their deliveries in a fixed number of statements
 * whatever the poll's size, and what a poll repeats (a message redelivered within it, an event
 * under a second message id, an event consumed by an earlier poll) creates nothing twice. Called as
 * the event consumer calls it, on the consumer's own transactions, with no slots free, so every
 * delivery waits for a claim.
 */
@MicronautTest(transactional = false)
class FanOutBatchIT extends WebhookServiceTest {

  @Inject FanOut fanOut;

  @Override
  protected Map<String, String> extraProperties() {
    return Map.of("webhooks.allow-private-targets", "true");
  }

  @Test
  void aPollOfAnySizeTakesTheSameStatements() throws Exception {
    try (Receiver receiver = Receiver.start((i, r) -> Receiver.Response.status(200))) {
      String merchant = merchant();
      createEndpoint(merchant, "test", receiver.url());
      createEndpoint(merchant, "test", receiver.url() + "/second");

      int one = statementsFor(merchant, 1);
      int many = statementsFor(merchant, 200);

      assertEquals(one, many, "statements for a poll of 200 events against a poll of 1");
    }
  }

  @Test
  void whatAPollRepeatsIsCreatedOnce() throws Exception {
    try (Receiver receiver = Receiver.start((i, r) -> Receiver.Response.status(200))) {
      String merchant = merchant();
      createEndpoint(merchant, "test", receiver.url());
      createEndpoint(merchant, "test", receiver.url() + "/second");
      Events.Event consumedBefore = Events.payment("payment.succeeded", "test");
      FanOut.Created before = fanOut(List.of(envelope(merchant, consumedBefore, null)));
      assertEquals(new FanOut.Created(2, 2), before);

      Events.Event plain = Events.payment("payment.succeeded", "test");
      Events.Event overridden = Events.payment("payment.succeeded", "test");
      Envelope plainOnce = envelope(merchant, plain, null);
      Envelope sameFactNewMessage =
          new Envelope(
              "msg_again_" + plain.id(),
              plain.type(),
              plain.paymentId(),
              Instant.now(),
              plain.body(),
              plainOnce.attributes());
      FanOut.Created created =
          fanOut(
              List.of(
                  plainOnce,
                  plainOnce, // redelivered within the poll
                  sameFactNewMessage,
                  envelope(merchant, consumedBefore, null), // consumed by the earlier poll
                  envelope(merchant, overridden, receiver.url() + "/override")));

      // plain: one per endpoint; overridden: one per endpoint and its override; nothing else.
      assertEquals(new FanOut.Created(5, 5), created);
      assertEquals(
          Map.of(plain.id(), 2, overridden.id(), 3, consumedBefore.id(), 2),
          deliveriesByEvent(merchant));
      assertEquals(3, count("SELECT count(*) FROM webhook_events WHERE merchant_id = ?", merchant));
    }
  }

  /** The statements the fan-out of {@code events} new events prepares. */
  private int statementsFor(String merchant, int events) throws Exception {
    List<Envelope> poll = new ArrayList<>();
    for (int i = 0; i < events; i++) {
      poll.add(envelope(merchant, Events.payment("payment.succeeded", "test"), null));
    }
    AtomicInteger statements = new AtomicInteger();
    FanOut.Created created =
        transactions.inTransaction(
            c ->
                fanOut.applyAll(
                    CountingConnection.wrap(c, statements), incoming(poll), new FanOut.Reads()));
    assertEquals(new FanOut.Created(2 * events, 2 * events), created);
    return statements.get();
  }

  private FanOut.Created fanOut(List<Envelope> poll) {
    return transactions.inTransaction(c -> fanOut.applyAll(c, incoming(poll), new FanOut.Reads()));
  }

  private static List<FanOut.Incoming> incoming(List<Envelope> poll) {
    return poll.stream().map(e -> FanOut.Incoming.current(e, new Reservations(null))).toList();
  }

  private static Envelope envelope(String merchant, Events.Event event, String webhookUrl) {
    Map<String, String> attributes = new HashMap<>();
    attributes.put(Envelope.ATTRIBUTE_MERCHANT_ID, merchant);
    if (webhookUrl != null) {
      attributes.put(Envelope.ATTRIBUTE_WEBHOOK_URL, webhookUrl);
    }
    return new Envelope(
        event.id(), event.type(), event.paymentId(), Instant.now(), event.body(), attributes);
  }

  private Map<String, Integer> deliveriesByEvent(String merchant) {
    return transactions.inTransaction(
        c -> {
          Map<String, Integer> byEvent = new HashMap<>();
          try (PreparedStatement select =
              c.prepareStatement(
                  "SELECT event_id, count(*) FROM webhook_deliveries WHERE merchant_id = ?"
                      + " GROUP BY event_id")) {
            select.setString(1, merchant);
            try (ResultSet rs = select.executeQuery()) {
              while (rs.next()) {
                byEvent.put(rs.getString(1), rs.getInt(2));
              }
            }
          }
          return byEvent;
        });
  }

  private int count(String sql, String merchant) {
    return transactions.inTransaction(
        c -> {
          try (PreparedStatement select = c.prepareStatement(sql)) {
            select.setString(1, merchant);
            try (ResultSet rs = select.executeQuery()) {
              rs.next();
              return rs.getInt(1);
            }
          }
        });
  }
}
