package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.InputStream;
import org.junit.jupiter.api.Test;

class QrCodesTest {

  /**
   * The print view of a static QR as Chromium drew it in a CI run: 29 modules in 236 px, with
   * anti-aliased edges. ZXing's detector reads it with a checksum failure; the screenshot holds the
   * code alone on white, and read from its bounds it gives the link.
   */
  @Test
  void readsACodeDrawnAtAFractionOfAPixelAModule() throws Exception {
    try (InputStream png =
        QrCodesTest.class.getResourceAsStream("/qr/print-view-anti-aliased.png")) {
      assertNotNull(png);
      assertEquals("http://localhost:34891/l/ct3HpshEOadrJIuV", QrCodes.decode(png.readAllBytes()));
    }
  }
}
