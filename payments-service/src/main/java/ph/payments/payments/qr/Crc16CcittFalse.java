package ph.payments.payments.qr;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no input or output reflection, no
 * final XOR. This is the checksum EMVCo MPM specifies for tag 63 (ISO/IEC 13239 with initial value
 * FFFF); its catalogue check value is {@code 0x29B1} for the ASCII text "123456789".
 *
 * <p>Bitwise rather than table-driven: payloads are at most 512 characters, so the 256-entry table
 * would buy nothing measurable and would be one more thing to get wrong.
 */
public final class Crc16CcittFalse {

  private static final int POLYNOMIAL = 0x1021;
  private static final int INITIAL = 0xFFFF;

  private Crc16CcittFalse() {}

  /** The checksum of {@code bytes}, in the range 0..0xFFFF. */
  public static int checksum(byte[] bytes) {
    int crc = INITIAL;
    for (byte b : bytes) {
      crc ^= (b & 0xFF) << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ POLYNOMIAL : crc << 1;
      }
      crc &= 0xFFFF;
    }
    return crc;
  }

  /**
   * The checksum of {@code text}'s UTF-8 bytes as four uppercase hexadecimal digits, the form tag
   * 63 carries. Payloads we emit are ASCII, where UTF-8 and the character values coincide.
   */
  public static String hex(String text) {
    return String.format(Locale.ROOT, "%04X", checksum(text.getBytes(StandardCharsets.UTF_8)));
  }
}
