package ph.payments.e2e;

import com.google.zxing.BarcodeFormat;
import com.google.zxing.BinaryBitmap;
import com.google.zxing.DecodeHintType;
import com.google.zxing.NotFoundException;
import com.google.zxing.RGBLuminanceSource;
import com.google.zxing.ReaderException;
import com.google.zxing.common.HybridBinarizer;
import com.google.zxing.qrcode.QRCodeReader;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * Reads a QR code from a PNG, as a phone camera reads a printed one. ZXing cannot read SVG, so the
 * tests let the browser render the SVG and decode the browser's screenshot.
 */
final class QrCodes {

  private QrCodes() {}

  /** The text of the QR code in the PNG; fails when there is none. */
  static String decode(byte[] png) throws IOException {
    BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
    if (image == null) {
      throw new IOException("not an image ImageIO can read");
    }
    int width = image.getWidth();
    int height = image.getHeight();
    int[] pixels = image.getRGB(0, 0, width, height, null, 0, width);
    BinaryBitmap bitmap =
        new BinaryBitmap(new HybridBinarizer(new RGBLuminanceSource(width, height, pixels)));
    Map<DecodeHintType, Object> hints =
        Map.of(
            DecodeHintType.TRY_HARDER,
            Boolean.TRUE,
            DecodeHintType.POSSIBLE_FORMATS,
            List.of(BarcodeFormat.QR_CODE));
    try {
      return new QRCodeReader().decode(bitmap, hints).getText();
    } catch (ReaderException e) {
      // The detector lays its sampling grid from the finder patterns. A code drawn at a fraction of
      // a pixel a module (29 modules in 236 px) has anti-aliased edges, and for some contents the
      // grid drifts off by a module (a checksum failure) or the patterns are not found, on a code a
      // flat-bed scanner reads. The screenshot holds the code alone on white, so read it as such,
      // from its bounds.
      try {
        return new QRCodeReader().decode(bitmap, pure(hints)).getText();
      } catch (ReaderException again) {
        e.addSuppressed(again);
        throw new AssertionError(
            e instanceof NotFoundException
                ? "no QR code found in the " + width + "×" + height + " screenshot"
                : "a QR code that does not decode: " + e,
            e);
      }
    }
  }

  private static Map<DecodeHintType, Object> pure(Map<DecodeHintType, Object> hints) {
    Map<DecodeHintType, Object> pure = new EnumMap<>(hints);
    pure.put(DecodeHintType.PURE_BARCODE, Boolean.TRUE);
    return pure;
  }
}
