package ph.payments.payments.products;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import ph.payments.payments.products.domain.Ean13;
import ph.payments.payments.products.domain.Skus;

/** EAN-13 check digits against published codes, generated barcodes, and SKU numbering. */
class Ean13Test {

  @Test
  void checkDigitsOfPublishedCodes() {
    // Examples from GS1 and the ISBN-13 of a book.
    assertEquals(1, Ean13.checkDigit("400638133393"));
    assertEquals(7, Ean13.checkDigit("978123456789"));
    assertEquals(7, Ean13.checkDigit("590123412345"));
    assertTrue(Ean13.valid("4006381333931"));
    assertTrue(Ean13.valid("9780306406157"));
    assertFalse(Ean13.valid("4006381333932"));
    assertFalse(Ean13.valid("400638133393"));
    assertFalse(Ean13.valid("400638133393a"));
    assertFalse(Ean13.valid(null));
  }

  @Test
  void generatedBarcodesAreValidAndRestrictedCirculation() {
    Random random = new Random(15);
    for (int i = 0; i < 10_000; i++) {
      String code = Ean13.restrictedCirculation(() -> random.nextInt(10));
      assertEquals(13, code.length());
      assertTrue(code.charAt(0) == '2', code);
      assertTrue(Ean13.valid(code), code);
    }
    assertEquals("2000000000008", Ean13.restrictedCirculation(() -> 0));
    assertThrows(IllegalArgumentException.class, () -> Ean13.restrictedCirculation(() -> 10));
  }

  @Test
  void skusHaveAtLeastFiveDigits() {
    assertEquals("SKU-00001", Skus.of(1));
    assertEquals("SKU-99999", Skus.of(99_999));
    assertEquals("SKU-100000", Skus.of(100_000));
    assertThrows(IllegalArgumentException.class, () -> Skus.of(0));
  }
}
