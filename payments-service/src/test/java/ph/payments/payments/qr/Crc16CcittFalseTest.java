package ph.payments.payments.qr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Crc16CcittFalseTest {

  @Test
  void matchesTheCatalogueCheckValue() {
    // The CRC catalogue's check value for CRC-16/CCITT-FALSE (a.k.a. CRC-16/IBM-3740).
    assertEquals(0x29B1, Crc16CcittFalse.checksum("123456789".getBytes(StandardCharsets.US_ASCII)));
    assertEquals("29B1", Crc16CcittFalse.hex("123456789"));
  }

  @Test
  void startsFromFfffWithoutFinalXor() {
    assertEquals(0xFFFF, Crc16CcittFalse.checksum(new byte[0]));
  }

  @Test
  void writesFourUppercaseDigitsWithLeadingZeros() {
    // From the gcash-p2p-dynamic golden sample, whose published CRC is 0D0A.
    String payload = GoldenSamples.named("gcash-p2p-dynamic").payload();
    assertEquals("0D0A", Crc16CcittFalse.hex(payload.substring(0, payload.length() - 4)));
  }
}
