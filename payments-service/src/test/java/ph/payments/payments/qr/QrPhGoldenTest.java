package ph.payments.payments.qr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Payloads published by banks' and e-wallets' integrators (sources in {@code qr/golden-qrph.txt})
 * prove the decoder reads the real thing, and re-encoding proves encoder and decoder agree on it.
 */
class QrPhGoldenTest {

  static Stream<GoldenSamples.Sample> samples() {
    return GoldenSamples.all().stream();
  }

  static Stream<GoldenSamples.Sample> dynamicP2m() {
    return GoldenSamples.dynamicP2m().stream();
  }

  @Test
  void thereAreEnoughSamples() {
    assertTrue(GoldenSamples.all().size() >= 3, "at least three golden payloads");
  }

  @ParameterizedTest
  @MethodSource("samples")
  void decodesAndVerifiesTheCrc(GoldenSamples.Sample sample) {
    String text = sample.payload();
    EmvPayload payload = EmvMpmCodec.decode(text).orElseThrow();

    String computed = Crc16CcittFalse.hex(text.substring(0, text.length() - 4));
    assertEquals(computed, payload.crc());
  }

  @ParameterizedTest
  @MethodSource("samples")
  void reEncodesByteForByte(GoldenSamples.Sample sample) {
    EmvPayload payload = EmvMpmCodec.decode(sample.payload()).orElseThrow();

    assertEquals(sample.payload(), payload.encode(), "the decoded tree as it is");
    assertEquals(
        sample.payload(),
        EmvMpmCodec.encode(payload.withoutCrc()),
        "the decoded tree with the CRC computed again by the encoder");
    assertEquals(
        sample.payload(), EmvMpmCodec.encode(rebuild(payload.withoutCrc())), "rebuilt from parts");
  }

  @ParameterizedTest
  @MethodSource("samples")
  void parsesTheMerchantAccountTemplate(GoldenSamples.Sample sample) {
    EmvPayload payload = EmvMpmCodec.decode(sample.payload()).orElseThrow();

    Tlv account = payload.get("28").or(() -> payload.get("27")).orElseThrow();
    assertTrue(account.isTemplate());
    assertTrue(account.child("00").isPresent(), "GUID in sub-tag 00");
    assertTrue(account.child("01").orElseThrow().value().matches("[A-Z]{4}PH[A-Z0-9]{5}"));
  }

  @ParameterizedTest
  @MethodSource("samples")
  void rejectsEverySingleCharacterChange(GoldenSamples.Sample sample) {
    String text = sample.payload();
    for (int i = 0; i < text.length(); i++) {
      char replacement = text.charAt(i) == '0' ? '1' : '0';
      String mutated = text.substring(0, i) + replacement + text.substring(i + 1);
      assertFalse(
          EmvMpmCodec.decode(mutated).isAccepted(), "accepted with position " + i + " changed");
    }
  }

  @ParameterizedTest
  @MethodSource("dynamicP2m")
  void readsAsQrPhPersonToMerchant(GoldenSamples.Sample sample) {
    QrPhPayload payload = QrPhPayload.read(sample.payload()).orElseThrow();

    assertEquals(QrPhPayload.Mode.LIVE, payload.mode());
    assertEquals(sample.payload(), payload.qrCode());
  }

  @Test
  void readsTheDepartmentStoreCodeFieldByField() {
    QrPhPayload payload =
        QrPhPayload.read(GoldenSamples.named("landmark-rcbc-dynamic").payload()).orElseThrow();

    assertEquals(new AcquirerId("RCBCPHMMXXX"), payload.acquirerId());
    assertEquals("000600788000696", payload.merchantId());
    assertEquals("5311", payload.merchantCategoryCode());
    assertEquals(new BigDecimal("1458.31"), payload.amount());
    assertEquals("LANDMARK Makati DS", payload.merchantName());
    assertEquals("Makati", payload.merchantCity());
    assertEquals("0000438638", payload.referenceLabel());
    assertNull(payload.billNumber());
  }

  @Test
  void readsUnreservedTemplatesAsTemplates() {
    EmvPayload payload =
        EmvMpmCodec.decode(GoldenSamples.named("landmark-rcbc-dynamic").payload()).orElseThrow();

    assertEquals("ph.ppmi.qrph", payload.value("88", "00").orElseThrow());
    assertEquals(
        "000600788000696~000600788000696~20006519~0000438638",
        payload.value("88", "01").orElseThrow());
  }

  @Test
  void keepsATrailingSpaceInAMerchantName() {
    EmvPayload payload =
        EmvMpmCodec.decode(GoldenSamples.named("starpay-dynamic").payload()).orElseThrow();

    assertEquals("SOCMED DIGITAL MARKETING ", payload.value("59").orElseThrow());
  }

  @Test
  void refusesPersonToPersonCodesAsMerchantPayloads() {
    QrDecoding<QrPhPayload> p2p =
        QrPhPayload.read(GoldenSamples.named("paymongo-p2p-transfer").payload());

    QrDecoding.Rejected<?> rejected = assertInstanceOf(QrDecoding.Rejected.class, p2p);
    assertEquals(QrRejection.NOT_QR_PH_P2M, rejected.reason());
  }

  /** The same tree built again through the public factories, as a caller would build it. */
  private static List<Tlv> rebuild(List<Tlv> objects) {
    return objects.stream()
        .map(
            o ->
                o.isTemplate()
                    ? Tlv.template(
                        o.id(),
                        o.children().stream().map(c -> Tlv.primitive(c.id(), c.value())).toList())
                    : Tlv.primitive(o.id(), o.value()))
        .toList();
  }
}
