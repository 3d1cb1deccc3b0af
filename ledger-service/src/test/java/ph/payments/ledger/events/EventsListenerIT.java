package ph.payments.ledger.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import ph.payments.contracts.Envelope;
import ph.payments.contracts.Topics;
import ph.payments.ledger.support.Events;
import ph.payments.ledger.support.LedgerTest;
import ph.payments.platform.ids.IdType;
import ph.payments.platform.kafka.KafkaEnvelopes;
import ph.payments.platform.kafka.KafkaSettings;
import ph.payments.testkit.TestKafka;

/**
 * The ledger consuming the event topic from a real broker, read back over HTTP as the gateway reads
 * it; with the time from publishing a {@code payment.succeeded} to seeing it in the balance.
 */
@MicronautTest(transactional = false)
class EventsListenerIT extends LedgerTest {

  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private KafkaProducer<String, byte[]> producer;

  @Override
  protected Map<String, String> extraProperties() {
    TestKafka.createTopics(3, Topics.ALL.toArray(String[]::new));
    return Map.of(
        "ledger.events.enabled",
        "true",
        "ledger.events.group-id",
        "ledger-it-" + IdType.MESSAGE.generate());
  }

  @BeforeAll
  void producer() {
    producer =
        new KafkaProducer<>(KafkaSettings.producer(TestKafka.bootstrapServers(), "ledger-it"));
  }

  @AfterAll
  void closeProducer() {
    producer.close();
  }

  @Test
  void aSucceededPaymentShowsInTheBalanceAsItsNetAmountQuickly() throws Exception {
    String merchant = Events.merchant();
    // The first record pays for the consumer group's join; measure after it.
    publish(Events.paymentSucceeded(merchant, "test", Events.payment(), "1.00", "0.00"));
    awaitAvailable(merchant, "test", new BigDecimal("1.00"));

    int payments = 200;
    List<Long> visible = new ArrayList<>();
    List<Long> posted = new ArrayList<>();
    BigDecimal expected = new BigDecimal("1.00");
    for (int i = 0; i < payments; i++) {
      expected = expected.add(new BigDecimal("97.50"));
      String payment = Events.payment();
      Instant publishedAt = Instant.now();
      long started = System.nanoTime();
      publish(Events.paymentSucceeded(merchant, "test", payment, "100.00", "2.50"));
      awaitAvailable(merchant, "test", expected);
      visible.add((System.nanoTime() - started) / 1_000);
      Timestamp recorded =
          query("SELECT recorded_at FROM journal_transactions WHERE reference = ?", payment);
      posted.add(Duration.between(publishedAt, recorded.toInstant()).toNanos() / 1_000);
    }
    System.out.printf(
        "EventsListenerIT: %d payment.succeeded events, one at a time:%n"
            + "  published -> posted in the journal:            %s%n"
            + "  published -> visible in GET /internal/balances: %s%n",
        payments, percentiles(posted), percentiles(visible));
    assertEquals(
        "{\"object\":\"balance\",\"environment\":\"test\",\"currency\":\"PHP\",\"available\":19501.00}",
        get("/internal/balances?currency=PHP", merchant, "test").body());
  }

  @Test
  void aRecordDeliveredTwicePostsOnceAndTestAndLiveStayApart() throws Exception {
    String merchant = Events.merchant();
    Envelope test = Events.paymentSucceeded(merchant, "test", Events.payment(), "500.00", "12.50");
    Envelope live = Events.paymentSucceeded(merchant, "live", Events.payment(), "80.00", "0.00");
    publish(test);
    publish(test);
    publish(live);
    publish(Events.asNewMessage(live));
    awaitAvailable(merchant, "live", new BigDecimal("80.00"));
    awaitAvailable(merchant, "test", new BigDecimal("487.50"));
    // Give a double posting every chance to show.
    Envelope marker = Events.paymentSucceeded(merchant, "test", Events.payment(), "0.50", "0.00");
    publish(marker);
    awaitAvailable(merchant, "test", new BigDecimal("488.00"));
    assertEquals(
        "{\"object\":\"balance_list\",\"environment\":\"live\",\"available\":{\"PHP\":80.00}}",
        get("/internal/balances", merchant, "live").body());
  }

  @Test
  void aRecordThatIsNotAnEventIsParkedAndDoesNotStallItsPartition() throws Exception {
    String merchant = Events.merchant();
    String payment = Events.payment();
    producer.send(new ProducerRecord<>(Topics.EVENTS, payment, "not json".getBytes())).get();
    publish(Events.paymentSucceeded(merchant, "test", payment, "20.00", "0.00")); // same key
    awaitAvailable(merchant, "test", new BigDecimal("20.00"));
    assertEquals(
        1,
        count(
            "SELECT count(*) FROM ledger_anomalies WHERE message_key = ? AND message_type = ?",
            payment,
            "unreadable"));
  }

  private static String percentiles(List<Long> micros) {
    List<Long> sorted = new ArrayList<>(micros);
    Collections.sort(sorted);
    int n = sorted.size();
    return String.format(
        "p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms",
        sorted.get(n / 2) / 1000.0,
        sorted.get(n * 90 / 100) / 1000.0,
        sorted.get(n * 99 / 100) / 1000.0,
        sorted.get(n - 1) / 1000.0);
  }

  private void publish(Envelope envelope) throws Exception {
    producer.send(KafkaEnvelopes.toRecord(Topics.EVENTS, envelope)).get();
  }

  private void awaitAvailable(String merchant, String environment, BigDecimal expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + PATIENCE.toNanos();
    BigDecimal seen = null;
    while (System.nanoTime() < deadline) {
      Response response = get("/internal/balances?currency=PHP", merchant, environment);
      seen = response.json().get("available").decimalValue();
      if (seen.compareTo(expected) == 0) {
        return;
      }
      assertTrue(seen.compareTo(expected) < 0, () -> "overshot: " + response.body());
      Thread.sleep(1);
    }
    throw new AssertionError("available stayed " + seen + ", expected " + expected);
  }
}
