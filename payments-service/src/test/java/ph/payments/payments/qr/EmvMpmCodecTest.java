package ph.payments.payments.qr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Strict decoding: each rule is broken on its own, with a correct CRC wherever the rule is not the
 * CRC itself, so the test proves the structural check and not the checksum caught it.
 */
class EmvMpmCodecTest {

  private static final String MERCHANT_ACCOUNT = tlv("28", tlv("00", "ph.ppmi.p2m"));

  /** Data objects of a valid payload, without the CRC, in order. */
  private static final List<String> VALID =
      List.of(
          tlv("00", "01"),
          tlv("01", "12"),
          MERCHANT_ACCOUNT,
          tlv("52", "5411"),
          tlv("53", "608"),
          tlv("54", "100.00"),
          tlv("58", "PH"),
          tlv("59", "SARI SARI"),
          tlv("60", "MANILA"),
          tlv("62", tlv("05", "REF1")));

  @Test
  void acceptsAValidPayloadAndParsesTemplates() {
    EmvPayload payload = EmvMpmCodec.decode(withCrc(String.join("", VALID))).orElseThrow();

    assertEquals("ph.ppmi.p2m", payload.value("28", "00").orElseThrow());
    assertEquals("REF1", payload.value("62", "05").orElseThrow());
    assertTrue(payload.get("62").orElseThrow().isTemplate());
    assertFalse(payload.get("59").orElseThrow().isTemplate());
  }

  @Test
  void rejectsAWrongCrc() {
    String good = withCrc(String.join("", VALID));
    String bad = good.substring(0, good.length() - 1) + (good.endsWith("0") ? "1" : "0");

    assertRejected(QrRejection.CRC_MISMATCH, bad);
  }

  @Test
  void acceptsTheCrcInLowerCaseAndGivesItBackUnchanged() {
    // The specification defines a hexadecimal value, not its case; some generators write lower
    // case.
    String good = withCrc(String.join("", VALID));
    String lower =
        good.substring(0, good.length() - 4) + good.substring(good.length() - 4).toLowerCase();

    assertEquals(lower, EmvMpmCodec.decode(lower).orElseThrow().encode());
  }

  @Test
  void rejectsAValueThatRunsPastTheEnd() {
    // Tag 60 claims 30 characters; only "MANILA" and the CRC object follow.
    String body = String.join("", VALID.subList(0, 8)) + "6030MANILA";

    assertRejected(QrRejection.TRUNCATED, withCrc(body));
  }

  @Test
  void rejectsAPayloadCutInsideAHeader() {
    String good = withCrc(String.join("", VALID));

    assertRejected(QrRejection.TRUNCATED, good.substring(0, good.length() - 6));
  }

  @Test
  void rejectsATruncatedSubTagInsideATemplate() {
    String brokenTemplate = "2819" + "0011ph.ppmi.p2m" + "0109";

    QrDecoding.Rejected<EmvPayload> rejected =
        assertRejected(QrRejection.TRUNCATED, withCrc(replace(MERCHANT_ACCOUNT, brokenTemplate)));
    assertTrue(rejected.detail().contains("template 28"), rejected.detail());
  }

  @Test
  void rejectsNonDigitIdsAndLengths() {
    assertRejected(QrRejection.NON_DIGIT_ID, withCrc(String.join("", VALID) + "A102XY"));
    assertRejected(QrRejection.NON_DIGIT_LENGTH, withCrc(String.join("", VALID) + "650AXY"));
  }

  @Test
  void rejectsAZeroLength() {
    assertRejected(QrRejection.EMPTY_VALUE, withCrc(String.join("", VALID) + "6500"));
  }

  @Test
  void rejectsADuplicateTopLevelTag() {
    assertRejected(QrRejection.DUPLICATE_TAG, withCrc(String.join("", VALID) + tlv("52", "5411")));
  }

  @Test
  void rejectsADuplicateSubTag() {
    String twice = tlv("62", tlv("05", "REF1") + tlv("05", "REF2"));

    assertRejected(
        QrRejection.DUPLICATE_TAG, withCrc(replace(tlv("62", tlv("05", "REF1")), twice)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"00", "52", "53", "58", "59", "60"})
  void rejectsAMissingMandatoryTag(String id) {
    String body = VALID.stream().filter(o -> !o.startsWith(id)).reduce("", String::concat);

    assertRejected(QrRejection.MISSING_MANDATORY_TAG, withCrc(body));
  }

  @Test
  void rejectsAMissingCrc() {
    assertRejected(QrRejection.MISSING_MANDATORY_TAG, String.join("", VALID));
  }

  @Test
  void rejectsAPayloadWithoutMerchantAccountInformation() {
    assertRejected(QrRejection.MISSING_MANDATORY_TAG, withCrc(replace(MERCHANT_ACCOUNT, "")));
  }

  @Test
  void rejectsMisplacedFormatIndicatorAndCrc() {
    String swapped = tlv("01", "12") + tlv("00", "01") + String.join("", VALID.subList(2, 10));
    assertRejected(QrRejection.MISPLACED_TAG, withCrc(swapped));

    String crcThenMore = withCrc(String.join("", VALID)) + tlv("99", tlv("00", "x"));
    assertRejected(QrRejection.MISPLACED_TAG, crcThenMore);
  }

  @Test
  void rejectsValuesOutsideTheEmvFormats() {
    assertRejected(QrRejection.INVALID_VALUE, withCrc(replace(tlv("00", "01"), tlv("00", "02"))));
    assertRejected(QrRejection.INVALID_VALUE, withCrc(replace(tlv("01", "12"), tlv("01", "13"))));
    assertRejected(
        QrRejection.INVALID_VALUE, withCrc(replace(tlv("52", "5411"), tlv("52", "54A1"))));
    assertRejected(
        QrRejection.INVALID_VALUE, withCrc(replace(tlv("54", "100.00"), tlv("54", "1,00"))));
    assertRejected(
        QrRejection.INVALID_VALUE,
        withCrc(replace(tlv("54", "100.00"), tlv("54", "12345678901.00"))));
    assertRejected(
        QrRejection.INVALID_VALUE,
        withCrc(replace(tlv("59", "SARI SARI"), tlv("59", "A NAME OF TWENTY-SIX CHARS"))));
  }

  @Test
  void rejectsEmptyAndOverlongPayloads() {
    assertRejected(QrRejection.EMPTY, "");
    assertRejected(QrRejection.EMPTY, null);
    String padding = tlv("80", tlv("00", "x".repeat(95))).repeat(5);
    assertRejected(QrRejection.TOO_LONG, withCrc(String.join("", VALID) + padding));
  }

  @Test
  void keepsCardSchemeTagsPrimitiveEvenWhenTheyLookLikeTemplates() {
    // Tags 02-25 belong to card schemes and hold primitive values (a PAN here).
    String body = String.join("", VALID) + tlv("04", "0105ABCDE");

    Tlv scheme = EmvMpmCodec.decode(withCrc(body)).orElseThrow().get("04").orElseThrow();
    assertFalse(scheme.isTemplate());
  }

  @Test
  void encodeAppendsTheCrcAndRefusesWhatTheDecoderWouldRefuse() {
    List<Tlv> objects =
        List.of(
            Tlv.primitive("00", "01"),
            Tlv.template("28", List.of(Tlv.primitive("00", "ph.ppmi.p2m"))),
            Tlv.primitive("52", "5411"),
            Tlv.primitive("53", "608"),
            Tlv.primitive("58", "PH"),
            Tlv.primitive("59", "SARI SARI"),
            Tlv.primitive("60", "MANILA"));

    String payload = EmvMpmCodec.encode(objects);
    assertTrue(payload.matches(".*6304[0-9A-F]{4}"), payload);
    assertInstanceOf(QrDecoding.Accepted.class, EmvMpmCodec.decode(payload));

    assertThrows(
        IllegalArgumentException.class,
        () -> EmvMpmCodec.encode(objects.subList(0, 6)),
        "tag 60 missing");
    assertThrows(
        IllegalArgumentException.class,
        () -> EmvMpmCodec.encode(List.of(Tlv.primitive("63", "ABCD"))));
  }

  @Test
  void dataObjectsRefuseIdsAndLengthsTheFormatCannotCarry() {
    assertThrows(IllegalArgumentException.class, () -> Tlv.primitive("5", "x"));
    assertThrows(IllegalArgumentException.class, () -> Tlv.primitive("59", ""));
    assertThrows(IllegalArgumentException.class, () -> Tlv.primitive("59", "x".repeat(100)));
  }

  static QrDecoding.Rejected<EmvPayload> assertRejected(QrRejection reason, String payload) {
    QrDecoding<EmvPayload> result = EmvMpmCodec.decode(payload);
    QrDecoding.Rejected<EmvPayload> rejected =
        assertInstanceOf(QrDecoding.Rejected.class, result, () -> "accepted: " + payload);
    assertEquals(reason, rejected.reason(), rejected::detail);
    return rejected;
  }

  static String tlv(String id, String value) {
    return Tlv.primitive(id, value).encode();
  }

  /** {@code body} followed by a CRC object that matches it. */
  static String withCrc(String body) {
    String withHeader = body + "6304";
    return withHeader + Crc16CcittFalse.hex(withHeader);
  }

  private static String replace(String object, String replacement) {
    return VALID.stream().map(o -> o.equals(object) ? replacement : o).reduce("", String::concat);
  }
}
