package ph.payments.payments.qr;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Encoder and strict decoder for EMVCo QR Code Specification for Payment Systems,
 * Merchant-Presented Mode (v1.1): a run of data objects "id (2 digits), length (2 digits), value",
 * some of which are templates holding further data objects, closed by the CRC in tag 63.
 *
 * <p>The CRC is CRC-16/CCITT-FALSE ({@link Crc16CcittFalse}) over the whole payload up to and
 * including the CRC's own id and length, "6304", written as four uppercase hexadecimal digits.
 *
 * <p>Lengths count Java {@code char}s. Every payload we emit is printable ASCII, where that is the
 * same as characters and bytes; only the language template (64) can legitimately carry other
 * scripts, and a character outside the Basic Multilingual Plane there would count twice.
 */
public final class EmvMpmCodec {

  /** EMVCo caps a merchant-presented payload at 512 characters. */
  public static final int MAX_PAYLOAD_LENGTH = 512;

  /** The data objects EMVCo requires in every merchant-presented payload. */
  public static final List<String> MANDATORY_TAGS =
      List.of("00", "52", "53", "58", "59", "60", "63");

  static final String CRC_ID = "63";
  private static final String CRC_HEADER = "6304";

  private static final Pattern AMOUNT = Pattern.compile("[0-9]+(\\.[0-9]+)?");
  private static final Pattern HEX4 = Pattern.compile("[0-9A-Fa-f]{4}");

  private EmvMpmCodec() {}

  /**
   * True for the ids whose value is a template: merchant account information 26–51, additional data
   * 62, merchant information in an alternate language 64, and the unreserved templates 80–99. Ids
   * 02–25 are reserved for card schemes with primitive values and stay primitive.
   */
  public static boolean isTemplateId(String id) {
    int n = Integer.parseInt(id);
    return (n >= 26 && n <= 51) || n == 62 || n == 64 || (n >= 80 && n <= 99);
  }

  /**
   * The payload for {@code objects} (everything but tag 63) followed by "6304" and its CRC.
   *
   * <p>The result is decoded again before it is returned, so the encoder can never emit something
   * the decoder refuses: a caller who leaves out a mandatory tag or repeats one gets an exception
   * naming the rule, at the place that built the wrong payload.
   *
   * @throws IllegalArgumentException if the objects include tag 63 or the result is not a payload
   *     {@link #decode} accepts
   */
  public static String encode(List<Tlv> objects) {
    for (Tlv object : objects) {
      if (object.id().equals(CRC_ID)) {
        throw new IllegalArgumentException("tag 63 is computed by the encoder, do not pass it");
      }
    }
    String body = Tlv.concat(objects) + CRC_HEADER;
    String payload = body + Crc16CcittFalse.hex(body);
    if (decode(payload) instanceof QrDecoding.Rejected<EmvPayload> rejected) {
      throw new IllegalArgumentException(
          "not a valid EMVCo payload: " + rejected.reason() + ": " + rejected.detail());
    }
    return payload;
  }

  /**
   * Reads {@code payload} strictly. Refused are: a CRC that does not match, a truncated data
   * object, ids or lengths that are not two digits, a zero length, a repeated id at the top level
   * or inside one template, a missing mandatory tag (00, 52, 53, 58, 59, 60, 63, and at least one
   * merchant account information 02–51), tag 00 not first or not "01", tag 63 not last, and values
   * outside the EMVCo formats of tags 01, 52, 53, 54, 58, 59 and 60.
   */
  public static QrDecoding<EmvPayload> decode(String payload) {
    if (payload == null || payload.isEmpty()) {
      return reject(QrRejection.EMPTY, "the payload is empty");
    }
    if (payload.length() > MAX_PAYLOAD_LENGTH) {
      return reject(
          QrRejection.TOO_LONG,
          "the payload has " + payload.length() + " characters, at most " + MAX_PAYLOAD_LENGTH);
    }
    // The CRC goes first: a payload damaged in transit usually still parses, and "CRC mismatch" is
    // the honest diagnosis for it; structural errors below then point at an encoder bug instead.
    int n = payload.length();
    if (n >= 8 && payload.startsWith(CRC_HEADER, n - 8)) {
      String declared = payload.substring(n - 4);
      String computed = Crc16CcittFalse.hex(payload.substring(0, n - 4));
      if (!declared.equalsIgnoreCase(computed)) {
        return reject(
            QrRejection.CRC_MISMATCH,
            "tag 63 says "
                + declared
                + " but the CRC-16/CCITT-FALSE of the payload is "
                + computed);
      }
    }
    QrDecoding<List<Tlv>> parsed = parseObjects(payload, 0, null);
    if (parsed instanceof QrDecoding.Rejected<List<Tlv>> rejected) {
      return rejected.retype();
    }
    List<Tlv> objects = ((QrDecoding.Accepted<List<Tlv>>) parsed).value();
    QrDecoding.Rejected<EmvPayload> invalid = checkTopLevel(objects);
    return invalid != null ? invalid : new QrDecoding.Accepted<>(new EmvPayload(objects));
  }

  /**
   * Parses a run of data objects. {@code template} is null at the top level, where template ids are
   * parsed one level deeper; inside a template every value is kept as it is (EMVCo nests only once:
   * sub-tags 50–99 of tag 62 are payment-system specific and opaque to us).
   */
  private static QrDecoding<List<Tlv>> parseObjects(String text, int offset, String template) {
    List<Tlv> objects = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    int i = 0;
    while (i < text.length()) {
      int position = offset + i;
      if (i + 4 > text.length()) {
        return reject(
            QrRejection.TRUNCATED,
            where(template)
                + "data object at position "
                + position
                + " has no complete id and length");
      }
      String id = text.substring(i, i + 2);
      String lengthDigits = text.substring(i + 2, i + 4);
      if (!Tlv.isTwoDigits(id)) {
        return reject(
            QrRejection.NON_DIGIT_ID,
            where(template) + "id '" + id + "' at position " + position + " is not two digits");
      }
      if (!Tlv.isTwoDigits(lengthDigits)) {
        return reject(
            QrRejection.NON_DIGIT_LENGTH,
            where(template)
                + "tag "
                + id
                + " at position "
                + position
                + " has length '"
                + lengthDigits
                + "', not two digits");
      }
      int length = Integer.parseInt(lengthDigits);
      if (length == 0) {
        return reject(
            QrRejection.EMPTY_VALUE,
            where(template) + "tag " + id + " at position " + position + " has length 00");
      }
      if (i + 4 + length > text.length()) {
        return reject(
            QrRejection.TRUNCATED,
            where(template)
                + "tag "
                + id
                + " at position "
                + position
                + " declares "
                + length
                + " characters but only "
                + (text.length() - i - 4)
                + " follow");
      }
      if (!seen.add(id)) {
        return reject(QrRejection.DUPLICATE_TAG, where(template) + "tag " + id + " appears twice");
      }
      String value = text.substring(i + 4, i + 4 + length);
      if (template == null && isTemplateId(id)) {
        QrDecoding<List<Tlv>> children = parseObjects(value, position + 4, id);
        if (children instanceof QrDecoding.Rejected<List<Tlv>> rejected) {
          return rejected;
        }
        objects.add(new Tlv(id, value, ((QrDecoding.Accepted<List<Tlv>>) children).value()));
      } else {
        objects.add(Tlv.primitive(id, value));
      }
      i += 4 + length;
    }
    return new QrDecoding.Accepted<>(objects);
  }

  private static QrDecoding.Rejected<EmvPayload> checkTopLevel(List<Tlv> objects) {
    Set<String> ids = new HashSet<>();
    boolean merchantAccount = false;
    for (Tlv object : objects) {
      ids.add(object.id());
      int n = Integer.parseInt(object.id());
      merchantAccount |= n >= 2 && n <= 51;
    }
    for (String mandatory : MANDATORY_TAGS) {
      if (!ids.contains(mandatory)) {
        return reject(
            QrRejection.MISSING_MANDATORY_TAG, "mandatory tag " + mandatory + " is missing");
      }
    }
    if (!merchantAccount) {
      return reject(
          QrRejection.MISSING_MANDATORY_TAG,
          "no merchant account information (tags 02 to 51) is present");
    }
    if (!objects.get(0).id().equals("00")) {
      return reject(QrRejection.MISPLACED_TAG, "tag 00 must be the first data object");
    }
    if (!objects.get(objects.size() - 1).id().equals(CRC_ID)) {
      return reject(QrRejection.MISPLACED_TAG, "tag 63 must be the last data object");
    }
    EmvPayload payload = new EmvPayload(objects);
    String formatIndicator = payload.value("00").orElseThrow();
    if (!formatIndicator.equals("01")) {
      return invalid("tag 00 (payload format indicator) must be 01, is " + formatIndicator);
    }
    String crc = payload.crc();
    if (!HEX4.matcher(crc).matches()) {
      return invalid("tag 63 (CRC) must be four hexadecimal digits, is '" + crc + "'");
    }
    String initiation = payload.value("01").orElse("11");
    if (!initiation.equals("11") && !initiation.equals("12")) {
      return invalid("tag 01 (point of initiation) must be 11 or 12, is " + initiation);
    }
    String mcc = payload.value("52").orElseThrow();
    if (!mcc.matches("[0-9]{4}")) {
      return invalid("tag 52 (merchant category code) must be four digits, is '" + mcc + "'");
    }
    String currency = payload.value("53").orElseThrow();
    if (!currency.matches("[0-9]{3}")) {
      return invalid("tag 53 (currency) must be an ISO 4217 numeric code, is '" + currency + "'");
    }
    String amount = payload.value("54").orElse(null);
    if (amount != null && (amount.length() > 13 || !AMOUNT.matcher(amount).matches())) {
      return invalid("tag 54 (amount) must be up to 13 digits with an optional '.', is " + amount);
    }
    String country = payload.value("58").orElseThrow();
    if (!country.matches("[A-Z]{2}")) {
      return invalid("tag 58 (country) must be an ISO 3166-1 alpha-2 code, is '" + country + "'");
    }
    if (payload.value("59").orElseThrow().length() > 25) {
      return invalid("tag 59 (merchant name) must have at most 25 characters");
    }
    if (payload.value("60").orElseThrow().length() > 15) {
      return invalid("tag 60 (merchant city) must have at most 15 characters");
    }
    return null;
  }

  private static String where(String template) {
    return template == null ? "" : "inside template " + template + ": ";
  }

  private static QrDecoding.Rejected<EmvPayload> invalid(String detail) {
    return new QrDecoding.Rejected<>(QrRejection.INVALID_VALUE, detail);
  }

  private static <T> QrDecoding.Rejected<T> reject(QrRejection reason, String detail) {
    return new QrDecoding.Rejected<>(reason, detail);
  }
}
