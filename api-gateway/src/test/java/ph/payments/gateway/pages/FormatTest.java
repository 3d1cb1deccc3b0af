package ph.payments.gateway.pages;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class FormatTest {

  @Test
  void pesosHaveTheSignAndGroupingOtherCurrenciesTheirCode() {
    assertEquals("₱1,500.00", Format.money(new BigDecimal("1500"), "PHP"));
    assertEquals("₱0.01", Format.money(new BigDecimal("0.01"), "PHP"));
    assertEquals("₱999,999,999,999.00", Format.money(new BigDecimal("999999999999"), "PHP"));
    assertEquals("USD 12.00", Format.money(new BigDecimal("12"), "USD"));
    assertEquals("USD 1,200.50", Format.money(new BigDecimal("1200.5"), "USD"));
  }

  @Test
  void timesAreManilaTime() {
    // 07:04 UTC is 3:04 PM in Manila (UTC+8, no daylight saving).
    long at = Instant.parse("2026-11-25T07:04:00Z").getEpochSecond();
    assertEquals("25 Nov 2026, 3:04 PM", Format.time(at));
    assertEquals(
        "1 Jan 2027, 7:59 AM", Format.time(Instant.parse("2026-12-31T23:59:00Z").getEpochSecond()));
  }

  @Test
  void daysAreManilaDays() {
    // 16:30 UTC on 30 Nov is already 1 Dec in Manila.
    assertEquals("1 Dec 2026", Format.day(Instant.parse("2026-11-30T16:30:00Z").getEpochSecond()));
    assertEquals("30 Nov 2026", Format.day(Instant.parse("2026-11-30T15:59:59Z").getEpochSecond()));
    assertEquals("31 Dec 2026", Format.day(java.time.LocalDate.parse("2026-12-31")));
  }

  @Test
  void quantitiesAreWrittenAsPeopleWriteThem() {
    var json = ph.payments.platform.json.Json.mapper();
    assertEquals("2", InvoicePages.quantity(json.valueToTree(new BigDecimal("2.000"))));
    assertEquals("1.5", InvoicePages.quantity(json.valueToTree(new BigDecimal("1.50"))));
    assertEquals("10", InvoicePages.quantity(json.valueToTree(new BigDecimal("1E+1"))));
    assertEquals("3", InvoicePages.quantity(json.valueToTree(3)));
  }

  @Test
  void onlyWebUrlsBecomeLinksAndOnlyAppSchemesBecomeAppLinks() {
    assertEquals("https://shop.example/ok", Format.webUrl("https://shop.example/ok"));
    assertEquals("http://localhost:3000/x", Format.webUrl("http://localhost:3000/x"));
    assertNull(Format.webUrl("javascript:alert(1)"));
    assertNull(Format.webUrl("JavaScript:alert(1)"));
    assertNull(Format.webUrl("data:text/html,<script>"));
    assertNull(Format.webUrl("/relative"));
    assertNull(Format.webUrl(null));
    assertEquals("ewallet1://pay?order=sbx_1", Format.appUrl("ewallet1://pay?order=sbx_1"));
    assertNull(Format.appUrl("javascript://%0aalert(1)"));
    assertNull(Format.appUrl("javascript:alert(1)"));
  }

  @Test
  void methodsHaveNamesForPeople() {
    assertEquals("QR Ph", Format.method("rail1_qr"));
    assertEquals("Card", Format.method("card"));
    assertEquals("something_new", Format.method("something_new"));
  }

  @Test
  void typedAmountsAreReadAsPeopleWriteThem() {
    assertEquals(new BigDecimal("1500.00"), LinkPages.amount("1500"));
    assertEquals(new BigDecimal("1500.00"), LinkPages.amount("1,500.00"));
    assertEquals(new BigDecimal("1500.50"), LinkPages.amount("₱ 1500.5"));
    assertNull(LinkPages.amount("0"));
    assertNull(LinkPages.amount("0.001"));
    assertNull(LinkPages.amount("-5"));
    assertNull(LinkPages.amount("1e3"));
    assertNull(LinkPages.amount("abc"));
    assertNull(LinkPages.amount("9999999999999"));
  }

  @Test
  void cardNumbersAreCheckedWithLuhn() {
    assertTrue(CheckoutPages.luhn("4242424242424242"));
    assertTrue(CheckoutPages.luhn("4000000000003220"));
    assertTrue(CheckoutPages.luhn("4000000000009995"));
    assertTrue(CheckoutPages.luhn("4000000000000002"));
    assertFalse(CheckoutPages.luhn("4242424242424241"));
  }
}
