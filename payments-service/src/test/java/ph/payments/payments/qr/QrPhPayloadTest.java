package ph.payments.payments.qr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QrPhPayloadTest {

  static final AcquirerId LIVE_ACQUIRER = new AcquirerId("AGGRPHM2XXX");

  /**
   * Computed independently of this code (a few lines of Python: TLV concatenation and a bitwise
   * CRC-16/CCITT-FALSE), so a bug shared by our encoder and decoder would still show.
   */
  static final String EXPECTED_LIVE =
      "00020101021228450011ph.ppmi.p2m0111AGGRPHM2XXX0311MRCH-000123520454115303608"
          + "54071500.005802PH5915Sari-Sari Store6011Quezon City62340012ph.ppmi.qrph"
          + "0514PR-2026-00000163049D63";

  static final String EXPECTED_TEST =
      "00020101021228490015ph.sandbox.test0111SBOXPHX0XXX0311MRCH-000123520454115303608"
          + "54071500.005802PH5920TEST Sari-Sari Store6011Quezon City62370015ph.sandbox.test"
          + "0514PR-2026-00000163048845";

  static DynamicP2mRequest request(AcquirerId acquirer, BigDecimal amount, String name) {
    return new DynamicP2mRequest(
        acquirer, "MRCH-000123", "5411", amount, name, "Quezon City", "PR-2026-000001", null);
  }

  static DynamicP2mRequest liveRequest() {
    return request(LIVE_ACQUIRER, new BigDecimal("1500.00"), "Sari-Sari Store");
  }

  static DynamicP2mRequest sandboxRequest() {
    return request(AcquirerId.SANDBOX, new BigDecimal("1500.00"), "Sari-Sari Store");
  }

  @Test
  void emitsTheExpectedLivePayload() {
    assertEquals(EXPECTED_LIVE, QrPhPayload.live(liveRequest()).qrCode());
  }

  @Test
  void liveRoundTripGivesBackEveryField() {
    QrPhPayload built = QrPhPayload.live(liveRequest());
    QrPhPayload read = QrPhPayload.read(built.qrCode()).orElseThrow();

    assertEquals(QrPhPayload.Mode.LIVE, read.mode());
    assertEquals(LIVE_ACQUIRER, read.acquirerId());
    assertEquals("MRCH-000123", read.merchantId());
    assertEquals("5411", read.merchantCategoryCode());
    assertEquals(new BigDecimal("1500.00"), read.amount());
    assertEquals("Sari-Sari Store", read.merchantName());
    assertEquals("Quezon City", read.merchantCity());
    assertEquals("PR-2026-000001", read.referenceLabel());
    assertNull(read.billNumber());
    assertEquals(built, read);
  }

  @Test
  void writesTheQrPhLayout() {
    EmvPayload payload = EmvMpmCodec.decode(QrPhPayload.live(liveRequest()).qrCode()).orElseThrow();

    assertEquals("01", payload.value("00").orElseThrow());
    assertEquals("12", payload.value("01").orElseThrow());
    assertEquals("ph.ppmi.p2m", payload.value("28", "00").orElseThrow());
    assertEquals("AGGRPHM2XXX", payload.value("28", "01").orElseThrow());
    assertEquals("MRCH-000123", payload.value("28", "03").orElseThrow());
    assertEquals("608", payload.value("53").orElseThrow());
    assertEquals("PH", payload.value("58").orElseThrow());
    assertEquals("ph.ppmi.qrph", payload.value("62", "00").orElseThrow());
    assertEquals("PR-2026-000001", payload.value("62", "05").orElseThrow());
    assertTrue(payload.crc().matches("[0-9A-F]{4}"));
  }

  @Test
  void writesTheBillNumberWhenGiven() {
    DynamicP2mRequest withBill =
        new DynamicP2mRequest(
            LIVE_ACQUIRER,
            "MRCH-000123",
            "5411",
            new BigDecimal("99.50"),
            "Sari-Sari Store",
            "Quezon City",
            "PR-2026-000001",
            "INV-0042");

    QrPhPayload read = QrPhPayload.read(QrPhPayload.live(withBill).qrCode()).orElseThrow();

    assertEquals("INV-0042", read.billNumber());
    assertEquals(
        "INV-0042",
        EmvMpmCodec.decode(read.qrCode()).orElseThrow().value("62", "01").orElseThrow());
  }

  @Test
  void changingAnyCharacterBeforeTheCrcBreaksTheCrcCheck() {
    String qr = QrPhPayload.live(liveRequest()).qrCode();
    int crcObject = qr.length() - 8;
    for (int i = 0; i < crcObject; i++) {
      char replacement = qr.charAt(i) == 'A' ? 'B' : 'A';
      String mutated = qr.substring(0, i) + replacement + qr.substring(i + 1);

      QrDecoding.Rejected<?> rejected =
          assertInstanceOf(QrDecoding.Rejected.class, EmvMpmCodec.decode(mutated), "position " + i);
      assertEquals(QrRejection.CRC_MISMATCH, rejected.reason(), "position " + i);
    }
  }

  @Test
  void cutsTheMerchantNameTo25Characters() {
    QrPhPayload payload =
        QrPhPayload.live(
            request(
                LIVE_ACQUIRER,
                BigDecimal.TEN,
                "Panaderia de Manila Bakeshop and Cafe Corporation"));

    assertEquals("Panaderia de Manila Bakes", payload.merchantName());
    assertEquals(25, payload.merchantName().length());
    assertEquals(
        "Panaderia de Manila Bakes",
        EmvMpmCodec.decode(payload.qrCode()).orElseThrow().value("59").orElseThrow());
  }

  @Test
  void doesNotLeaveASpaceWhereTheNameIsCut() {
    // The 25th character is a space: the name written is 24 characters.
    QrPhPayload payload =
        QrPhPayload.live(
            request(LIVE_ACQUIRER, BigDecimal.TEN, "Sari-Sari Store ng Bayan ni Nena"));

    assertEquals("Sari-Sari Store ng Bayan", payload.merchantName());
  }

  @Test
  void transliteratesNameAndCityToAscii() {
    DynamicP2mRequest request =
        new DynamicP2mRequest(
            LIVE_ACQUIRER,
            "MRCH-000123",
            "5812",
            BigDecimal.ONE,
            "Café  Niño\u00a0—  Ñanay’s ☕",
            "Las Piñas City, Metro Manila",
            "PR-1",
            null);

    QrPhPayload payload = QrPhPayload.live(request);

    assertEquals("Cafe Nino Nanays", payload.merchantName());
    assertEquals("Las Pinas City,", payload.merchantCity());
    assertTrue(QrText.isPrintableAscii(payload.qrCode()));
  }

  @Test
  void refusesANameWithNothingLeftInAscii() {
    assertThrows(
        IllegalArgumentException.class,
        () -> QrPhPayload.live(request(LIVE_ACQUIRER, BigDecimal.ONE, "☕☕")));
  }

  @ParameterizedTest
  @CsvSource({
    "0.01, 0.01",
    "1500, 1500.00",
    "1500.00, 1500.00",
    "1500.5, 1500.50",
    "9999999999.99, 9999999999.99"
  })
  void writesAmountsWithTwoDecimals(String amount, String written) {
    QrPhPayload payload =
        QrPhPayload.live(request(LIVE_ACQUIRER, new BigDecimal(amount), "Sari-Sari Store"));

    assertEquals(
        written, EmvMpmCodec.decode(payload.qrCode()).orElseThrow().value("54").orElseThrow());
    assertEquals(
        new BigDecimal(written), QrPhPayload.read(payload.qrCode()).orElseThrow().amount());
  }

  @Test
  void refusesAmountsTag54CannotHold() {
    // 999999999999.00 needs 15 characters; tag 54 holds 13, so the largest is 9999999999.99.
    IllegalArgumentException tooLarge =
        assertThrows(
            IllegalArgumentException.class,
            () -> request(LIVE_ACQUIRER, new BigDecimal("999999999999.00"), "Sari-Sari Store"));
    assertTrue(tooLarge.getMessage().contains("9999999999.99"), tooLarge.getMessage());

    assertThrows(
        IllegalArgumentException.class,
        () -> request(LIVE_ACQUIRER, new BigDecimal("10000000000.00"), "Sari-Sari Store"));
    assertThrows(
        IllegalArgumentException.class,
        () -> request(LIVE_ACQUIRER, new BigDecimal("1.005"), "Sari-Sari Store"));
    assertThrows(
        IllegalArgumentException.class,
        () -> request(LIVE_ACQUIRER, BigDecimal.ZERO, "Sari-Sari Store"));
    assertThrows(
        IllegalArgumentException.class,
        () -> request(LIVE_ACQUIRER, new BigDecimal("-5.00"), "Sari-Sari Store"));
  }

  @Test
  void refusesReferencesThatDoNotFit() {
    String paymentId = "pay_01hzy3k9m5w7q2r4t6v8x0za1b";
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new DynamicP2mRequest(
                LIVE_ACQUIRER, "M1", "5411", BigDecimal.ONE, "N", "C", paymentId, null));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new DynamicP2mRequest(
                LIVE_ACQUIRER, "M1", "5411", BigDecimal.ONE, "N", "C", "ref ñ", null));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new DynamicP2mRequest(
                LIVE_ACQUIRER, "M1", "541", BigDecimal.ONE, "N", "C", "REF", null));
  }

  @Test
  void testModeIsWellFormedButMarkedAndUnroutable() {
    QrPhPayload payload = QrPhPayload.testMode(sandboxRequest());

    assertEquals(EXPECTED_TEST, payload.qrCode());
    EmvPayload decoded = EmvMpmCodec.decode(payload.qrCode()).orElseThrow();
    assertEquals("ph.sandbox.test", decoded.value("28", "00").orElseThrow());
    assertEquals("ph.sandbox.test", decoded.value("62", "00").orElseThrow());
    assertEquals("TEST Sari-Sari Store", decoded.value("59").orElseThrow());
    assertTrue(AcquirerId.SANDBOX.isTestBic());
    assertFalse(payload.qrCode().contains("ph.ppmi"), "no QR Ph GUID anywhere");

    QrPhPayload read = QrPhPayload.read(payload.qrCode()).orElseThrow();
    assertEquals(QrPhPayload.Mode.TEST, read.mode());
    assertEquals(AcquirerId.SANDBOX, read.acquirerId());
  }

  @Test
  void testModeCutsTheNameAfterThePrefix() {
    QrPhPayload payload =
        QrPhPayload.testMode(
            request(AcquirerId.SANDBOX, BigDecimal.ONE, "Panaderia de Manila Bakeshop"));

    assertEquals("TEST Panaderia de Manila", payload.merchantName());
  }

  @Test
  void liveAndTestAcquirersCannotBeMixedUp() {
    assertThrows(IllegalArgumentException.class, () -> QrPhPayload.live(sandboxRequest()));
    assertThrows(IllegalArgumentException.class, () -> QrPhPayload.testMode(liveRequest()));
  }

  @Test
  void acquirerIdsArePhilippineBics() {
    assertEquals("RCBCPHMM", new AcquirerId("RCBCPHMM").bic());
    assertFalse(new AcquirerId("GXCHPHM2XXX").isTestBic());
    assertThrows(IllegalArgumentException.class, () -> new AcquirerId("DEUTDEFFXXX"));
    assertThrows(IllegalArgumentException.class, () -> new AcquirerId("rcbcphmmxxx"));
    assertThrows(IllegalArgumentException.class, () -> new AcquirerId("RCBCPHMMXX"));
  }

  @Test
  void readRefusesStaticAndForeignCodes() {
    String staticCode =
        EmvMpmCodecTest.withCrc(
            "000201010211"
                + "28450011ph.ppmi.p2m0111AGGRPHM2XXX0311MRCH-000123"
                + "5204541153036085802PH5915Sari-Sari Store6011Quezon City"
                + "62180514PR-2026-000001");
    assertEquals(QrRejection.NOT_DYNAMIC, rejection(QrPhPayload.read(staticCode)));

    String pesoInThailand = EXPECTED_LIVE.replace("5802PH", "5802TH");
    String recomputed =
        EmvMpmCodecTest.withCrc(pesoInThailand.substring(0, pesoInThailand.length() - 8));
    assertEquals(QrRejection.NOT_QR_PH_P2M, rejection(QrPhPayload.read(recomputed)));
  }

  private static QrRejection rejection(QrDecoding<?> result) {
    return assertInstanceOf(QrDecoding.Rejected.class, result).reason();
  }
}
