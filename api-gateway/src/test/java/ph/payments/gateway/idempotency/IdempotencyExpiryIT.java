package ph.payments.gateway.idempotency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import ph.payments.gateway.support.Http;
import ph.payments.gateway.support.MovableClock;
import ph.payments.gateway.support.Operator;
import ph.payments.gateway.testwidgets.WidgetGatewayTest;

/**
 * The 24-hour idempotency window (SPEC part 8), with a clock the test moves forward: an older
 * record no longer holds its key, and the purge job deletes it.
 */
@MicronautTest(transactional = false)
class IdempotencyExpiryIT extends WidgetGatewayTest {

  private static final String BODY = "{\"amount\":10.00,\"description\":\"Old widget\"}";

  @Inject MovableClock clock;
  @Inject IdempotencyPurge purge;

  @Factory
  @Requires(property = "spec.name", value = "IdempotencyExpiryIT")
  static class Clocks {
    @Singleton
    MovableClock clock() {
      return new MovableClock();
    }
  }

  @Override
  protected Map<String, String> widgetProperties() {
    return Map.of("spec.name", "IdempotencyExpiryIT");
  }

  @Test
  void aRecordOlderThan24HoursNoLongerHoldsItsKey() {
    Operator.Merchant merchant = operator().createMerchant("Forgetful Store");
    String key = "expiring-" + System.nanoTime();
    Http.Response first = createWidget(merchant.testSecret(), BODY, key);
    assertEquals(201, first.status(), first.body());

    clock.advance(Duration.ofHours(23).plusMinutes(59));
    Http.Response withinWindow = createWidget(merchant.testSecret(), BODY, key);
    assertEquals(first.body(), withinWindow.body());
    assertEquals("true", withinWindow.header("Idempotent-Replayed").orElse(null));
    Http.Response otherBody =
        createWidget(merchant.testSecret(), BODY.replace("10.00", "11.00"), key);
    assertEquals(409, otherBody.status(), "still held within 24 hours");

    clock.advance(Duration.ofMinutes(2));
    long commandsBefore = commands();
    Http.Response afterWindow = createWidget(merchant.testSecret(), BODY, key);
    assertEquals(201, afterWindow.status(), afterWindow.body());
    assertTrue(afterWindow.header("Idempotent-Replayed").isEmpty(), "a new request, not a replay");
    assertNotEquals(first.json().get("id"), afterWindow.json().get("id"));
    assertEquals(commandsBefore + 1, commands());

    // The key now belongs to the new request.
    Http.Response replay = createWidget(merchant.testSecret(), BODY, key);
    assertEquals(afterWindow.body(), replay.body());
    assertEquals(
        1, sql().number("SELECT count(*) FROM idempotency_keys WHERE idempotency_key = ?", key));
  }

  @Test
  void thePurgeJobDeletesRecordsOlderThan24Hours() {
    Operator.Merchant merchant = operator().createMerchant("Tidy Store");
    String old = "old-" + System.nanoTime();
    assertEquals(201, createWidget(merchant.testSecret(), BODY, old).status());

    clock.advance(Duration.ofHours(24).plusSeconds(1));
    String fresh = "fresh-" + System.nanoTime();
    assertEquals(201, createWidget(merchant.testSecret(), BODY, fresh).status());

    assertTrue(purge.purge() >= 1);
    assertEquals(
        0, sql().number("SELECT count(*) FROM idempotency_keys WHERE idempotency_key = ?", old));
    assertEquals(
        1, sql().number("SELECT count(*) FROM idempotency_keys WHERE idempotency_key = ?", fresh));
    assertEquals(0, purge.purge(), "nothing younger than 24 hours is purged");
  }
}
