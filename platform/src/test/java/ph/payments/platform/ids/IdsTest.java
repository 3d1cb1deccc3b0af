package ph.payments.platform.ids;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class IdsTest {

  @Test
  void idsSortInCreationOrderWithinAndAcrossMilliseconds() throws InterruptedException {
    List<String> generated = new ArrayList<>();
    for (int round = 0; round < 5; round++) {
      for (int i = 0; i < 20_000; i++) {
        generated.add(IdType.PAYMENT.generate());
      }
      Thread.sleep(2);
    }
    List<String> sorted = new ArrayList<>(generated);
    sorted.sort(String::compareTo);
    assertEquals(generated, sorted);
    assertEquals(generated.size(), new HashSet<>(generated).size(), "ids are unique");
  }

  @Test
  void idsFromDifferentMillisecondsSortByTime() throws InterruptedException {
    String earlier = IdType.REFUND.generate();
    Thread.sleep(3);
    String later = IdType.REFUND.generate();
    assertTrue(earlier.compareTo(later) < 0);
  }

  @Test
  void generatedIdsCarryTheirPrefixAndParse() {
    for (IdType type : IdType.values()) {
      if (type == IdType.EVENT) {
        continue;
      }
      String id = type.generate();
      assertTrue(id.startsWith(type.prefix() + "_"), id);
      assertEquals(id, type.parse(id));
    }
  }

  @Test
  void parsingRejectsAWrongPrefix() {
    String payment = IdType.PAYMENT.generate();
    assertThrows(InvalidIdException.class, () -> IdType.REFUND.parse(payment));
    assertThrows(InvalidIdException.class, () -> new RefundId(payment));
    String refundLooking = "re_" + payment.substring(4);
    assertThrows(InvalidIdException.class, () -> IdType.PAYMENT.parse(refundLooking));
  }

  @Test
  void parsingRejectsMalformedBodies() {
    String good = IdType.PAYMENT.generate();
    assertThrows(InvalidIdException.class, () -> IdType.PAYMENT.parse(good + "0"));
    assertThrows(InvalidIdException.class, () -> IdType.PAYMENT.parse(good.substring(0, 29)));
    assertThrows(InvalidIdException.class, () -> IdType.PAYMENT.parse(good.toUpperCase()));
    assertThrows(InvalidIdException.class, () -> IdType.PAYMENT.parse("pay-" + good.substring(4)));
    // 'u' is not in Crockford's alphabet.
    assertThrows(InvalidIdException.class, () -> IdType.PAYMENT.parse("pay_" + "u".repeat(26)));
    assertThrows(InvalidIdException.class, () -> IdType.PAYMENT.parse(null));
    assertThrows(InvalidIdException.class, () -> IdType.PAYMENT.parse(""));
    assertFalse(IdType.PAYMENT.matches("pay_"));
  }

  @Test
  void typedIdsKeepTheirValue() {
    PaymentId id = PaymentId.generate();
    assertEquals(id, new PaymentId(id.value()));
    assertEquals(id.value(), id.toString());
  }

  @Test
  void eventIdsSortByTransactionThenSequenceAndRoundTrip() {
    long[][] positions = {
      {0, 0},
      {0, 1},
      {0, 32},
      {1, 0},
      {1, 5},
      {31, 0},
      {32, 0},
      {1_000_000, 7},
      {Long.MAX_VALUE - 1, 0},
      {Long.MAX_VALUE, Long.MAX_VALUE}
    };
    String previous = null;
    for (long[] position : positions) {
      EventId id = EventId.of(position[0], position[1]);
      assertEquals(position[0], id.transactionId());
      assertEquals(position[1], id.sequence());
      assertTrue(id.value().startsWith("evt_"));
      if (previous != null) {
        assertTrue(previous.compareTo(id.value()) < 0, previous + " < " + id.value());
      }
      previous = id.value();
    }
    assertThrows(IllegalStateException.class, IdType.EVENT::generate);
    assertThrows(InvalidIdException.class, () -> new EventId(IdType.PAYMENT.generate()));
    assertThrows(
        IllegalArgumentException.class, () -> IdType.eventSequence("evt_" + "z".repeat(26)));
  }
}
