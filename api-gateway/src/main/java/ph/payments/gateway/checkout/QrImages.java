package ph.payments.gateway.checkout;

import com.google.zxing.BarcodeFormat;
import com.google.zxing.EncodeHintType;
import com.google.zxing.WriterException;
import com.google.zxing.client.j2se.MatrixToImageWriter;
import com.google.zxing.common.BitMatrix;
import com.google.zxing.qrcode.QRCodeWriter;
import com.google.zxing.qrcode.decoder.ErrorCorrectionLevel;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/** Renders a QR payload to PNG or SVG with ZXing (error correction M, quiet zone of 4). */
public final class QrImages {

  private static final int SIZE = 360;
  private static final Map<EncodeHintType, Object> HINTS =
      Map.of(
          EncodeHintType.ERROR_CORRECTION,
          ErrorCorrectionLevel.M,
          EncodeHintType.MARGIN,
          4,
          EncodeHintType.CHARACTER_SET,
          "UTF-8");

  public static byte[] png(String payload) {
    try (ByteArrayOutputStream out = new ByteArrayOutputStream()) {
      MatrixToImageWriter.writeToStream(matrix(payload, SIZE), "PNG", out);
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One path of unit squares over a white background; scales to any size. */
  public static String svg(String payload) {
    BitMatrix matrix = matrix(payload, 0);
    int width = matrix.getWidth();
    int height = matrix.getHeight();
    StringBuilder path = new StringBuilder();
    for (int y = 0; y < height; y++) {
      for (int x = 0; x < width; x++) {
        if (matrix.get(x, y)) {
          path.append('M').append(x).append(' ').append(y).append("h1v1h-1z");
        }
      }
    }
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "
        + width
        + " "
        + height
        + "\" shape-rendering=\"crispEdges\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>"
        + "<path fill=\"#000\" d=\""
        + path
        + "\"/></svg>";
  }

  private static BitMatrix matrix(String payload, int size) {
    try {
      return new QRCodeWriter().encode(payload, BarcodeFormat.QR_CODE, size, size, HINTS);
    } catch (WriterException e) {
      throw new IllegalArgumentException("payload does not fit a QR code", e);
    }
  }

  private QrImages() {}
}
