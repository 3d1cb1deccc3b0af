package ph.payments.payments.qr;

import java.text.Normalizer;

/**
 * Text rules for the fields we write into a payload. EMVCo restricts tags 59 and 60 to its
 * "alphanumeric special" set, effectively printable ASCII, and a payer's banking app shows the
 * merchant name as is: "Café Niño" has to become "Cafe Nino", not "Caf? Ni?o" or a rejected QR.
 */
final class QrText {

  private QrText() {}

  /**
   * {@code text} reduced to printable ASCII: compatibility decomposition (NFKD) turns accented
   * letters into base letter plus a combining mark, which is dropped, and full-width or ligature
   * forms into their plain letters; a few letters without a decomposition are spelled out; anything
   * else outside printable ASCII is dropped; runs of white space become one space.
   */
  static String toPrintableAscii(String text) {
    StringBuilder spelled = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      spelled.append(
          switch (c) {
            case 'ß' -> "ss";
            case 'Æ' -> "AE";
            case 'æ' -> "ae";
            case 'Œ' -> "OE";
            case 'œ' -> "oe";
            case 'Ø' -> "O";
            case 'ø' -> "o";
            case 'Đ' -> "D";
            case 'đ' -> "d";
            case 'Ł' -> "L";
            case 'ł' -> "l";
            default -> String.valueOf(c);
          });
    }
    String decomposed = Normalizer.normalize(spelled, Normalizer.Form.NFKD);
    StringBuilder out = new StringBuilder(decomposed.length());
    boolean pendingSpace = false;
    for (int i = 0; i < decomposed.length(); i++) {
      char c = decomposed.charAt(i);
      if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
        pendingSpace = out.length() > 0;
      } else if (c > 0x20 && c < 0x7F) {
        if (pendingSpace) {
          out.append(' ');
          pendingSpace = false;
        }
        out.append(c);
      }
    }
    return out.toString();
  }

  /** At most {@code max} characters, without a space left dangling at the cut. */
  static String cut(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max).stripTrailing();
  }

  /** True when every character is printable ASCII (space to tilde). */
  static boolean isPrintableAscii(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c > 0x7E) {
        return false;
      }
    }
    return true;
  }
}
